package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/agenttrust/service/auth"
	"github.com/agenttrust/service/db"
	"github.com/agenttrust/service/httpapi"
	"github.com/agenttrust/service/internal/testkit"
	"github.com/agenttrust/service/wire"
)

// replica is one serving process of a two-replica test: its own pool, key
// cache and listener on the shared database, behind a real HTTP server.
func replica(t *testing.T, d *db.DB) *httptest.Server {
	t.Helper()
	srv := wire.NewServer(wire.Options{DB: d, Config: httpapi.Config{RateLimitRPS: 100000, RateLimitBurst: 100000}, Logger: testkit.Logger(t)})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = srv.Run(ctx); close(done) }()
	ts := httptest.NewServer(srv)
	t.Cleanup(func() { ts.Close(); cancel(); <-done })
	return ts
}

// wsOp is one operation sent on a socket: when it was sent and whether it
// ran (its answer carried data).
type wsOp struct {
	sent time.Time
	ran  bool
}

// wsRun is what one socket saw: its operations, and the close.
type wsRun struct {
	ops       []wsOp
	closeCode int
	closedAt  time.Time
}

// executeOnSocket opens a graphql-transport-ws socket to ts with key, then
// sends doc with vars, one operation at a time, until the server closes
// the socket or stop is closed; ready is told after the first operation ran.
func executeOnSocket(t *testing.T, ts *httptest.Server, key, doc string, vars map[string]any, ready chan<- error, stop <-chan struct{}) wsRun {
	var run wsRun
	d := websocket.Dialer{Subprotocols: []string{"graphql-transport-ws"}, HandshakeTimeout: 5 * time.Second}
	conn, _, err := d.Dial("ws"+strings.TrimPrefix(ts.URL, "http")+"/graphql", nil)
	if err != nil {
		ready <- err
		return run
	}
	defer conn.Close()
	ack := func() error {
		if err := conn.WriteJSON(map[string]any{"type": "connection_init", "payload": map[string]any{"Authorization": "Bearer " + key}}); err != nil {
			return err
		}
		var m struct{ Type string }
		if err := conn.ReadJSON(&m); err != nil || m.Type != "connection_ack" {
			return fmt.Errorf("connection_init: %v %+v", err, m)
		}
		return nil
	}
	if err := ack(); err != nil {
		ready <- err
		return run
	}
	for i := 0; ; i++ {
		select {
		case <-stop:
			return run
		default:
		}
		id := fmt.Sprint(i)
		op := wsOp{sent: time.Now()}
		if err := conn.WriteJSON(map[string]any{"id": id, "type": "subscribe", "payload": map[string]any{"query": doc, "variables": vars}}); err != nil {
			run.closedAt = time.Now()
			return run
		}
		for done := false; !done; {
			_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
			var m struct {
				ID      string
				Type    string
				Payload struct {
					Data map[string]json.RawMessage
				}
			}
			if err := conn.ReadJSON(&m); err != nil {
				if ce, ok := err.(*websocket.CloseError); ok {
					run.closeCode = ce.Code
				}
				run.closedAt = time.Now()
				run.ops = append(run.ops, op)
				return run
			}
			switch {
			case m.ID == id && m.Type == "next":
				for _, v := range m.Payload.Data {
					op.ran = op.ran || string(v) != "null"
				}
			case m.ID == id && (m.Type == "complete" || m.Type == "error"):
				done = true
			}
		}
		run.ops = append(run.ops, op)
		if i == 0 {
			if !op.ran {
				ready <- fmt.Errorf("the first operation did not run")
				return run
			}
			ready <- nil
		}
	}
}

// TestRevokedKeyOnOpenWebsockets: two replicas each serve a key over an open
// graphql-transport-ws socket, sending executeTransaction after
// executeTransaction. Once revokeApiKey has returned, the revoking replica
// runs none of them, the other none that starts later than
// auth.RevocationBound after it, and both close their socket with 4401
// within that bound.
func TestRevokedKeyOnOpenWebsockets(t *testing.T) {
	t.Parallel()
	b := testkit.New(t)
	d2, err := db.Open(context.Background(), b.DBURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d2.Close() })
	one, two := replica(t, b.DB), replica(t, d2)
	from := b.Register(map[string]any{"name": "sender", "spendingLimit": "1000000"})
	to := b.Register(map[string]any{"name": "receiver"})
	keyID, key := b.IssueKey(auth.RoleAdmin)
	pay := map[string]any{"in": testkit.Pay(from, to, "0.01")}
	const execute = `mutation($in: ExecuteTransactionInput!) { executeTransaction(input: $in) { id } }`

	stop := make(chan struct{})
	ready := make(chan error, 2)
	runs := make([]wsRun, 2)
	var wg sync.WaitGroup
	for i, ts := range []*httptest.Server{one, two} {
		wg.Go(func() { runs[i] = executeOnSocket(t, ts, key, execute, pay, ready, stop) })
	}
	for range 2 {
		if err := <-ready; err != nil {
			close(stop)
			wg.Wait()
			t.Fatal(err)
		}
	}
	time.Sleep(200 * time.Millisecond) // both sockets run operations back to back
	// The revocation goes through replica one, as an admin's revokeApiKey.
	body, _ := json.Marshal(map[string]any{"query": `mutation($id: ID!) { revokeApiKey(id: $id) { revokedAt } }`, "variables": map[string]any{"id": keyID}})
	r := testkit.Serve(t, one.Config.Handler, testkit.Request("POST", "/graphql", strings.NewReader(string(body)),
		"Content-Type", "application/json", "Authorization", "Bearer "+b.Key))
	returned := time.Now()
	if len(r.Errors) > 0 {
		t.Fatalf("revokeApiKey: %s", r.Body)
	}
	timeout := time.AfterFunc(5*time.Second, func() { close(stop) })
	wg.Wait()
	timeout.Stop()

	for i, run := range runs {
		name := []string{"revoking replica", "other replica"}[i]
		// The revoking replica refuses every operation that starts after
		// revokeApiKey returned; the other, those past the bound.
		from := returned
		if i == 1 {
			from = returned.Add(auth.RevocationBound)
		}
		late, ran := 0, 0
		for _, op := range run.ops {
			if op.ran {
				ran++
			}
			if op.ran && op.sent.After(from) {
				late++
			}
		}
		if ran < 2 {
			t.Errorf("%s: only %d operations ran: the test proves nothing", name, ran)
		}
		if late > 0 {
			t.Errorf("%s: %d operations that started %s after revokeApiKey returned still ran", name, late, from.Sub(returned))
		}
		if run.closeCode != 4401 {
			t.Errorf("%s: socket closed with %d, want 4401 (closed at %s after the revocation)", name, run.closeCode, run.closedAt.Sub(returned))
		} else if took := run.closedAt.Sub(returned); took > auth.RevocationBound {
			t.Errorf("%s: socket closed %s after the revocation, want within %s", name, took, auth.RevocationBound)
		}
	}
}
