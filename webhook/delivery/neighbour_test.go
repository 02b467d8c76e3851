package delivery_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/agenttrust/service/event"
	"github.com/agenttrust/service/internal/webhooktest"
	"github.com/agenttrust/service/webhook/delivery"
)

// TestHungOrganizationDoesNotDelayAnother: twelve hung endpoints of one
// organization hold that organization's share of the workers and senders
// only, so another organization's deliveries arrive within a few seconds
// of their commit while every hung request is still hanging. Without a
// share per organization the hung endpoints (two requests each) would hold
// all 20 senders for the request timeout, 20 s.
func TestHungOrganizationDoesNotDelayAnother(t *testing.T) {
	t.Parallel()
	// No request to the hung endpoints ends while the test runs, however slow
	// the host (the sender's and the job's bounds are longer than it takes),
	// so every request they received is still in flight at the end.
	e := webhooktest.NewEnv(t, webhooktest.Options{Timeout: 3 * time.Minute})
	hung, quiet := webhooktest.New(t), webhooktest.New(t)
	hung.Answer(func(q webhooktest.Request) webhooktest.Answer {
		if q.Message.Type != event.AgentRegistered {
			return webhooktest.Answer{Status: 204} // the registration's verification
		}
		return webhooktest.Answer{Status: 200, Delay: 10 * time.Minute}
	})
	const endpoints, perOrg = 12, 5
	for i := range endpoints {
		e.Register(fmt.Sprintf("%s/%d", hung.URL(), i), event.AgentRegistered)
	}
	other := e.NewKey()
	e.RegisterAs(other, quiet.URL(), event.AgentRegistered)
	r, stop := e.Start(delivery.Config{Workers: 20, PerEndpoint: 2, PerOrganization: perOrg, JobTimeout: 7 * time.Minute})
	defer func() { r.Kill(); stop() }()

	// latency delivers n events of the other organization one after
	// another and returns the longest from a commit to its delivery.
	delivered := 0
	latency := func(n int) (worst time.Duration) {
		for range n {
			at := time.Now()
			e.RegisterAgentAs(other, fmt.Sprintf("quiet-%d", delivered))
			delivered++
			got := quiet.Wait(t, delivered, 10*time.Second, event.AgentRegistered)
			worst = max(worst, got[delivered-1].At.Sub(at))
		}
		return worst
	}
	alone := latency(5)
	for i := range 3 {
		e.RegisterAgent(fmt.Sprintf("noisy-%d", i)) // three events for each hung endpoint
	}
	hung.Wait(t, perOrg, wait, event.AgentRegistered)
	time.Sleep(500 * time.Millisecond) // time for more requests to start, were they allowed
	beside := latency(10)
	t.Logf("the other organization's longest commit to delivery: %s alone, %s beside %d hung endpoints", alone, beside, endpoints)
	if beside > 5*time.Second {
		t.Fatalf("beside a hung organization another's delivery took %s after its commit, want within 5 s", beside)
	}
	if got := len(hung.Requests(event.AgentRegistered)); got > perOrg {
		t.Fatalf("the hung organization holds %d requests in flight, want at most its share, %d", got, perOrg)
	}
}

// TestJobsNameTheirOrganization: every way a delivery job is queued (the
// dispatcher, a redelivery, a re-activated endpoint's backlog) names the
// endpoint's organization, which the organization's share counts by.
func TestJobsNameTheirOrganization(t *testing.T) {
	t.Parallel()
	e := webhooktest.NewEnv(t, webhooktest.Options{})
	rcv := webhooktest.New(t)
	mine, _ := e.Register(rcv.URL(), event.AgentRegistered)
	other := e.NewKey()
	theirs, _ := e.RegisterAs(other, rcv.URL(), event.AgentRegistered)
	e.RegisterAgent("mine")
	e.RegisterAgentAs(other, "theirs")
	ctx := context.Background()
	dispatched := 0 // no runner: the jobs stay queued
	eventually(t, "both events dispatched", func() bool {
		n, _, err := e.Webhooks.DispatchWebhooks(ctx, 100)
		if err != nil {
			t.Fatal(err)
		}
		dispatched += n
		return dispatched == 2
	})
	evs, err := e.DB.ReadOrgEvents(ctx, e.OrgID, event.Position{}, 10)
	if err != nil || len(evs) != 1 {
		t.Fatalf("the organization's events: %d (%v), want its agent's", len(evs), err)
	}
	ev := evs[0]
	if r := e.Do(e.Key, http.MethodPost, "/webhooks/"+mine+"/redeliver", map[string]any{"event_id": ev.ID}); r.Status != http.StatusAccepted {
		t.Fatalf("redeliver: %d %s", r.Status, r.Body)
	}
	for _, active := range []bool{false, true} {
		if r := e.Do(other, http.MethodPatch, "/webhooks/"+theirs, map[string]any{"active": active}); r.Status != http.StatusOK {
			t.Fatalf("set active %v: %d %s", active, r.Status, r.Body)
		}
	}
	orgOf := func(key, id string) string {
		t.Helper()
		var w struct {
			OrgID string `json:"org_id"`
		}
		e.Do(key, http.MethodGet, "/webhooks/"+id, nil).JSON(t, &w)
		return w.OrgID
	}
	want := map[string]string{mine: e.OrgID, theirs: orgOf(other, theirs)}
	rows, err := e.DB.Pool().Query(ctx, `SELECT args->>'webhook_id', args->>'org_id' FROM river_job ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	jobs, err := pgx.CollectRows(rows, pgx.RowToStructByPos[struct{ Webhook, Org string }])
	if err != nil {
		t.Fatal(err)
	}
	perEndpoint := map[string]int{}
	for _, j := range jobs {
		if j.Org != want[j.Webhook] || j.Org == "" {
			t.Errorf("job for %s names organization %q, want %q", j.Webhook, j.Org, want[j.Webhook])
		}
		perEndpoint[j.Webhook]++
	}
	if perEndpoint[mine] != 2 || perEndpoint[theirs] != 2 {
		t.Fatalf("queued %v, want two jobs per endpoint (dispatched, then redelivered or caught up)", perEndpoint)
	}
}
