package resolvers_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/validator"

	"github.com/agenttrust/service/auth"
	"github.com/agenttrust/service/db"
	"github.com/agenttrust/service/graph"
	"github.com/agenttrust/service/internal/testkit"
	"github.com/agenttrust/service/resolvers"
	"github.com/agenttrust/service/wire"
)

// TestAgentsPageMatchesGqlgen runs every query twice, through gqlgen alone
// and through AgentsPage's direct writer, and requires the same bytes:
// aliases, fragments, directives, __typename, filters, cursors, nulls,
// variables, errors, and the operations the writer hands to gqlgen. Each
// case also requires that the writer answered it itself (or did not, for
// the hand-over cases), so that a case cannot pass by both sides being gqlgen.
func TestAgentsPageMatchesGqlgen(t *testing.T) {
	t.Parallel()
	k := testkit.New(t)
	for i, name := range []string{"alpha", "beta \"quoted\" \u00e9", `gamma \ back\slash`, "delta </script> \u2028", "epsilon"} {
		in := map[string]any{"name": name}
		if i%2 == 0 {
			in["dailyLimit"] = "250.50"
		}
		k.Register(in)
	}
	suspended := k.Register(map[string]any{"name": "zeta", "environment": "production"})
	k.SuspendAgent(suspended.ID, "test")
	// Counters away from their defaults, so that a profile given to the
	// wrong agent shows (the writer reads them with the page, gqlgen apart).
	k.Exec(`UPDATE trust_counters SET completed = 40, counterparty_orgs = 3, first_external_at = now() - interval '40 days',
		updated_at = now() - interval '1 hour' WHERE agent_id = $1`, suspended.ID)
	k.Exec(`UPDATE trust_counters SET completed = 6, failures = 4, disputing_orgs = 1, open_disputes = 1, counterparty_orgs = 1,
		first_external_at = now() - interval '2 days' WHERE agent_id IN (SELECT id FROM agents WHERE name = 'beta "quoted" é')`)
	first := k.Agents(k.Key, map[string]any{"limit": 2})
	empty := k.NewOrgWithKey("empty")
	// An agent without counters: the writer plans the page, finds no
	// profile, and hands the operation to gqlgen, which reports the error.
	// (One agent: gqlgen orders the errors of several elements at random.)
	broken := k.NewOrgWithKey("broken")
	k.Exec(`DELETE FROM trust_counters WHERE agent_id = $1`, k.RegisterAs(broken.Key, map[string]any{"name": "no counters"}).ID)

	svc := wire.Services(wire.Options{DB: k.DB})
	build := func(es graphql.ExecutableSchema) http.Handler {
		srv := handler.New(es)
		srv.AddTransport(transport.POST{})
		srv.SetErrorPresenter(resolvers.ErrorPresenter(testkit.Logger(t), db.Unavailable))
		srv.SetRecoverFunc(resolvers.Recover(testkit.Logger(t)))
		return srv
	}
	root := resolvers.New(svc)
	generated := graph.NewExecutableSchema(graph.Config{Resolvers: root})
	page := resolvers.AgentsPage(generated, root)
	fast, slow := build(page), build(generated)
	schema := graph.NewExecutableSchema(graph.Config{}).Schema()

	const agentFields = `id name authorizedActions spendingLimit dailyLimit currency environment status fingerprint createdAt updatedAt __typename`
	cases := []struct {
		name    string
		key     string
		query   string
		vars    map[string]any
		op      string
		planned bool
		handed  bool // planned, but a resolver failed: gqlgen answers
	}{
		{name: "dashboard", query: `{ agents(limit: 50) { nodes { id name status spendingLimit currency environment createdAt } } }`, planned: true},
		{name: "dashboard with trust", query: `{ agents(limit: 50) { nodes { id name status spendingLimit currency environment createdAt trust { score assessment } } } }`, planned: true},
		{name: "every field", query: `{ agents { __typename nodes { ` + agentFields + ` trust { __typename agentId score assessment updatedAt } } pageInfo { __typename endCursor hasNextPage } } }`, planned: true},
		{name: "aliases", query: `{ a: agents(limit: 2) { n: nodes { i: id id nom: name t: trust { s: score } } p: pageInfo { c: endCursor more: hasNextPage } } }`, planned: true},
		{name: "fragments", query: `query Q { agents { ...C } } fragment C on AgentConnection { nodes { ...A ... on Agent { name } } pageInfo { ... on PageInfo { hasNextPage endCursor } } } fragment A on Agent { id status dailyLimit trust { ...T } } fragment T on TrustProfile { assessment }`, planned: true},
		{name: "merged selections", query: `{ agents { nodes { id } nodes { name trust { score } } nodes { trust { assessment } } } }`, planned: true},
		{name: "two node lists", query: `{ agents(limit: 3) { a: nodes { id trust { score } } b: nodes { name } } }`, planned: true},
		{name: "directives", query: `query($with: Boolean!, $without: Boolean!) { agents { nodes { id name @include(if: $with) status @skip(if: $with) trust @include(if: $without) { score } } pageInfo @skip(if: $without) { endCursor } } }`,
			vars: map[string]any{"with": true, "without": false}, planned: true},
		{name: "variables", query: `query($s: AgentStatus, $l: Int, $a: String) { agents(status: $s, limit: $l, after: $a) { nodes { id status } pageInfo { endCursor hasNextPage } } }`,
			vars: map[string]any{"s": "suspended", "l": 10}, planned: true},
		{name: "second page", query: `query($a: String) { agents(limit: 2, after: $a) { nodes { id } pageInfo { endCursor hasNextPage } } }`,
			vars: map[string]any{"a": first.PageInfo.EndCursor}, planned: true},
		{name: "empty organization", key: empty.Key, query: `{ agents { nodes { id trust { score } } pageInfo { endCursor hasNextPage } } }`, planned: true},
		{name: "operation name", query: `query A { __typename } query B { agents(limit: 1) { nodes { id } } }`, op: "B", planned: true},
		{name: "limit too small", query: `{ agents(limit: 0) { nodes { id } } }`, planned: true},
		{name: "limit too large", query: `query($l: Int) { agents(limit: $l) { nodes { id } } }`, vars: map[string]any{"l": 500}, planned: true},
		{name: "bad cursor", query: `{ agents(after: "bogus") { nodes { id } } }`, planned: true},
		{name: "aliases named like other fields", query: `{ agents(limit: 3) { nodes { id: name name: id status: __typename t: trust { score: assessment assessment: score } } } }`, planned: true},
		{name: "aliased __typename everywhere", query: `{ agents(limit: 2) { t1: __typename nodes { t2: __typename trust { t3: __typename } } pageInfo { t4: __typename } } }`, planned: true},
		{name: "nested fragments and directives", query: `query($yes: Boolean! = true) { ... on Query { agents @include(if: $yes) { ... on AgentConnection { nodes { ... on Agent @include(if: $yes) { id ...More } } } } } } fragment More on Agent { name dailyLimit trust @skip(if: false) { ... on TrustProfile { score ...Ass } } } fragment Ass on TrustProfile { assessment agentId updatedAt }`, planned: true},
		{name: "variable defaults", query: `query($l: Int = 3, $s: AgentStatus = active) { agents(limit: $l, status: $s) { nodes { id status } pageInfo { hasNextPage endCursor } } }`, planned: true},
		{name: "explicit null arguments", query: `query($l: Int, $a: String) { agents(limit: $l, after: $a, status: null) { nodes { id } pageInfo { hasNextPage } } }`,
			vars: map[string]any{"l": nil, "a": nil}, planned: true},
		{name: "enum literal filter", query: `{ agents(status: suspended) { nodes { id status environment dailyLimit trust { score assessment } } } }`, planned: true},
		{name: "null dailyLimit and endCursor", key: empty.Key, query: `{ agents(status: active) { nodes { dailyLimit } pageInfo { endCursor } } }`, planned: true},
		{name: "agent without counters", key: broken.Key, query: `{ agents { nodes { id trust { score } } } }`, planned: true, handed: true},
		{name: "agent without counters, plain page", key: broken.Key, query: `{ agents { nodes { id name } } }`, planned: true},
		{name: "bad status variable", query: `query($s: AgentStatus) { agents(status: $s) { nodes { id } } }`, vars: map[string]any{"s": "bogus"}},
		{name: "wrong variable type", query: `query($l: Int) { agents(limit: $l) { nodes { id } } }`, vars: map[string]any{"l": "ten"}},
		{name: "unknown field", query: `{ agents { nodes { id nope } } }`},
		{name: "mutation goes to gqlgen", query: `mutation { suspendAgent(id: "agt_missing") { id } }`},
		{name: "two agents root fields go to gqlgen", query: `{ a: agents(limit: 1) { nodes { id } } b: agents(limit: 2) { nodes { name } } }`},
		{name: "skipped root field goes to gqlgen", query: `query($no: Boolean! = false) { agents @include(if: $no) { nodes { id } } }`},
		{name: "contributions go to gqlgen", query: `{ agents(limit: 2) { nodes { id trust { score contributions { factor points description } } } } }`},
		{name: "totalCount goes to gqlgen", query: `{ agents { nodes { id } totalCount } }`},
		{name: "auditChain goes to gqlgen", query: `{ agents(limit: 2) { nodes { id auditChain { sequence } } } }`},
		{name: "factors go to gqlgen", query: `{ agents(limit: 2) { nodes { trust { factors { completionRate } } } } }`},
		{name: "two root fields go to gqlgen", query: `{ agents(limit: 1) { nodes { id } } __typename }`},
		{name: "other root field", query: `{ __typename }`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			key := k.Key
			if c.key != "" {
				key = c.key
			}
			p, err := k.Orgs.Authenticate(context.Background(), key)
			if err != nil {
				t.Fatal(err)
			}
			if doc, gerr := gqlparser.LoadQueryWithRules(schema, c.query, nil); gerr == nil {
				vars, err := validator.VariableValues(schema, doc.Operations.ForName(c.op), c.vars)
				op := doc.Operations.ForName(c.op)
				if err == nil && resolvers.Planned(&graphql.OperationContext{Doc: doc, Operation: op, Variables: vars}) != c.planned {
					t.Fatalf("planned = %v, want %v", !c.planned, c.planned)
				}
			} else if c.planned {
				t.Fatalf("parse: %v", gerr)
			}
			body, _ := json.Marshal(map[string]any{"query": c.query, "variables": c.vars, "operationName": c.op})
			serve := func(h http.Handler) (int, string) {
				req := httptest.NewRequest(http.MethodPost, "/graphql", bytes.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				ctx := resolvers.WithOutage(auth.WithPrincipal(req.Context(), p), &resolvers.Outage{})
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req.WithContext(ctx))
				return rec.Code, rec.Body.String()
			}
			before := resolvers.AgentsPageAnswered(page) // the cases run one at a time
			fastCode, fastBody := serve(fast)
			byWriter := resolvers.AgentsPageAnswered(page) - before
			if want := map[bool]int64{true: 1, false: 0}[c.planned && !c.handed]; byWriter != want {
				t.Fatalf("the writer answered %d times, want %d", byWriter, want)
			}
			slowCode, slowBody := serve(slow)
			if fastCode != slowCode || fastBody != slowBody {
				t.Fatalf("direct writer: HTTP %d %s\ngqlgen:        HTTP %d %s", fastCode, fastBody, slowCode, slowBody)
			}
			if !json.Valid([]byte(fastBody)) || len(fastBody) < len(`{"data":{}}`) {
				t.Fatalf("answer %q", fastBody)
			}
			t.Logf("%.300s", fastBody)
		})
	}
}

// A page of agents with their trust reads the page and the profiles in one
// statement: it runs as many statements as the page without trust, at any
// size.
func TestAgentsTrustStatementCount(t *testing.T) {
	t.Parallel()
	k := testkit.New(t)
	registerMany(k, 60)
	statements := func(limit int, sel string) int64 {
		q := fmt.Sprintf(`{ agents(limit: %d) { nodes { id%s } } }`, limit, sel)
		k.Query(q, nil) // the first request with a key looks it up; the next ones recall it
		before := k.DB.Statements()
		var c struct {
			Nodes []struct {
				ID    string
				Trust *struct{ Score int }
			}
		}
		k.Query(q, nil).Into(t, "agents", &c)
		if len(c.Nodes) != limit || sel != "" && (c.Nodes[0].Trust == nil || c.Nodes[0].Trust.Score != 500) {
			t.Fatalf("limit %d returned %+v", limit, c.Nodes)
		}
		return k.DB.Statements() - before
	}
	plain := statements(50, "")
	for _, limit := range []int{5, 50} {
		if n := statements(limit, " trust { score assessment }"); n != plain {
			t.Fatalf("a page of %d with trust ran %d statements, without trust %d", limit, n, plain)
		}
	}
	if plain > 1 {
		t.Fatalf("a page ran %d statements with a recalled key, want 1 (the key checked by the page's own)", plain)
	}
}
