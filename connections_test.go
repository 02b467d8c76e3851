package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/agenttrust/service/db"
	"github.com/agenttrust/service/db/dbtest"
	"github.com/agenttrust/service/keyring"
)

// Postgres' defaults: max_connections and the slots of those kept for
// superusers.
const (
	postgresMaxConnections   = 100
	postgresSuperuserReserve = 3
)

// TestDefaultPoolFitsThreeReplicas: at the default DATABASE_MAX_CONNS,
// three serving replicas, a fourth starting during a rolling deploy, and an
// operator's command (its own pool's one connection and its listener) or
// psql session fit within Postgres' default max_connections less its
// superuser reserve (docs/scaling.md, Connections).
func TestDefaultPoolFitsThreeReplicas(t *testing.T) {
	t.Parallel()
	perReplica := db.DefaultMaxConns + db.ExtraConns
	operator := 1 + 1
	if n := 4*perReplica + operator; n > postgresMaxConnections-postgresSuperuserReserve {
		t.Fatalf("4 replicas of %d connections and an operator's %d need %d, over Postgres' default %d less %d reserved",
			perReplica, operator, n, postgresMaxConnections, postgresSuperuserReserve)
	}
	c := Config{LogFormat: "text", LogLevel: "info", ListenAddr: ":8080"}
	if err := c.Validate(); err != nil || c.DatabaseMaxConns != db.DefaultMaxConns {
		t.Fatalf("DATABASE_MAX_CONNS unset: %d, %v", c.DatabaseMaxConns, err)
	}
}

// TestServeHoldsAtMostPoolPlusExtra: the binary, serving with a pool of 4
// under more concurrent work than the pool holds (executes, pages, a live
// subscription, webhook dispatch through River), never holds more than
// DATABASE_MAX_CONNS + db.ExtraConns connections, sampled from
// pg_stat_activity throughout; and it does use its whole pool, or the
// bound would prove nothing.
func TestServeHoldsAtMostPoolPlusExtra(t *testing.T) {
	t.Parallel()
	const pool = 4
	d, url := dbtest.NewWithURL(t)
	d.Close() // only the service's own connections are to be counted
	addr := freeAddr(t)
	key := "conn-key-0123456789"
	env := map[string]string{"DATABASE_URL": url, "LISTEN_ADDR": addr, "BOOTSTRAP_API_KEY": key, "LOG_LEVEL": "error",
		"ENCRYPTION_KEY": keyring.Generate(), "DATABASE_MAX_CONNS": fmt.Sprint(pool), "RATE_LIMIT_RPS": "100000", "RATE_LIMIT_BURST": "100000"}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- run(ctx, nil, func(k string) string { return env[k] }, io.Discard, io.Discard) }()
	defer func() {
		cancel()
		select {
		case <-served:
		case <-time.After(35 * time.Second):
			t.Error("serve did not shut down")
		}
	}()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		resp, err := http.Get("http://" + addr + "/readyz")
		if err == nil && resp.StatusCode == http.StatusOK {
			resp.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("server never became ready: %v", err)
		}
	}
	register := func(name string) string {
		code, body := gql(t, addr, key, `mutation { registerAgent(input: {name: "`+name+`", authorizedActions: ["purchase"], spendingLimit: "1000000", currency: "USD", environment: sandbox}) { id } }`)
		i := strings.Index(body, "agent_")
		if code != http.StatusOK || i < 0 {
			t.Fatalf("register: %d %s", code, body)
		}
		return body[i : i+strings.IndexByte(body[i:], '"')]
	}
	from, to := register("from"), register("to")

	conn, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var peak atomic.Int64
	sampling, sampled := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			select {
			case <-sampling:
				return
			default:
			}
			var n int64
			if err := conn.QueryRow(context.Background(), `SELECT count(*) FROM pg_stat_activity
				WHERE datname = current_database() AND pid <> pg_backend_pid()`).Scan(&n); err != nil {
				t.Error(err)
				return
			}
			if n > peak.Load() {
				peak.Store(n)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}()
	var wg sync.WaitGroup
	stop := time.Now().Add(2 * time.Second)
	for i := range 6 * pool {
		wg.Go(func() {
			for time.Now().Before(stop) {
				q := `{ agents(limit: 200) { totalCount nodes { id trust { score } } } transactions(limit: 200) { totalCount } }`
				if i%2 == 0 {
					q = `mutation { executeTransaction(input: {fromAgent: "` + from + `", toAgent: "` + to + `", action: "purchase", amount: "0.01", currency: "USD"}) { id } }`
				}
				if code, body := gql(t, addr, key, q); code != http.StatusOK || strings.Contains(body, `"errors"`) {
					t.Errorf("under load: %d %.300s", code, body)
					return
				}
			}
		})
	}
	wg.Wait()
	close(sampling)
	<-sampled
	if p := peak.Load(); p > pool+db.ExtraConns {
		t.Fatalf("the process held %d connections, over its pool of %d plus %d", p, pool, db.ExtraConns)
	} else if p < pool+1 {
		t.Fatalf("the process held at most %d connections: the load never filled its pool of %d beside its listener", p, pool)
	} else {
		t.Logf("peak %d connections for a pool of %d", p, pool)
	}
}
