package db_test

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/agenttrust/service/db"
	"github.com/agenttrust/service/db/dbtest"
	"github.com/agenttrust/service/event"
	"github.com/agenttrust/service/live"
)

// The live hub's process loses every database connection (its pool's and
// its listener's, as in a Postgres restart) while an older transaction holds
// an event with a lower seq open behind younger ones already committed; the
// held event commits once the hub reads again. The subscriber gets every
// event exactly once, in log order.
func TestLiveHubAcrossDroppedConnectionsWithAHeldEvent(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	d, url := dbtest.NewWithURL(t)
	const app = "live-hub-reader"
	sep := "?"
	if strings.Contains(url, "?") {
		sep = "&"
	}
	reader, err := db.Open(ctx, url+sep+"application_name="+app)
	if err != nil {
		t.Fatal(err)
	}
	hub := live.NewHub(reader, live.Options{Poll: 50 * time.Millisecond})
	ran := make(chan struct{})
	go func() { _ = hub.Run(ctx); close(ran) }()
	t.Cleanup(func() { cancel(); <-ran; reader.Close() })

	sub, err := hub.Subscribe(ctx, live.Request{OrgID: "org_a"})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var got []string
	go func() {
		for ev := range sub.C {
			mu.Lock()
			got = append(got, ev.ID)
			mu.Unlock()
		}
	}()
	received := func(n int) []string {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for {
			mu.Lock()
			out := slices.Clone(got)
			mu.Unlock()
			if len(out) >= n || time.Now().After(deadline) {
				time.Sleep(100 * time.Millisecond) // a repeat would come right after
				mu.Lock()
				defer mu.Unlock()
				return slices.Clone(got)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	commit := func() {
		t.Helper()
		tx, err := d.BeginEventTx(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Append(event.AgentUpdated, "org_a"); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
	}

	commit()
	if n := len(received(1)); n != 1 {
		t.Fatalf("setup: the subscriber received %d events, want 1", n)
	}
	held, err := d.BeginEventTx(ctx) // the oldest xid, and the lowest seq of what follows
	if err != nil {
		t.Fatal(err)
	}
	if _, err := held.Append(event.AgentUpdated, "org_a"); err != nil {
		t.Fatal(err)
	}
	commit()
	commit()
	time.Sleep(200 * time.Millisecond) // the hub reads and finds them held back
	if n := len(received(1)); n != 1 {
		t.Fatalf("events behind a running transaction were sent: %d events, want 1", n)
	}

	// Every connection of the hub's process goes, as in a restart.
	admin, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	var cut int
	if err := admin.QueryRow(ctx, `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
		WHERE datname = current_database() AND application_name IN ($1, 'att-listener')`, app).Scan(&cut); err != nil || cut == 0 {
		t.Fatalf("terminate the hub's connections: %d cut, %v", cut, err)
	}
	commit()
	time.Sleep(200 * time.Millisecond) // the hub's reads fail and reconnect
	if err := held.Commit(); err != nil {
		t.Fatal(err)
	}
	commit()

	// Readers see an event once every older transaction of the cluster has
	// ended (other tests' included): wait for the whole log.
	var log []event.Event
	deadline := time.Now().Add(30 * time.Second)
	for len(log) < 6 && time.Now().Before(deadline) {
		if log, err = d.ReadOrgEvents(ctx, "org_a", event.Position{}, 100); err != nil {
			t.Fatal(err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if len(log) != 6 {
		t.Fatalf("setup: the log holds %d events, want 6", len(log))
	}
	if want, got := ids(log), received(len(log)); !slices.Equal(got, want) {
		t.Fatalf("the subscriber received %v, the log is %v", got, want)
	}
}
