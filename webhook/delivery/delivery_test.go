package delivery_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/agenttrust/service/event"
	"github.com/agenttrust/service/internal/webhooktest"
	"github.com/agenttrust/service/webhook"
	"github.com/agenttrust/service/webhook/delivery"
)

const wait = 15 * time.Second

// logged returns the org's logged event with id, waiting for it to be readable.
func logged(t *testing.T, e *webhooktest.Env, id string) event.Event {
	t.Helper()
	deadline := time.Now().Add(wait)
	for time.Now().Before(deadline) {
		evs, err := e.DB.ReadOrgEvents(context.Background(), e.OrgID, event.Position{}, 1000)
		if err != nil {
			t.Fatal(err)
		}
		for _, ev := range evs {
			if ev.ID == id {
				return ev
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("event %s not in the log", id)
	return event.Event{}
}

func TestDeliversSignedEventsToMatchingEndpoints(t *testing.T) {
	t.Parallel()
	e := webhooktest.NewEnv(t, webhooktest.Options{})
	all, agents, txs := webhooktest.New(t), webhooktest.New(t), webhooktest.New(t)
	_, allSecret := e.Register(all.URL(), "*")
	_, agentSecret := e.Register(agents.URL(), event.AgentRegistered)
	e.Register(txs.URL(), event.TransactionCompleted)
	e.Start(delivery.Config{})

	e.RegisterAgent("a1")
	got := all.Wait(t, 1, wait, event.AgentRegistered)[0]
	webhooktest.Verify(t, got, allSecret)
	ag := agents.Wait(t, 1, wait, event.AgentRegistered)[0]
	webhooktest.Verify(t, ag, agentSecret)
	if webhooktest.Check(ag, allSecret) == nil {
		t.Fatal("one endpoint's delivery verifies under another endpoint's secret")
	}
	if got.Header.Get("webhook-id") != got.Message.ID || got.Message.ID != ag.Message.ID {
		t.Fatalf("webhook-id %q, body id %q, other endpoint's %q: want the same event id", got.Header.Get("webhook-id"), got.Message.ID, ag.Message.ID)
	}
	if ct := got.Header.Get("Content-Type"); ct != "application/json" {
		t.Fatalf("Content-Type %q", ct)
	}
	ev := logged(t, e, got.Message.ID)
	if ev.Type != got.Message.Type || !jsonEqual(ev.Data, got.Message.Data) {
		t.Fatalf("delivered %s %s, logged %s %s", got.Message.Type, got.Message.Data, ev.Type, ev.Data)
	}
	if got.Message.Timestamp != event.FormatTime(ev.CreatedAt) {
		t.Fatalf("timestamp %q, event created %s", got.Message.Timestamp, event.FormatTime(ev.CreatedAt))
	}
	time.Sleep(300 * time.Millisecond)
	if n := len(txs.Requests(event.AgentRegistered)); n != 0 {
		t.Fatalf("endpoint filtering transaction.completed got %d agent.registered deliveries", n)
	}
	if n := len(all.Requests(event.AgentRegistered)); n != 1 {
		t.Fatalf("got %d deliveries of one event, want 1", n)
	}
}

func jsonEqual(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	ja, _ := json.Marshal(x)
	jb, _ := json.Marshal(y)
	return bytes.Equal(ja, jb)
}

// endpoint reads an endpoint through REST.
func endpoint(t *testing.T, e *webhooktest.Env, id string) (active bool, failures int) {
	t.Helper()
	r := e.Do(e.Key, http.MethodGet, "/webhooks/"+id, nil)
	var w struct {
		Active              bool `json:"active"`
		ConsecutiveFailures int  `json:"consecutive_failures"`
	}
	r.JSON(t, &w)
	return w.Active, w.ConsecutiveFailures
}

type deliveryRecord struct {
	EventID    string  `json:"event_id"`
	Attempt    int     `json:"attempt"`
	Success    bool    `json:"success"`
	StatusCode *int    `json:"status_code"`
	Error      *string `json:"error"`
	Response   *string `json:"response_body"`
}

func deliveries(t *testing.T, e *webhooktest.Env, id string) []deliveryRecord {
	t.Helper()
	var page struct{ Data []deliveryRecord }
	e.Do(e.Key, http.MethodGet, "/webhooks/"+id+"/deliveries?limit=200", nil).JSON(t, &page)
	return page.Data
}

// eventually polls cond until it holds or the wait is over.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(wait)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestRetriesKeepTheWebhookIDAndCountFailures(t *testing.T) {
	t.Parallel()
	e := webhooktest.NewEnv(t, webhooktest.Options{Schedule: "50ms,100ms,100ms"})
	rcv := webhooktest.New(t)
	whID, secret := e.Register(rcv.URL(), event.AgentRegistered)
	var n int
	rcv.Answer(func(webhooktest.Request) webhooktest.Answer {
		n++
		switch n {
		case 1:
			return webhooktest.Answer{Status: 500, Body: "boom"}
		case 2:
			return webhooktest.Answer{Status: 302, Header: map[string]string{"Location": "https://10.0.0.1/"}}
		}
		return webhooktest.Answer{Status: 200, Body: "ok"}
	})
	e.Start(delivery.Config{})
	e.RegisterAgent("a1")
	got := rcv.Wait(t, 3, wait, event.AgentRegistered)
	for _, q := range got {
		webhooktest.Verify(t, q, secret)
		if q.Header.Get("webhook-id") != got[0].Message.ID {
			t.Fatalf("attempt carried webhook-id %q, first %q", q.Header.Get("webhook-id"), got[0].Message.ID)
		}
	}
	if gap := got[1].At.Sub(got[0].At); gap < 40*time.Millisecond {
		t.Fatalf("second attempt %s after the first, want the schedule's ~50ms", gap)
	}
	var recs []deliveryRecord
	eventually(t, "three recorded attempts", func() bool { recs = deliveries(t, e, whID); return len(recs) == 3 })
	for i, want := range []struct {
		attempt int
		status  int
		success bool
	}{{3, 200, true}, {2, 302, false}, {1, 500, false}} {
		r := recs[i]
		if r.Attempt != want.attempt || r.StatusCode == nil || *r.StatusCode != want.status || r.Success != want.success || r.EventID != got[0].Message.ID {
			t.Fatalf("record %d = %+v, want attempt %d status %d success %v", i, r, want.attempt, want.status, want.success)
		}
	}
	if *recs[2].Response != "boom" || recs[2].Error == nil {
		t.Fatalf("first attempt recorded body %q error %v", *recs[2].Response, recs[2].Error)
	}
	if active, failures := endpoint(t, e, whID); !active || failures != 0 {
		t.Fatalf("after a success: active %v, consecutive_failures %d; want true, 0", active, failures)
	}
	time.Sleep(300 * time.Millisecond)
	if len(rcv.Requests(event.AgentRegistered)) != 3 {
		t.Fatal("delivered again after a success")
	}
}

func TestDisablesAfterConsecutiveFailuresAndCatchesUpWhenReactivated(t *testing.T) {
	t.Parallel()
	e := webhooktest.NewEnv(t, webhooktest.Options{Schedule: "20ms,20ms,20ms,20ms,20ms", DisableAfter: 3})
	rcv := webhooktest.New(t)
	whID, secret := e.Register(rcv.URL(), event.AgentRegistered)
	rcv.Answer(func(webhooktest.Request) webhooktest.Answer { return webhooktest.Answer{Status: 503} })
	e.Start(delivery.Config{})
	first := e.RegisterAgent("a1")
	eventually(t, "the endpoint disabled", func() bool { active, _ := endpoint(t, e, whID); return !active })
	if _, failures := endpoint(t, e, whID); failures != 3 {
		t.Fatalf("consecutive_failures %d, want 3", failures)
	}
	var disabled event.Event
	eventually(t, "webhook.disabled in the log", func() bool {
		evs, _ := e.DB.ReadOrgEvents(context.Background(), e.OrgID, event.Position{}, 100)
		for _, ev := range evs {
			if ev.Type == event.WebhookDisabled {
				disabled = ev
				return true
			}
		}
		return false
	})
	var data struct {
		WebhookID           string `json:"webhook_id"`
		ConsecutiveFailures int    `json:"consecutive_failures"`
	}
	_ = json.Unmarshal(disabled.Data, &data)
	if data.WebhookID != whID || data.ConsecutiveFailures != 3 {
		t.Fatalf("webhook.disabled data %s", disabled.Data)
	}
	time.Sleep(300 * time.Millisecond) // pending attempts would have run by now
	if n := len(rcv.Requests(event.AgentRegistered)); n != 3 {
		t.Fatalf("%d attempts; want 3, none after disabling", n)
	}
	second := e.RegisterAgent("a2") // while disabled
	time.Sleep(300 * time.Millisecond)
	if n := len(rcv.Requests(event.AgentRegistered)); n != 3 {
		t.Fatalf("a disabled endpoint got a delivery (%d attempts)", n)
	}

	rcv.Answer(func(webhooktest.Request) webhooktest.Answer { return webhooktest.Answer{Status: 204} })
	r := e.Do(e.Key, http.MethodPatch, "/webhooks/"+whID, map[string]any{"active": true})
	if r.Status != http.StatusOK {
		t.Fatalf("re-activate: %d %s", r.Status, r.Body)
	}
	if active, failures := endpoint(t, e, whID); !active || failures != 0 {
		t.Fatalf("re-activated: active %v, consecutive_failures %d", active, failures)
	}
	ok := map[string]bool{}
	eventID := map[string]string{} // agent -> its agent.registered event
	eventually(t, "both missed events delivered", func() bool {
		for _, q := range rcv.Requests(event.AgentRegistered)[3:] {
			webhooktest.Verify(t, q, secret)
			var d struct {
				ID string `json:"id"`
			}
			_ = json.Unmarshal(q.Message.Data, &d)
			ok[d.ID], eventID[d.ID] = true, q.Message.ID
		}
		return ok[first] && ok[second]
	})
	// The catch-up numbers each attempt past its event's earlier ones: the
	// first event's three failures before it, none for the second's.
	attempts := map[string][]int{}
	eventually(t, "the catch-up recorded", func() bool {
		clear(attempts)
		for _, r := range deliveries(t, e, whID) {
			attempts[r.EventID] = append(attempts[r.EventID], r.Attempt)
		}
		return len(attempts[eventID[first]]) == 4 && len(attempts[eventID[second]]) == 1
	})
	if got := attempts[eventID[first]]; !slices.Equal(got, []int{4, 3, 2, 1}) {
		t.Fatalf("the first event's attempts, newest first: %v, want [4 3 2 1]", got)
	}
	if got := attempts[eventID[second]]; got[0] != 1 {
		t.Fatalf("the second event's attempt: %v, want [1]", got)
	}
}

func TestGoneDisablesAtOnce(t *testing.T) {
	t.Parallel()
	e := webhooktest.NewEnv(t, webhooktest.Options{Schedule: "20ms,20ms,20ms"})
	rcv := webhooktest.New(t)
	whID, _ := e.Register(rcv.URL(), "*")
	rcv.Answer(func(webhooktest.Request) webhooktest.Answer { return webhooktest.Answer{Status: http.StatusGone} })
	e.Start(delivery.Config{})
	e.RegisterAgent("a1")
	eventually(t, "the endpoint disabled", func() bool { active, _ := endpoint(t, e, whID); return !active })
	time.Sleep(200 * time.Millisecond)
	if n := len(rcv.Requests(event.AgentRegistered)); n != 1 {
		t.Fatalf("%d attempts after 410, want 1", n)
	}
}

func TestRotationSignsUnderBothSecrets(t *testing.T) {
	t.Parallel()
	e := webhooktest.NewEnv(t, webhooktest.Options{})
	rcv := webhooktest.New(t)
	whID, old := e.Register(rcv.URL(), event.AgentRegistered)
	r := e.Do(e.Key, http.MethodPost, "/webhooks/"+whID+"/secret/rotate", nil)
	var w struct{ Secret string }
	r.JSON(t, &w)
	if r.Status != http.StatusOK || w.Secret == "" || w.Secret == old {
		t.Fatalf("rotate: %d %s", r.Status, r.Body)
	}
	e.Start(delivery.Config{})
	e.RegisterAgent("a1")
	q := rcv.Wait(t, 1, wait, event.AgentRegistered)[0]
	if sigs := strings.Fields(q.Header.Get("webhook-signature")); len(sigs) != 2 {
		t.Fatalf("webhook-signature %q: want two signatures", q.Header.Get("webhook-signature"))
	}
	webhooktest.Verify(t, q, w.Secret)
	webhooktest.Verify(t, q, old)
	if webhooktest.Check(q, "whsec_"+base64.StdEncoding.EncodeToString(make([]byte, 32))) == nil {
		t.Fatal("a delivery verifies under an unrelated secret")
	}
}

// eventIDs returns the distinct event ids delivered and how often each came.
func eventIDs(reqs []webhooktest.Request) map[string]int {
	out := map[string]int{}
	for _, q := range reqs {
		out[q.Header.Get("webhook-id")]++
	}
	return out
}

func TestKilledProcessLosesNoDelivery(t *testing.T) {
	t.Parallel()
	e := webhooktest.NewEnv(t, webhooktest.Options{})
	rcv := webhooktest.New(t)
	_, _ = e.Register(rcv.URL(), event.AgentRegistered)
	rcv.Answer(func(webhooktest.Request) webhooktest.Answer {
		return webhooktest.Answer{Status: 204, Delay: 100 * time.Millisecond}
	})
	const n = 12
	for i := range n {
		e.RegisterAgent("a" + string(rune('a'+i))) // committed while no process delivers
	}
	a, stopA := e.Start(delivery.Config{Workers: 2})
	rcv.Wait(t, 2, wait, event.AgentRegistered)
	a.Kill() // running attempts are cut off mid-request
	stopA()
	killedAt := len(eventIDs(rcv.Requests(event.AgentRegistered)))
	if killedAt >= n {
		t.Fatalf("all %d delivered before the kill: the test proves nothing", n)
	}
	e.Start(delivery.Config{Workers: 4})
	eventually(t, "every event delivered after the restart", func() bool {
		return len(eventIDs(rcv.Requests(event.AgentRegistered))) == n
	})
	t.Logf("%d of %d events delivered before the kill, the rest after the restart", killedAt, n)
}

func TestTwoProcessesDeliverEachEventOnce(t *testing.T) {
	t.Parallel()
	e := webhooktest.NewEnv(t, webhooktest.Options{})
	rcv := webhooktest.New(t)
	e.Register(rcv.URL(), event.AgentRegistered)
	e.Start(delivery.Config{Workers: 4})
	e.Start(delivery.Config{Workers: 4})
	const n = 20
	for i := range n {
		e.RegisterAgent("b" + string(rune('a'+i)))
	}
	eventually(t, "every event delivered", func() bool { return len(eventIDs(rcv.Requests(event.AgentRegistered))) == n })
	time.Sleep(500 * time.Millisecond)
	for id, c := range eventIDs(rcv.Requests(event.AgentRegistered)) {
		if c != 1 {
			t.Fatalf("event %s delivered %d times by two processes, want once", id, c)
		}
	}
}

func TestHungEndpointDoesNotDelayAnother(t *testing.T) {
	t.Parallel()
	// Each attempt at the hung endpoint holds a worker for 20 s. Without a
	// per-endpoint limit its 10 jobs would take all 4 workers and the fast
	// endpoint would wait at least that long.
	e := webhooktest.NewEnv(t, webhooktest.Options{Timeout: 20 * time.Second})
	hung, fast := webhooktest.New(t), webhooktest.New(t)
	e.Register(hung.URL(), event.AgentRegistered)
	hung.Answer(func(webhooktest.Request) webhooktest.Answer {
		return webhooktest.Answer{Status: 200, Delay: 30 * time.Second}
	})
	e.Register(fast.URL(), event.AgentRegistered)
	const n = 10
	for i := range n {
		e.RegisterAgent("c" + string(rune('a'+i)))
	}
	start := time.Now()
	r, stop := e.Start(delivery.Config{Workers: 4, PerEndpoint: 2, JobTimeout: 45 * time.Second})
	defer func() { r.Kill(); stop() }()
	fast.Wait(t, n, 15*time.Second, event.AgentRegistered)
	t.Logf("the fast endpoint got %d events in %s beside a hung one", n, time.Since(start))
	if got := len(hung.Requests(event.AgentRegistered)); got > 2 {
		t.Fatalf("the hung endpoint holds %d requests in flight, want at most 2", got)
	}
}

func TestRedeliverPagesAndPrunes(t *testing.T) {
	t.Parallel()
	e := webhooktest.NewEnv(t, webhooktest.Options{})
	rcv := webhooktest.New(t)
	whID, secret := e.Register(rcv.URL(), event.AgentRegistered)
	_, stop := e.Start(delivery.Config{})
	e.RegisterAgent("r1")
	first := rcv.Wait(t, 1, wait, event.AgentRegistered)[0]
	// Attempts are numbered in the order their records commit: a redelivery
	// recorded before the first attempt's record would be attempt 1
	// (docs/webhooks.md, Record). Redeliver once the first is recorded.
	eventually(t, "the first attempt recorded", func() bool { return len(deliveries(t, e, whID)) == 1 })
	r := e.Do(e.Key, http.MethodPost, "/webhooks/"+whID+"/redeliver", map[string]any{"event_id": first.Message.ID})
	if r.Status != http.StatusAccepted {
		t.Fatalf("redeliver: %d %s", r.Status, r.Body)
	}
	again := rcv.Wait(t, 2, wait, event.AgentRegistered)[1]
	webhooktest.Verify(t, again, secret)
	if again.Header.Get("webhook-id") != first.Message.ID || !bytes.Equal(again.Message.Data, first.Message.Data) {
		t.Fatalf("redelivered %s %s, first %s %s", again.Header.Get("webhook-id"), again.Message.Data, first.Message.ID, first.Message.Data)
	}

	var page1, page2 struct {
		Data       []deliveryRecord
		NextCursor *string `json:"next_cursor"`
	}
	eventually(t, "two recorded attempts", func() bool { return len(deliveries(t, e, whID)) == 2 })
	e.Do(e.Key, http.MethodGet, "/webhooks/"+whID+"/deliveries?limit=1", nil).JSON(t, &page1)
	if len(page1.Data) != 1 || page1.Data[0].Attempt != 2 || page1.NextCursor == nil {
		t.Fatalf("first page %+v", page1)
	}
	e.Do(e.Key, http.MethodGet, "/webhooks/"+whID+"/deliveries?limit=1&after="+*page1.NextCursor, nil).JSON(t, &page2)
	if len(page2.Data) != 1 || page2.Data[0].Attempt != 1 || page2.NextCursor != nil {
		t.Fatalf("second page %+v", page2)
	}

	stop() // nothing else may read the clock while the test moves it
	now := e.DB.Now
	e.DB.Now = func() time.Time { return now().Add(webhook.DefaultRetention + time.Hour) }
	n, err := e.Webhooks.PruneDeliveries(context.Background())
	e.DB.Now = now
	if err != nil || n != 2 || len(deliveries(t, e, whID)) != 0 {
		t.Fatalf("pruned %d (%v), %d left; want 2 and none", n, err, len(deliveries(t, e, whID)))
	}
}

// A deleted endpoint's attempt records go with it, and another endpoint's stay.
func TestDeleteRemovesRecords(t *testing.T) {
	t.Parallel()
	e := webhooktest.NewEnv(t, webhooktest.Options{})
	rcv := webhooktest.New(t)
	gone, _ := e.Register(rcv.URL()+"/gone", event.AgentRegistered)
	kept, _ := e.Register(rcv.URL()+"/kept", event.AgentRegistered)
	e.Start(delivery.Config{})
	e.RegisterAgent("d1")
	eventually(t, "both endpoints' attempts recorded", func() bool {
		return len(deliveries(t, e, gone)) == 1 && len(deliveries(t, e, kept)) == 1
	})
	if r := e.Do(e.Key, http.MethodDelete, "/webhooks/"+gone, nil); r.Status != http.StatusNoContent {
		t.Fatalf("delete: %d %s", r.Status, r.Body)
	}
	conn, err := pgx.Connect(context.Background(), e.DBURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	count := func(whID string) (n int) {
		if err := conn.QueryRow(context.Background(), `SELECT coalesce(sum(n), 0) FROM webhook_attempt_batches WHERE webhook_id = $1`, whID).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if g, k := count(gone), count(kept); g != 0 || k != 1 {
		t.Fatalf("after the deletion %d records of the deleted endpoint and %d of the other; want 0 and 1", g, k)
	}
}

func TestEndpointCap(t *testing.T) {
	t.Parallel()
	e := webhooktest.NewEnv(t, webhooktest.Options{})
	rcv := webhooktest.New(t)
	for i := range webhook.MaxEndpoints {
		e.Register(rcv.URL()+"/"+strconv.Itoa(i), "*")
	}
	r := e.Do(e.Key, http.MethodPost, "/webhooks", map[string]any{"url": rcv.URL(), "events": []string{"*"}})
	if r.Status != http.StatusUnprocessableEntity || !strings.Contains(string(r.Body), "at most 50") {
		t.Fatalf("51st endpoint: %d %s", r.Status, r.Body)
	}
	if other := e.NewKey(); e.Do(other, http.MethodPost, "/webhooks", map[string]any{"url": rcv.URL(), "events": []string{"*"}}).Status != http.StatusCreated {
		t.Fatal("the cap is not per organization")
	}
}

func TestBatchRetrySendsOnlyWhatFailed(t *testing.T) {
	t.Parallel()
	e := webhooktest.NewEnv(t, webhooktest.Options{Schedule: "50ms,50ms,50ms"})
	rcv := webhooktest.New(t)
	whID, secret := e.Register(rcv.URL(), event.AgentRegistered)
	const n = 6
	for i := range n {
		e.RegisterAgent("p" + string(rune('a'+i))) // committed before delivery runs: one job carries them all
	}
	// The first attempt at every other event fails, each in its own way.
	var mu sync.Mutex
	seen := map[string]int{}
	failing := []webhooktest.Answer{{Status: 500, Body: "boom"}, {Status: 429, Header: map[string]string{"Retry-After": "0"}}, {Status: 302}}
	rcv.Answer(func(q webhooktest.Request) webhooktest.Answer {
		mu.Lock()
		defer mu.Unlock()
		seen[q.Message.ID]++
		if i := len(seen) - 1; seen[q.Message.ID] == 1 && i%2 == 1 {
			return failing[i/2]
		}
		return webhooktest.Answer{Status: 200}
	})
	e.Start(delivery.Config{PerEndpoint: 2})
	got := rcv.Wait(t, n+n/2, wait, event.AgentRegistered)
	for _, q := range got {
		webhooktest.Verify(t, q, secret)
		if q.Header.Get("webhook-id") != q.Message.ID {
			t.Fatalf("webhook-id %q for event %q", q.Header.Get("webhook-id"), q.Message.ID)
		}
	}
	var recs []deliveryRecord
	eventually(t, "every attempt recorded", func() bool { recs = deliveries(t, e, whID); return len(recs) == n+n/2 })
	time.Sleep(300 * time.Millisecond)
	counts := eventIDs(rcv.Requests(event.AgentRegistered))
	if len(counts) != n {
		t.Fatalf("%d distinct events delivered, want %d", len(counts), n)
	}
	twice := 0
	for id, c := range counts {
		switch c {
		case 1:
		case 2:
			twice++
		default:
			t.Fatalf("event %s sent %d times; the retry must send only what failed", id, c)
		}
	}
	if twice != n/2 {
		t.Fatalf("%d events sent twice, want %d", twice, n/2)
	}
	attempts := map[string][]deliveryRecord{}
	for _, r := range recs {
		attempts[r.EventID] = append(attempts[r.EventID], r)
	}
	for id, rs := range attempts {
		if last := rs[0]; !last.Success || last.Attempt != len(rs) || counts[id] != len(rs) {
			t.Fatalf("event %s: records %+v, %d requests", id, rs, counts[id])
		}
		if len(rs) == 2 && (rs[1].Success || rs[1].Attempt != 1 || rs[1].StatusCode == nil) {
			t.Fatalf("event %s: first attempt recorded %+v", id, rs[1])
		}
	}
	if active, failures := endpoint(t, e, whID); !active || failures != 0 {
		t.Fatalf("active %v, consecutive_failures %d; want true, 0", active, failures)
	}
}

// TestIdleDispatcherPassesOnThePollOnly: with no active endpoint anywhere,
// commits do not make the dispatcher read the log (its cursor stays where
// the start-up pass left it); an endpoint registered later gets the events
// that happen once it exists, none from before.
func TestIdleDispatcherPassesOnThePollOnly(t *testing.T) {
	t.Parallel()
	e := webhooktest.NewEnv(t, webhooktest.Options{})
	e.RegisterAgent("before-start")
	r, stop := e.Start(delivery.Config{Poll: time.Hour})
	conn, err := pgx.Connect(context.Background(), e.DBURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	cursor := func() string {
		var c string
		if err := conn.QueryRow(context.Background(), `SELECT xid::text || '/' || seq FROM webhook_dispatch_cursor`).Scan(&c); err != nil {
			t.Fatal(err)
		}
		return c
	}
	deadline := time.Now().Add(wait)
	for cursor() == "0/0" { // the start-up pass
		if time.Now().After(deadline) {
			t.Fatal("the start-up pass never moved the cursor")
		}
		time.Sleep(10 * time.Millisecond)
	}
	started := cursor()
	for i := range 5 {
		e.RegisterAgent("idle-" + strconv.Itoa(i))
		r.Wake()
		time.Sleep(50 * time.Millisecond)
	}
	if got := cursor(); got != started {
		t.Fatalf("with no active endpoint, commits moved the dispatch cursor from %s to %s", started, got)
	}
	stop()

	rcv := webhooktest.New(t)
	e.Register(rcv.URL(), event.AgentRegistered)
	e.Start(delivery.Config{Poll: 100 * time.Millisecond})
	id := e.RegisterAgent("after")
	rcv.Wait(t, 1, wait, event.AgentRegistered)
	time.Sleep(300 * time.Millisecond) // room for a wrong delivery of an older event
	if got := rcv.Requests(event.AgentRegistered); len(got) != 1 || !strings.Contains(string(got[0].Body), id) {
		t.Fatalf("want only the registration of %s, got %d deliveries", id, len(got))
	}
}

// An endpoint's answer is recorded as it came, whatever bytes it holds
// (the records reach Postgres through COPY's text format, which gives tabs,
// line ends and backslashes a meaning): only NULs and invalid UTF-8, which
// a text column cannot hold, are dropped.
func TestRecordsKeepAnyResponseBody(t *testing.T) {
	t.Parallel()
	e := webhooktest.NewEnv(t, webhooktest.Options{Schedule: "1h"})
	rcv := webhooktest.New(t)
	whID, _ := e.Register(rcv.URL(), event.AgentRegistered)
	const body = "a\tb\nc\r\nd\\e \\N \\. é€\x00\xff end"
	rcv.Answer(func(webhooktest.Request) webhooktest.Answer { return webhooktest.Answer{Status: 500, Body: body} })
	e.Start(delivery.Config{})
	e.RegisterAgent("a1")
	var recs []deliveryRecord
	eventually(t, "a recorded attempt", func() bool { recs = deliveries(t, e, whID); return len(recs) == 1 })
	want := "a\tb\nc\r\nd\\e \\N \\. é€ end"
	if r := recs[0]; r.Response == nil || *r.Response != want || r.Error == nil || r.Success {
		t.Fatalf("recorded %+v (response %q), want the failed attempt with response %q", r, deref(r.Response), want)
	}
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}

// TestRecordsAttemptsWhileTheJobSends: a job records its attempts as they
// end, a chunk at a time, not only when all its sends are over, so its
// records show while an endpoint that stopped answering holds the rest of
// the job.
func TestRecordsAttemptsWhileTheJobSends(t *testing.T) {
	t.Parallel()
	e := webhooktest.NewEnv(t, webhooktest.Options{Timeout: 20 * time.Second})
	rcv := webhooktest.New(t)
	const answered, events = 120, 150
	var mu sync.Mutex
	n := 0
	rcv.Answer(func(webhooktest.Request) webhooktest.Answer {
		mu.Lock()
		defer mu.Unlock()
		if n++; n > answered {
			return webhooktest.Answer{Status: 204, Delay: 30 * time.Second}
		}
		return webhooktest.Answer{Status: 204}
	})
	whID, _ := e.Register(rcv.URL(), event.AgentRegistered)
	for i := range events { // before the runner starts: one job carries them all
		e.RegisterAgent(fmt.Sprintf("chunk-%d", i))
	}
	r, stop := e.Start(delivery.Config{JobTimeout: time.Minute})
	defer func() { r.Kill(); stop() }()
	rcv.Wait(t, answered+1, wait, event.AgentRegistered)
	deadline := time.Now().Add(wait)
	for len(deliveries(t, e, whID)) < 100 {
		if time.Now().After(deadline) {
			t.Fatalf("%d records after %d requests, want the first chunk's 100 while the job still sends",
				len(deliveries(t, e, whID)), len(rcv.Requests(event.AgentRegistered)))
		}
		time.Sleep(20 * time.Millisecond)
	}
	for _, d := range deliveries(t, e, whID) {
		if !d.Success || d.Attempt != 1 {
			t.Fatalf("record %+v, want a first, successful attempt", d)
		}
	}
}
