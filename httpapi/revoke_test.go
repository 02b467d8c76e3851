package httpapi_test

import (
	"bytes"
	"context"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/agenttrust/service/auth"
	"github.com/agenttrust/service/db"
	"github.com/agenttrust/service/httpapi"
	"github.com/agenttrust/service/internal/testkit"
	"github.com/agenttrust/service/wire"
)

const evaluateQuery = `query($in: TrustEvaluationInput!) { evaluateTrust(input: $in) { allowed reasonCode } }`

// TestRevokedKeyRefusedOnEveryReplica: two replicas (each its own pool and
// its own cache of keys) have both served a key from their caches, without
// a lookup. The key is revoked through one replica's organization service
// (what the CLI runs); the other refuses it within auth.RevocationBound
// (polled, no fixed wait), and from then on every request of every kind, on
// either replica, is refused 401 and writes nothing.
func TestRevokedKeyRefusedOnEveryReplica(t *testing.T) {
	t.Parallel()
	b := testkit.New(t)
	ctx := context.Background()
	d2, err := db.Open(ctx, b.DBURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d2.Close() })
	other := *b
	other.DB = d2
	other.Handler = wire.Handler(wire.Options{DB: d2, Config: httpapi.Config{RateLimitRPS: 10000, RateLimitBurst: 10000}, Logger: testkit.Logger(t)})
	replicas := map[string]*testkit.Kit{"one": b, "two": &other}

	sender := register(b, "sender")
	_, otherKey := b.NewOrg("globex")
	var rcv struct{ ID string }
	b.Do(otherKey, registerQuery, map[string]any{"input": map[string]any{"name": "receiver", "authorizedActions": []string{"purchase"},
		"spendingLimit": "100", "currency": "USD", "environment": "sandbox"}}).Into(t, "registerAgent", &rcv)
	receiver := rcv.ID
	keyID, key, err := b.Orgs.CreateKey(ctx, b.OrgID)
	if err != nil {
		t.Fatal(err)
	}
	evaluate := map[string]any{"query": evaluateQuery, "variables": map[string]any{"in": map[string]any{
		"agentId": sender, "action": "purchase", "amount": "1.00", "currency": "USD"}}}
	execute := map[string]any{"query": `mutation($in: ExecuteTransactionInput!) { executeTransaction(input: $in) { id } }`,
		"variables": map[string]any{"in": map[string]any{"fromAgent": sender, "toAgent": receiver, "action": "purchase", "amount": "1.00", "currency": "USD"}}}
	page := func(r *testkit.Kit) *testkit.Response {
		return r.Post(key, map[string]any{"query": `{ agents { nodes { id } } }`})
	}
	for name, r := range replicas {
		// A page from the cache is its own statement alone; the first
		// request (or one while the listener is away) looks the key up.
		cached := false
		for deadline := time.Now().Add(10 * time.Second); !cached && time.Now().Before(deadline); {
			before := r.DB.Statements()
			var p struct{ Nodes []struct{ ID string } }
			page(r).Into(t, "agents", &p)
			if len(p.Nodes) != 1 || p.Nodes[0].ID != sender {
				t.Fatalf("replica %s: the key sees agents %+v, want only %s", name, p.Nodes, sender)
			}
			cached = r.DB.Statements()-before == 1
		}
		if !cached {
			t.Fatalf("replica %s: every page looked the key up", name)
		}
		var ev struct{ Allowed bool }
		r.Post(key, evaluate).Into(t, "evaluateTrust", &ev)
		var tx struct{ ID string }
		r.Post(key, execute).Into(t, "executeTransaction", &tx)
		if !ev.Allowed || tx.ID == "" {
			t.Fatalf("replica %s: evaluateTrust %+v, executeTransaction %+v", name, ev, tx)
		}
	}

	if err := b.Orgs.RevokeKey(ctx, keyID); err != nil {
		t.Fatal(err)
	}
	revoked := time.Now()
	page(b).RefusedHTTP(t, http.StatusUnauthorized, "UNAUTHENTICATED") // the revoking replica at once
	for {
		resp := page(&other)
		if resp.Status == http.StatusUnauthorized {
			break
		}
		if resp.Status != http.StatusOK {
			t.Fatalf("replica two while the revocation spreads: HTTP %d %s", resp.Status, resp.Body)
		}
		if took := time.Since(revoked); took > auth.RevocationBound {
			t.Fatalf("replica two still accepted the revoked key %s after the revocation", took)
		}
	}
	transactions := func() int {
		var n int
		if err := b.SQL().QueryRow(`SELECT count(*) FROM transactions`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	executed := transactions()
	for name, r := range replicas {
		for what, send := range map[string]func() *testkit.Response{
			"typename":      func() *testkit.Response { return r.Post(key, map[string]any{"query": `{ __typename }`}) },
			"typename GET":  func() *testkit.Response { return r.Get(key, "/graphql?query="+url.QueryEscape(`{ __typename }`)) },
			"evaluateTrust": func() *testkit.Response { return r.Post(key, evaluate) },
			"agents":        func() *testkit.Response { return r.Post(key, map[string]any{"query": `{ agents { nodes { id } } }`}) },
			"execute":       func() *testkit.Response { return r.Post(key, execute) },
			"register":      func() *testkit.Response { return r.Post(key, map[string]any{"query": registerQuery}) },
			"not a document": func() *testkit.Response {
				return r.Post(key, map[string]any{"query": `{ agents {`})
			},
			"malformed body": func() *testkit.Response {
				return r.Serve(testkit.Request(http.MethodPost, "/graphql", bytes.NewReader([]byte(`{"query": 42}`)),
					"Content-Type", "application/json", "Authorization", "Bearer "+key))
			},
		} {
			resp := send()
			if resp.Status != http.StatusUnauthorized || resp.Header.Get("WWW-Authenticate") == "" {
				t.Fatalf("replica %s, %s after the revocation: HTTP %d %s", name, what, resp.Status, resp.Body)
			}
			resp.RefusedHTTP(t, http.StatusUnauthorized, "UNAUTHENTICATED")
		}
	}
	if n := transactions(); n != executed {
		t.Fatalf("a revoked key executed %d transactions", n-executed)
	}
	// The organization's other key is unaffected on both replicas.
	for name, r := range replicas {
		if n := count(r, b.Key); n != 1 {
			t.Fatalf("replica %s: the other key sees %d agents", name, n)
		}
	}
}
