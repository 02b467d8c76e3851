package dashboard

import (
	"time"

	"github.com/agenttrust/service/failure"
	"github.com/agenttrust/service/money"
	"github.com/agenttrust/service/paging"
)

// Bucket is the size of a spend series' buckets.
type Bucket string

// Bucket sizes: whole UTC hours or days.
const (
	Hour Bucket = "HOUR"
	Day  Bucket = "DAY"
)

// MaxBuckets bounds a spend series, so one answer stays small.
const MaxBuckets = 2000

// Step is the length of one bucket.
func (b Bucket) Step() time.Duration {
	if b == Day {
		return 24 * time.Hour
	}
	return time.Hour
}

// SeriesQuery asks for one agent's completed outflow per bucket, or
// without AgentID the organization's in Currency.
type SeriesQuery struct {
	AgentID  *string
	Currency *string
	Bucket   Bucket
	Since    time.Time
	Until    time.Time
	Action   *string
}

// Validate checks the query and returns a VALIDATION_FAILED error naming
// every bad argument: a currency that is unknown, or missing without an
// agent; an empty period; more than MaxBuckets buckets.
func (q SeriesQuery) Validate() error {
	var f failure.Fields
	switch {
	case q.Currency != nil:
		if _, err := money.ParseCurrency(*q.Currency); err != nil {
			f.Add("currency", "%s", err)
		}
	case q.AgentID == nil:
		f.Add("currency", "is required without agentId: an organization's outflow is summed per currency")
	}
	if q.Bucket != Hour && q.Bucket != Day {
		f.Add("bucket", "must be HOUR or DAY")
	} else if !q.Until.After(q.Since) {
		f.Add("until", "must be after since")
	} else if n := q.Buckets(); n > MaxBuckets {
		f.Add("until", "the period holds %d %s buckets; at most %d are allowed", n, q.Bucket, MaxBuckets)
	}
	if q.Action != nil && *q.Action == "" {
		f.Add("action", "must not be empty; absent counts every action")
	}
	return f.Err()
}

// First is the start of the first bucket: the one holding Since.
func (q SeriesQuery) First() time.Time { return q.Since.UTC().Truncate(q.Bucket.Step()) }

// Buckets is how many buckets the period holds: from the one holding Since
// to the one holding the moment just before Until.
func (q SeriesQuery) Buckets() int {
	last := q.Until.UTC().Add(-time.Microsecond).Truncate(q.Bucket.Step())
	return int(last.Sub(q.First())/q.Bucket.Step()) + 1
}

// Fill returns one point per bucket of the period, in order: the sums in
// points (dated at their bucket's start) and zeros for the others.
func (q SeriesQuery) Fill(points []SpendPoint) []SpendPoint {
	n, step, first := q.Buckets(), q.Bucket.Step(), q.First()
	out := make([]SpendPoint, n)
	for i := range out {
		out[i].Start = first.Add(time.Duration(i) * step)
	}
	for _, p := range points {
		if i := int(p.Start.Sub(first) / step); i >= 0 && i < n {
			out[i].Amount = out[i].Amount.Add(p.Amount)
			out[i].Count += p.Count
		}
	}
	return out
}

// SeriesTokens is what a series costs the caller's rate limit beyond the
// request's own token: its buckets, as if they were rows of a list.
func SeriesTokens(q SeriesQuery) int { return paging.Tokens(q.Buckets()) }
