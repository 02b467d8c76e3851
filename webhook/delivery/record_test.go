package delivery_test

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/agenttrust/service/db"
	"github.com/agenttrust/service/event"
	"github.com/agenttrust/service/internal/webhooktest"
	"github.com/agenttrust/service/webhook"
)

// listedAttempt is an attempt as GET /webhooks/{id}/deliveries lists it.
type listedAttempt struct {
	ID        string    `json:"id"`
	EventID   string    `json:"event_id"`
	Attempt   int       `json:"attempt"`
	CreatedAt time.Time `json:"created_at"`
}

// TestPagesOfOverlappingBatches: attempts are stored a batch to a row, and
// the batches of jobs that ran side by side overlap in time. Every page size
// lists each attempt once, newest first, and its pages join into the one
// long list. A run of attempts longer than db.BatchSpan is stored as several
// batches, and attempts at events recorded before are numbered past them.
func TestPagesOfOverlappingBatches(t *testing.T) {
	t.Parallel()
	e := webhooktest.NewEnv(t, webhooktest.Options{})
	rcv := webhooktest.New(t)
	whID, _ := e.Register(rcv.URL(), event.AgentRegistered)

	now := time.Now()
	sent := func(seq int64, ago time.Duration, code int) webhook.Sent {
		return webhook.Sent{Message: webhook.Outgoing{ID: fmt.Sprintf("evt_page_%d", seq), Seq: seq, Type: event.AgentRegistered},
			Attempt: webhook.Attempt{StatusCode: code, Latency: time.Millisecond}, Done: now.Add(-ago)}
	}
	total := 0
	record := func(jobID int64, batch []webhook.Sent) {
		t.Helper()
		if _, err := e.Webhooks.RecordAttempts(t.Context(), whID, webhook.JobRun{ID: jobID, Attempt: 1}, batch); err != nil {
			t.Fatal(err)
		}
		total += len(batch)
	}
	// Two jobs side by side: their attempts interleave over 10 seconds.
	var a, b []webhook.Sent
	for i := range 30 {
		a = append(a, sent(int64(1+i), time.Duration(30-i)*300*time.Millisecond, 204))
		b = append(b, sent(int64(101+i), time.Duration(30-i)*310*time.Millisecond+100*time.Millisecond, 204))
	}
	record(1, a)
	record(2, b)
	// Single attempts, a batch each, among and after them.
	for i := range 12 {
		record(int64(10+i), []webhook.Sent{sent(int64(200+i), time.Duration(i)*time.Second+50*time.Millisecond, 500)})
	}
	// A run twice as long as a batch may span.
	var long []webhook.Sent
	for i := range 20 {
		long = append(long, sent(int64(300+i), 2*db.BatchSpan-time.Duration(i)*db.BatchSpan/10, 204))
	}
	record(30, long)
	// The first job's first five events again, all at one time.
	record(31, slices.Clone(a[:5]))

	list := func(limit int, after string) (page struct {
		Data       []listedAttempt
		NextCursor *string `json:"next_cursor"`
	}) {
		t.Helper()
		q := url.Values{"limit": {fmt.Sprint(limit)}}
		if after != "" {
			q.Set("after", after)
		}
		r := e.Do(e.Key, http.MethodGet, "/webhooks/"+whID+"/deliveries?"+q.Encode(), nil)
		if r.Status != http.StatusOK {
			t.Fatalf("list: %d %s", r.Status, r.Body)
		}
		r.JSON(t, &page)
		return page
	}
	all := list(200, "").Data
	if len(all) != total {
		t.Fatalf("listed %d attempts, recorded %d", len(all), total)
	}
	// The wire's times are to the millisecond: ties there are ordered by
	// the stored microseconds, then id.
	if !slices.IsSortedFunc(all, func(x, y listedAttempt) int { return y.CreatedAt.Compare(x.CreatedAt) }) {
		t.Fatalf("not newest first: %+v", all)
	}
	attempts := map[string][]int{}
	for _, d := range all {
		attempts[d.EventID] = append(attempts[d.EventID], d.Attempt)
	}
	for id, got := range attempts {
		slices.Sort(got)
		want := []int{1}
		if slices.ContainsFunc(a[:5], func(s webhook.Sent) bool { return s.Message.ID == id }) {
			want = []int{1, 2}
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: attempts %v, want %v", id, got, want)
		}
	}

	for _, limit := range []int{1, 3, 7, 50} {
		var joined []listedAttempt
		after := ""
		for range total + 1 {
			page := list(limit, after)
			if len(page.Data) > limit {
				t.Fatalf("limit %d: a page of %d", limit, len(page.Data))
			}
			joined = append(joined, page.Data...)
			if page.NextCursor == nil {
				break
			}
			after = *page.NextCursor
		}
		if !slices.EqualFunc(joined, all, func(x, y listedAttempt) bool { return x.ID == y.ID }) {
			t.Fatalf("limit %d: pages join into %d attempts, differing from the one list of %d", limit, len(joined), len(all))
		}
	}

	// The long run went into batches none of which spans more than BatchSpan.
	var batches int
	var span time.Duration
	err := e.DB.Pool().QueryRow(t.Context(), `SELECT count(*), max(last_at - first_at) FROM webhook_attempt_batches WHERE job_id = 30`).Scan(&batches, &span)
	if err != nil {
		t.Fatal(err)
	}
	if batches < 2 || span > db.BatchSpan {
		t.Fatalf("the long run is %d batches spanning up to %s; want at least 2 of at most %s", batches, span, db.BatchSpan)
	}
}
