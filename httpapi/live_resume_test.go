package httpapi_test

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/agenttrust/service/event"
	"github.com/agenttrust/service/id"
)

// delayedEvent commits one event for orgID in a transaction that is held
// open for hold: with early, the event row (and its seq) is written at once
// and committed late; otherwise the transaction takes its id at once and
// writes the event just before committing. Both commit out of order with
// transactions that started later.
func delayedEvent(ctx context.Context, conn *sql.DB, orgID string, hold time.Duration, early bool) error {
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback() //nolint:errcheck
	if _, err := tx.ExecContext(ctx, `SELECT pg_current_xact_id()`); err != nil {
		return err
	}
	write := func() error {
		var seq int64
		err := tx.QueryRowContext(ctx, `INSERT INTO events (id, type, org_ids, data, created_at)
			VALUES ($1, 'agent.updated', ARRAY[$2], '{"delayed":true}', now()) RETURNING seq`, id.New(id.Event), orgID).Scan(&seq)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO event_orgs (org_id, event_seq) VALUES ($1, $2)`, orgID, seq); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `SELECT pg_notify('att_events', $1)`, fmt.Sprint(seq))
		return err
	}
	if early {
		if err := write(); err != nil {
			return err
		}
	}
	time.Sleep(hold)
	if !early {
		if err := write(); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// A subscriber from the start and one resuming `after` an event while
// writers commit concurrently, some of them deliberately late and out of
// order, both receive exactly the log: no gap, no duplicate, in log order.
func TestLiveEventsResumeWithConcurrentOutOfOrderWriters(t *testing.T) {
	t.Parallel()
	b := setupLive(t)
	ctx := t.Context()
	conn, err := sql.Open("pgx", b.dbURL)
	must(t, err)
	defer conn.Close()

	first, _, err := dialWS(t, b.ts, transportWS)
	must(t, err)
	first.init(map[string]any{"Authorization": "Bearer " + b.key})
	first.subscribe("all", eventsSubscription, nil)
	waitSubscribers(t, b, 1)

	const writers, perWriter, delayed = 4, 10, 6
	var wg sync.WaitGroup
	errs := make(chan error, writers+delayed)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range perWriter {
				b.registerAgent(b.ts, b.key, fmt.Sprintf("w%d-%d", w, i))
			}
		}()
	}
	for i := range delayed {
		wg.Add(1)
		go func() {
			defer wg.Done()
			time.Sleep(time.Duration(i) * 40 * time.Millisecond)
			errs <- delayedEvent(ctx, conn, b.orgID, time.Duration(200+100*i)*time.Millisecond, i%2 == 0)
		}()
	}

	// Resume after the third event while the writers are still running.
	head := first.events("all", 3, eventWait)
	resumed, _, err := dialWS(t, b.ts, legacyWS, "Authorization", "Bearer "+b.key)
	must(t, err)
	resumed.init(nil)
	resumed.subscribe("r", eventsSubscription, map[string]any{"after": head[2].ID})
	sse := openSSE(t, b.ts, b.key, eventsSubscription, map[string]any{"after": head[0].ID})

	wg.Wait()
	close(errs)
	for err := range errs {
		must(t, err)
	}
	total := writers*perWriter + delayed
	var log []event.Event
	deadline := time.Now().Add(eventWait)
	for len(log) < total && time.Now().Before(deadline) {
		log, err = b.db.ReadOrgEvents(ctx, b.orgID, event.Position{}, 1000)
		must(t, err)
		time.Sleep(20 * time.Millisecond)
	}
	if len(log) != total {
		t.Fatalf("the log holds %d events, want %d", len(log), total)
	}
	want := make([]string, total)
	for i, e := range log {
		want[i] = e.ID
	}
	if got := append(ids(head), ids(first.events("all", total-3, eventWait))...); !slices.Equal(got, want) {
		t.Fatalf("live subscriber got\n%v\nwant the log\n%v", got, want)
	}
	if got := ids(resumed.events("r", total-3, eventWait)); !slices.Equal(got, want[3:]) {
		t.Fatalf("resumed subscriber got\n%v\nwant\n%v", got, want[3:])
	}
	var viaSSE []string
	for range total - 1 {
		viaSSE = append(viaSSE, sse.event(t, eventWait).ID)
	}
	if !slices.Equal(viaSSE, want[1:]) {
		t.Fatalf("SSE resumed subscriber got\n%v\nwant\n%v", viaSSE, want[1:])
	}
	first.quiet(300 * time.Millisecond)
	resumed.quiet(10 * time.Millisecond)
	// The log order is not seq order: the run really had events whose seq
	// was taken after others' but that sort (and commit) differently.
	if slices.IsSortedFunc(log, func(a, b event.Event) int { return int(a.Seq - b.Seq) }) {
		t.Fatal("setup: every event landed in seq order; the delayed transactions did not overlap the writers")
	}
}
