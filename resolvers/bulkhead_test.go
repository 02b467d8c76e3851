package resolvers_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/agenttrust/service/db"
	"github.com/agenttrust/service/httpapi"
	"github.com/agenttrust/service/internal/testkit"
	"github.com/agenttrust/service/wire"
)

// One organization whose requests all wait on a slow statement holds at
// most its share of the replica's connections (DATABASE_CONNS_PER_ORG): a
// replica with a pool of 4 and a share of 2 answers another organization
// while 8 executes of the first wait on a row lock, and those 8 complete
// once it is released.
func TestOneOrganizationHoldsOnlyItsShareOfConnections(t *testing.T) {
	t.Parallel()
	k := testkit.New(t)
	ctx := context.Background()
	d, err := db.Open(ctx, k.DBURL, db.WithMaxConns(4))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	const share = 2
	d.SetConnsPerOrg(share)
	replica := k.For(t)
	replica.Handler = wire.Handler(wire.Options{DB: d, Config: httpapi.Config{RateLimitRPS: 10000, RateLimitBurst: 10000},
		Logger: testkit.Logger(t)})

	from, to := k.Register(nil), k.Register(nil)
	_, neighbourKey := k.NewOrg("neighbour")
	neighbour := k.RegisterAs(neighbourKey, nil)

	// A statement of the first organization that does not end: its sender's row is locked behind the service's back.
	lock, err := k.SQL().BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Rollback() //nolint:errcheck
	if _, err := lock.ExecContext(ctx, `SELECT 1 FROM agents WHERE id = $1 FOR UPDATE`, from.ID); err != nil {
		t.Fatal(err)
	}
	const waiting = 8
	statuses := make([]string, waiting)
	var wg sync.WaitGroup
	for i := range waiting {
		wg.Go(func() {
			var tx testkit.Transaction
			r := replica.Execute(k.Key, testkit.Pay(from, to, "1"))
			if len(r.Errors) == 0 {
				r.Into(t, "executeTransaction", &tx)
			}
			statuses[i] = tx.Status
		})
	}
	// The first organization holds all it may: share executes wait on the lock.
	lockWaiters := func() int {
		var n int
		if err := k.SQL().QueryRowContext(ctx, `SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event_type = 'Lock'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	for deadline := time.Now().Add(time.Minute); lockWaiters() < share; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d executes wait on the lock, want %d", lockWaiters(), share)
		}
	}

	// The neighbour's reads and payments go on meanwhile.
	answered := make(chan *testkit.Response, 1)
	go func() {
		answered <- replica.Do(neighbourKey, `query($id: ID!) { agents { totalCount } agent(id: $id) { name trust { score } } }`,
			map[string]any{"id": neighbour.ID})
	}()
	select {
	case r := <-answered:
		if len(r.Errors) > 0 {
			t.Fatalf("the neighbour's query: %s", r.Body)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("the neighbour's query waited on the other organization's connections")
	}
	if n := lockWaiters(); n != share {
		t.Fatalf("%d executes of one organization hold connections, its share is %d", n, share)
	}

	if err := lock.Rollback(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	for i, s := range statuses {
		if s != "completed" {
			t.Fatalf("execute %d after the lock: %q", i, s)
		}
	}
}
