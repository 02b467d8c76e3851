package delivery_test

import (
	"context"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/agenttrust/service/event"
	"github.com/agenttrust/service/internal/webhooktest"
	"github.com/agenttrust/service/webhook/delivery"
)

// An endpoint receives every matching event whose transaction commits after
// its registration commits, and none committed before, whatever the events'
// created_at says: one committed before with a created_at an hour ahead is
// not delivered, nor one written before the registration began whose
// transaction commits while the registration waits for it; one whose
// transaction began before the registration and committed after it is.
func TestEndpointReceivesTheEventsCommittedAfterItsRegistration(t *testing.T) {
	t.Parallel()
	e := webhooktest.NewEnv(t, webhooktest.Options{})
	e.Start(delivery.Config{})
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, e.DBURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	const insert = `WITH e AS (INSERT INTO events (id, type, org_ids, data, created_at)
		VALUES ($1, 'agent.updated', ARRAY[$2], '{}', now() + $3::interval) RETURNING seq)
		INSERT INTO event_orgs (org_id, event_seq) SELECT $2, seq FROM e`
	if _, err := conn.Exec(ctx, insert, "evt_before", e.OrgID, "1 hour"); err != nil {
		t.Fatal(err)
	}
	// A transaction that begins before the registration (its now(), the
	// event's created_at, is earlier) and commits after it.
	late, err := pgx.Connect(ctx, e.DBURL)
	if err != nil {
		t.Fatal(err)
	}
	defer late.Close(ctx)
	tx, err := late.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, `SELECT pg_current_xact_id()`); err != nil {
		t.Fatal(err)
	}
	// A transaction that has written its event when the registration
	// starts: the registration waits for it, so it commits first.
	early, err := pgx.Connect(ctx, e.DBURL)
	if err != nil {
		t.Fatal(err)
	}
	defer early.Close(ctx)
	etx, err := early.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := etx.Exec(ctx, insert, "evt_written_before", e.OrgID, "1 hour"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(10 * time.Millisecond)
	rcv := webhooktest.New(t)
	registered := make(chan *webhooktest.Response, 1)
	go func() {
		registered <- e.Do(e.Key, http.MethodPost, "/webhooks", map[string]any{"url": rcv.URL(), "events": []string{event.AgentUpdated}})
	}()
	select {
	case r := <-registered:
		t.Fatalf("the registration returned (%d) while a transaction that wrote an event was running", r.Status)
	case <-time.After(300 * time.Millisecond):
	}
	if err := etx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if r := <-registered; r.Status != http.StatusCreated {
		t.Fatalf("register: %d %s", r.Status, r.Body)
	}
	if _, err := tx.Exec(ctx, insert, "evt_began_before", e.OrgID, "0"); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, insert, "evt_after", e.OrgID, "0"); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `SELECT pg_notify('att_events', '0')`); err != nil {
		t.Fatal(err)
	}
	rcv.Wait(t, 2, wait, event.AgentUpdated)
	time.Sleep(300 * time.Millisecond) // an event committed before would be in the same pass
	var got []string
	for _, r := range rcv.Requests(event.AgentUpdated) {
		got = append(got, r.Message.ID)
	}
	slices.Sort(got)
	if want := []string{"evt_after", "evt_began_before"}; !slices.Equal(got, want) {
		t.Fatalf("delivered %v, want %v", got, want)
	}
}
