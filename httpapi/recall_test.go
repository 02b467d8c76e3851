package httpapi_test

import (
	"bytes"
	"context"
	"net/http"
	"net/url"
	"testing"

	"github.com/agenttrust/service/db"
	"github.com/agenttrust/service/httpapi"
	"github.com/agenttrust/service/internal/testkit"
	"github.com/agenttrust/service/wire"
)

const evaluateQuery = `query($in: TrustEvaluationInput!) { evaluateTrust(input: $in) { allowed reasonCode } }`

// TestRecalledKeyRevokedOnEveryReplica: two replicas (each its own pools and
// its own memory of keys) have both served a key, so both recall it without
// a lookup. The key is revoked through a third service (as the CLI does).
// The next request of every kind, on either replica, is refused 401 and
// writes nothing.
func TestRecalledKeyRevokedOnEveryReplica(t *testing.T) {
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
	for name, r := range replicas {
		r.Post(key, map[string]any{"query": `{ __typename }`}) // the lookup that lets the replica recall the key
		before := r.DB.Statements()
		var ev struct{ Allowed bool }
		r.Post(key, evaluate).Into(t, "evaluateTrust", &ev)
		if !ev.Allowed {
			t.Fatalf("replica %s: evaluateTrust refused", name)
		}
		// The key is confirmed by the evaluation's own read: one statement in all.
		if n := r.DB.Statements() - before; n != 1 {
			t.Fatalf("replica %s: evaluateTrust with a recalled key ran %d statements, want 1", name, n)
		}
		// So is a page of agents, by the page's own statement.
		before = r.DB.Statements()
		var page struct{ Nodes []struct{ ID string } }
		r.Do(key, `{ agents { nodes { id } } }`, nil).Into(t, "agents", &page)
		if len(page.Nodes) != 1 || page.Nodes[0].ID != sender {
			t.Fatalf("replica %s: the key sees agents %+v, want only %s", name, page.Nodes, sender)
		}
		if n := r.DB.Statements() - before; n != 1 {
			t.Fatalf("replica %s: agents with a recalled key ran %d statements, want 1", name, n)
		}
		// An execute confirms it inside its transaction, in its first statement.
		var tx struct{ ID string }
		r.Post(key, execute).Into(t, "executeTransaction", &tx)
		if tx.ID == "" {
			t.Fatalf("replica %s: no transaction", name)
		}
	}

	if err := b.Orgs.RevokeKey(ctx, keyID); err != nil {
		t.Fatal(err)
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
