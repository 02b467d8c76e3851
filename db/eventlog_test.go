package db_test

import (
	"context"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/agenttrust/service/db"
	"github.com/agenttrust/service/db/dbtest"
	"github.com/agenttrust/service/event"
	"github.com/agenttrust/service/eventlog"
)

// A transaction that took its id first but commits last must not be skipped
// by a reader that already passed a later seq: the case a seq cursor loses.
func TestReadEventsOutOfOrderCommit(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := dbtest.New(t)

	early, err := d.BeginEventTx(ctx) // older xid, writes later
	if err != nil {
		t.Fatal(err)
	}
	late, err := d.BeginEventTx(ctx)
	if err != nil {
		t.Fatal(err)
	}
	lateEv, err := late.Append(event.AgentRegistered, "org_a")
	if err != nil {
		t.Fatal(err)
	}
	earlyEv, err := early.Append(event.AgentRegistered, "org_a")
	if err != nil {
		t.Fatal(err)
	}
	if earlyEv.Seq < lateEv.Seq {
		t.Fatalf("setup: want the early transaction's event to take the later seq, got %d < %d", earlyEv.Seq, lateEv.Seq)
	}
	if err := late.Commit(); err != nil {
		t.Fatal(err)
	}
	got, err := d.ReadEvents(ctx, event.Position{}, 100)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 0 {
		t.Fatalf("events of a transaction younger than a running one must wait, got %d", len(got))
	}
	if err := early.Commit(); err != nil {
		t.Fatal(err)
	}
	got = readN(t, d, event.Position{}, 2)
	if len(got) != 2 || got[0].ID != earlyEv.ID || got[1].ID != lateEv.ID {
		t.Fatalf("want [early late] in xid order, got %v", ids(got))
	}

	// The other interleaving: the older transaction commits first and a
	// reader passes its position while the younger one, holding the lower
	// seq, still runs.
	first, _ := d.BeginEventTx(ctx)
	second, _ := d.BeginEventTx(ctx)
	lowSeq, _ := second.Append(event.AgentUpdated, "org_a")
	highSeq, _ := first.Append(event.AgentUpdated, "org_a")
	if err := first.Commit(); err != nil {
		t.Fatal(err)
	}
	pos := got[1].Position
	got = readN(t, d, pos, 1)
	if len(got) != 1 || got[0].ID != highSeq.ID {
		t.Fatalf("want the committed older transaction's event, got %v", ids(got))
	}
	pos = got[0].Position
	if err := second.Commit(); err != nil {
		t.Fatal(err)
	}
	got = readN(t, d, pos, 1)
	if len(got) != 1 || got[0].ID != lowSeq.ID {
		t.Fatalf("the lower seq committed late must still be read after the cursor, got %v", ids(got))
	}
}

// Many writers commit with random delays and some roll back while a tailer
// reads: it sees every committed event once, in strictly increasing position.
func TestTailerNoGapNoDuplicate(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	d := dbtest.New(t)

	var mu sync.Mutex
	seen := map[string]int{}
	var order []event.Position
	tl := eventlog.New(d, nil)
	tl.Poll = 20 * time.Millisecond
	tl.Batch = 7
	go tl.Run(ctx, event.Position{}, func(evs []event.Event) {
		mu.Lock()
		defer mu.Unlock()
		for _, e := range evs {
			seen[e.ID]++
			order = append(order, e.Position)
		}
	})

	const writers, perWriter = 8, 12
	committed := make(chan string, writers*perWriter*2)
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(w), 1))
			for range perWriter {
				tx, err := d.BeginEventTx(ctx)
				if err != nil {
					t.Error(err)
					return
				}
				time.Sleep(time.Duration(r.IntN(15)) * time.Millisecond)
				a, err1 := tx.Append(event.TransactionCompleted, "org_a", "org_b")
				b, err2 := tx.Append(event.TrustScoreChanged, "org_a")
				if err1 != nil || err2 != nil {
					t.Error(err1, err2)
					return
				}
				time.Sleep(time.Duration(r.IntN(15)) * time.Millisecond)
				if r.IntN(5) == 0 {
					tx.Rollback()
					continue
				}
				if err := tx.Commit(); err != nil {
					t.Error(err)
					return
				}
				committed <- a.ID
				committed <- b.ID
			}
		})
	}
	wg.Wait()
	close(committed)
	want := map[string]bool{}
	for id := range committed {
		want[id] = true
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		mu.Lock()
		n := len(seen)
		mu.Unlock()
		if n >= len(want) || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	mu.Lock()
	defer mu.Unlock()
	for id := range want {
		if seen[id] != 1 {
			t.Errorf("event %s seen %d times, want 1", id, seen[id])
		}
	}
	if len(seen) != len(want) {
		t.Errorf("saw %d events, %d committed (rolled-back events must never appear)", len(seen), len(want))
	}
	for i := 1; i < len(order); i++ {
		if !order[i-1].Less(order[i]) {
			t.Fatalf("positions not strictly increasing at %d: %v then %v", i, order[i-1], order[i])
		}
	}
}

func TestEventHeadAndPosition(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := dbtest.New(t)
	if h, err := d.EventHead(ctx); err != nil || !h.IsZero() {
		t.Fatalf("empty log head = %v, %v", h, err)
	}
	tx, _ := d.BeginEventTx(ctx)
	ev, _ := tx.Append(event.AgentRegistered, "org_a")
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	readN(t, d, event.Position{}, 1)
	h, err := d.EventHead(ctx)
	if err != nil || h.Seq != ev.Seq || h.XID == 0 {
		t.Fatalf("head = %v, %v; want seq %d", h, err, ev.Seq)
	}
	p, err := d.EventPosition(ctx, "org_a", ev.ID)
	if err != nil || p != h {
		t.Fatalf("position = %v, %v; want %v", p, err, h)
	}
	if _, err := d.EventPosition(ctx, "org_b", ev.ID); err == nil {
		t.Fatal("another organization's event must be NOT_FOUND")
	}
	if evs, _ := d.ReadOrgEvents(ctx, "org_b", event.Position{}, 10); len(evs) != 0 {
		t.Fatalf("org_b must see no events, got %d", len(evs))
	}
	if evs, _ := d.ReadOrgEvents(ctx, "org_a", event.Position{}, 10); len(evs) != 1 {
		t.Fatalf("org_a must see its event, got %d", len(evs))
	}
}

// readN reads after pos until n events are there: transaction ids are
// cluster-wide, so a parallel test's open transaction (in its own database)
// may briefly hold the readable horizon back.
func readN(t *testing.T, d *db.DB, pos event.Position, n int) []event.Event {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		got, err := d.ReadEvents(context.Background(), pos, 100)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) >= n || time.Now().After(deadline) {
			return got
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func ids(evs []event.Event) []string {
	out := make([]string, len(evs))
	for i, e := range evs {
		out[i] = e.ID
	}
	return out
}

// The process holds one LISTEN connection from Open to Close: two listeners
// share it, each is woken by a commit, and one leaving does not stop the
// other's wake-ups.
func TestListenEventsSharesOneConnection(t *testing.T) {
	t.Parallel()
	d, url := dbtest.NewWithURL(t)
	conn, err := pgx.Connect(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	listeners := func() int {
		var n int
		if err := conn.QueryRow(t.Context(), `SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()
			AND application_name = 'att-listener'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	listen := func() (woken chan struct{}, stop func()) {
		woken = make(chan struct{}, 100)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() {
			defer close(done)
			d.ListenEvents(ctx, func() { woken <- struct{}{} })
		}()
		return woken, func() { cancel(); <-done }
	}
	drain := func(c chan struct{}) {
		for len(c) > 0 {
			<-c
		}
	}
	commit := func() {
		tx, err := d.BeginEventTx(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Append(event.AgentRegistered, "org_a"); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	woken := func(c chan struct{}) bool {
		select {
		case <-c:
			return true
		case <-time.After(10 * time.Second):
			return false
		}
	}

	if n := listeners(); n != 1 {
		t.Fatalf("%d LISTEN connections after Open, want 1", n)
	}
	a, stopA := listen()
	b, stopB := listen()
	if n := listeners(); n != 1 {
		t.Fatalf("%d LISTEN connections for two listeners, want 1", n)
	}
	drain(a)
	drain(b)
	commit()
	if !woken(a) || !woken(b) {
		t.Fatal("a commit did not wake both listeners")
	}
	stopA()
	drain(b)
	commit()
	if !woken(b) {
		t.Fatal("after the first listener left, a commit did not wake the second")
	}
	stopB()
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second) // a closed connection's backend exits soon after
	for listeners() != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d LISTEN connections after Close, want 0", listeners())
		}
		time.Sleep(10 * time.Millisecond)
	}
}
