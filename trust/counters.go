package trust

import (
	"math"
	"time"
)

// Counters are an agent's trust evidence as kept in the database: decayed
// counts valid at At, plain counts, and the agent's state. Reading a score
// decays them to the reading time, so a read is constant-time however long
// the history.
type Counters struct {
	// At is when the decayed counts below were last brought up to date.
	At time.Time `json:"at"`
	// Completed: transactions with other organizations, either side, not reversed (half-life 30 days).
	Completed float64 `json:"completed"`
	// Failures: refused attempts for malformed or unauthorized requests (30 days).
	Failures float64 `json:"failures"`
	// LimitRefusals: refused attempts over the agent's own spending or daily limit (1 day).
	LimitRefusals float64 `json:"limit_refusals"`
	// Reversals: transactions it sent to another organization and reversed (90 days).
	Reversals float64 `json:"reversals"`
	// DisputingOrgs: other organizations with an open dispute against it, each
	// weighed from its earliest open dispute (90 days).
	DisputingOrgs float64 `json:"disputing_orgs"`
	// OpenDisputes counts open disputes from other organizations.
	OpenDisputes int64 `json:"open_disputes"`
	// CounterpartyOrgs counts other organizations with a completed, not reversed transaction.
	CounterpartyOrgs int64 `json:"counterparty_orgs"`
	// FirstExternalAt is the time of its first transaction with another
	// organization; zero when there is none.
	FirstExternalAt time.Time `json:"first_external_at"`
	// Suspended is the agent's status.
	Suspended bool `json:"suspended"`
}

// maxCount bounds every count, so absurd stored values cannot overflow the model.
const maxCount = 1e12

// DecayTo returns the counters with their decayed counts brought to t (never
// backwards: a t before At keeps At). Negative, NaN or absurd counts are
// clamped to 0..1e12.
func (c Counters) DecayTo(t time.Time) Counters {
	w := Weights
	if !c.At.IsZero() && t.After(c.At) {
		age := t.Sub(c.At)
		decayBy(&c.Completed, age, w.CompletionHalfLife)
		decayBy(&c.Failures, age, w.FailureHalfLife)
		decayBy(&c.LimitRefusals, age, w.LimitHalfLife)
		decayBy(&c.Reversals, age, w.ReversalHalfLife)
		decayBy(&c.DisputingOrgs, age, w.DisputeHalfLife)
	}
	if c.At.IsZero() || t.After(c.At) {
		c.At = t
	}
	for _, v := range []*float64{&c.Completed, &c.Failures, &c.LimitRefusals, &c.Reversals, &c.DisputingOrgs} {
		*v = clampCount(*v)
	}
	c.OpenDisputes = max(min(c.OpenDisputes, maxCount), 0)
	c.CounterpartyOrgs = max(min(c.CounterpartyOrgs, maxCount), 0)
	return c
}

// Weight is what one piece of evidence from at weighs at now under the
// given half-life: 2^(−age/half-life), 1 for evidence from now or later.
func Weight(at, now time.Time, halfLife time.Duration) float64 {
	if !now.After(at) {
		return 1
	}
	return decay(now.Sub(at), halfLife)
}

// decayBy decays the count *v over age; a zero count stays zero without
// the exponential (most of an agent's counts are zero, and a page of agents
// decays every one of them).
func decayBy(v *float64, age, halfLife time.Duration) {
	if *v != 0 {
		*v *= decay(age, halfLife)
	}
}

func decay(age, halfLife time.Duration) float64 {
	return math.Exp2(-age.Seconds() / halfLife.Seconds())
}

func clampCount(x float64) float64 {
	switch {
	case x >= maxCount:
		return maxCount
	case x > 1e-9:
		return x
	default: // negative, rounding residue of a removal, or NaN
		return 0
	}
}

// Close reports whether two counters agree up to float rounding (what
// `trust rebuild` compares).
func (c Counters) Close(o Counters) bool {
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-6*math.Max(1, math.Max(math.Abs(a), math.Abs(b))) }
	return near(c.Completed, o.Completed) && near(c.Failures, o.Failures) && near(c.LimitRefusals, o.LimitRefusals) &&
		near(c.Reversals, o.Reversals) && near(c.DisputingOrgs, o.DisputingOrgs) &&
		c.OpenDisputes == o.OpenDisputes && c.CounterpartyOrgs == o.CounterpartyOrgs &&
		c.FirstExternalAt.IsZero() == o.FirstExternalAt.IsZero() &&
		c.FirstExternalAt.Sub(o.FirstExternalAt).Abs() <= time.Millisecond // storage keeps microseconds
}
