package httpapi_test

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agenttrust/service/httpapi"

	"github.com/agenttrust/service/internal/testkit"
)

// chain builds `query { ...F0 }` with each fragment spreading the next one
// twice, deep levels: 2^deep steps for a walk that re-walks every spread.
func chain(deep int, body string) string {
	var q strings.Builder
	q.WriteString("query { ...F0 }\n")
	for i := range deep {
		fmt.Fprintf(&q, "fragment F%d on Query { %s ...F%d ...F%d }\n", i, body, i+1, i+1)
	}
	fmt.Fprintf(&q, "fragment F%d on Query { %s }\n", deep, strings.TrimSpace(body+" __typename"))
	return q.String()
}

// walkBound tells a walk linear in the document (milliseconds) from one
// that re-walks every spread (days for 40 levels of doubling), with room
// for a host running the whole suite under the race detector.
const walkBound = 15 * time.Second

// refusedQuickly posts q and expects a document refusal within walkBound,
// with nothing run.
func refusedQuickly(t *testing.T, b *testkit.Kit, q, want string) {
	t.Helper()
	start := time.Now()
	r := b.Post(b.Key, map[string]any{"query": q})
	if took := time.Since(start); took > walkBound {
		t.Errorf("refusing %.60q took %v", q, took)
	}
	if r.Code() != "GRAPHQL_VALIDATION_FAILED" || len(r.Data) != 0 || !strings.Contains(r.Errors[0].Message, want) {
		t.Fatalf("%.80q: %d %.400s, want a refusal mentioning %q", q, r.Status, r.Body, want)
	}
}

// Fragment explosion: 26, 40 and 60 levels of doubling spreads are refused
// at once (the old walk took 7.5 s for 26 and days for 40).
func TestFragmentExplosion(t *testing.T) {
	t.Parallel()
	b := testkit.New(t)
	for _, deep := range []int{26, 40, 60} {
		refusedQuickly(t, b, chain(deep, ""), "too complex")
		// refused for its root fields, or for repeating the name agents
		refusedQuickly(t, b, chain(deep, "agents(limit: 1) { nodes { id } }"), "")
	}
	// The same doubling below the root: the cost walk sees each fragment once.
	var q strings.Builder
	q.WriteString("{ agents(limit: 1) { nodes { ...A0 } } }\n")
	for i := range 40 {
		fmt.Fprintf(&q, "fragment A%d on Agent { id ...A%d ...A%d }\n", i, i+1, i+1)
	}
	q.WriteString("fragment A40 on Agent { name }\n")
	refusedQuickly(t, b, q.String(), "too complex")

	// Depth through fragments is measured once per fragment too.
	q.Reset()
	q.WriteString("{ agents { nodes { ...D0 } } }\n")
	for i := range 30 {
		fmt.Fprintf(&q, "fragment D%d on Agent { trust { agentId } ...D%d ...D%d }\n", i, i+1, i+1)
	}
	q.WriteString("fragment D30 on Agent { auditChain { trust: hash } }\n")
	start := time.Now()
	r := b.Post(b.Key, map[string]any{"query": q.String()})
	if time.Since(start) > walkBound || len(r.Errors) == 0 || len(r.Data) != 0 {
		t.Fatalf("doubling fragments below the root: %v %.300s", time.Since(start), r.Body)
	}

	// A legitimate fragment still runs.
	b.Register(map[string]any{"name": "one"})
	ok := `{ ...F } fragment F on Query { agents { nodes { ...A } } } fragment A on Agent { id name }`
	if r := b.Post(b.Key, map[string]any{"query": ok}); r.Status != http.StatusOK || len(r.Errors) != 0 {
		t.Fatalf("fragments: %d %s", r.Status, r.Body)
	}
}

// fiftyOneRoots selects 51 root fields, no response name more than 50 times.
func fiftyOneRoots() string {
	var q strings.Builder
	q.WriteString("{")
	for i := range 51 {
		fmt.Fprintf(&q, ` a%d: agent(id: "agent_x") { i%d: id }`, i, i)
	}
	return q.String() + " }"
}

// Aliases cannot multiply expensive fields: each root field is capped, every
// field has a cost, and nothing of a refused operation runs.
func TestAliasLimits(t *testing.T) {
	t.Parallel()
	b := testkit.New(t)
	aliases := func(n int, field string) string {
		var q strings.Builder
		q.WriteString("{")
		for i := range n {
			fmt.Fprintf(&q, " a%d: %s", i, field)
		}
		return q.String() + " }"
	}
	cases := []struct{ query, want string }{
		{aliases(2, `exportTransactions(format: csv) { count }`), "exportTransactions 2 times, more than the limit of 1"},
		{aliases(11, `batchTrust(agentIds: ["agent_x"]) { score }`), "batchTrust 11 times"},
		{fiftyOneRoots(), "51 root fields, more than the limit of 50"},
		{aliases(10, `agents { totalCount }`) + "", "too complex"},
		{`{ a: exportTransactions(format: csv) { count } b: agents { totalCount } c: transactions { totalCount }
		   d: agents(limit: 200) { nodes { auditChain(limit: 1000) { hash } } } }`, "too complex"},
		{`{ agentAuditChain(agentId: "agent_x", limit: 1000) { hash } agents(limit: 200) { nodes { a: auditChain(limit: 1000) { hash } } } }`, "too complex"},
		// first and last are page sizes like limit, edges cost like nodes, nodes like its ids.
		{`{ agents(first: 200) { nodes { auditChain(limit: 300) { hash } } } }`, "too complex"},
		{`{ agents(last: 200) { edges { node { auditChain(limit: 300) { hash } } } } }`, "too complex"},
		{`{ nodes(ids: [` + strings.Repeat(`"agent_x", `, 200) + `]) { ... on Agent { auditChain(limit: 300) { hash } } } }`, "too complex"},
	}
	for _, c := range cases {
		refusedQuickly(t, b, c.query, c.want)
	}
	// A mutation operation runs at most 10 mutations.
	var m strings.Builder
	m.WriteString("mutation {")
	for i := range 11 {
		fmt.Fprintf(&m, ` r%d: registerAgent(input: {name: "n%d", authorizedActions: ["a"], spendingLimit: "1", currency: "USD", environment: sandbox}) { id }`, i, i)
	}
	refusedQuickly(t, b, m.String()+" }", "11 mutations")
	if n := countAgents(t, b); n != 0 {
		t.Fatalf("a refused mutation operation registered %d agents", n)
	}
	// Within every limit it runs.
	ok := `{ b: transactions { totalCount } e: exportTransactions(format: json) { count } }`
	if r := b.Post(b.Key, map[string]any{"query": ok}); len(r.Data) == 0 {
		t.Fatalf("operation within the limits: %d %s", r.Status, r.Body)
	}
}

// The rate limit is charged per root field: an operation of 2,500 aliased
// executes cannot pass as one request.
func TestRateLimitPerRootField(t *testing.T) {
	t.Parallel()
	b := testkit.New(t, func(c *httpapi.Config) { c.RateLimitRPS = 0.01; c.RateLimitBurst = 8 })
	register := func(n int) string {
		var m strings.Builder
		m.WriteString("mutation {")
		for i := range n {
			fmt.Fprintf(&m, ` r%d: registerAgent(input: {name: "n%d", authorizedActions: ["a"], spendingLimit: "1", currency: "USD", environment: sandbox}) { id }`, i, i)
		}
		return m.String() + " }"
	}
	// 9 root fields are more than the whole burst: refused, nothing runs.
	r := b.Post(b.Key, map[string]any{"query": register(9)})
	r.RefusedHTTP(t, http.StatusTooManyRequests, "RATE_LIMITED")
	if s, err := strconv.Atoi(r.Header.Get("Retry-After")); err != nil || s < 1 {
		t.Fatalf("Retry-After %q", r.Header.Get("Retry-After"))
	}
	// 5 take 5 tokens of 8, then 4 more do not fit: refused whole.
	if r := b.Post(b.Key, map[string]any{"query": register(5)}); r.Status != http.StatusOK || len(r.Errors) != 0 {
		t.Fatalf("5 root fields within the burst: %d %s", r.Status, r.Body)
	}
	b.Post(b.Key, map[string]any{"query": register(4)}).RefusedHTTP(t, http.StatusTooManyRequests, "RATE_LIMITED")
	// 3 tokens are left: a query of two root fields takes two of them.
	if r := b.Post(b.Key, map[string]any{"query": `{ a: agents { totalCount } b: agents { totalCount } }`}); r.Status != http.StatusOK {
		t.Fatalf("2 root fields: %d %s", r.Status, r.Body)
	}
	if r := b.Post(b.Key, map[string]any{"query": `{ agents { totalCount } }`}); r.Status != http.StatusOK {
		t.Fatalf("the last token: %d %s", r.Status, r.Body)
	}
	b.Post(b.Key, map[string]any{"query": `{ agents { totalCount } }`}).RefusedHTTP(t, http.StatusTooManyRequests, "RATE_LIMITED")
	var n int
	if err := b.SQL().QueryRow(`SELECT count(*) FROM agents WHERE org_id = $1`, b.OrgID).Scan(&n); err != nil || n != 5 {
		t.Fatalf("agents registered: %d (%v), want only the 5 of the operation within the limit", n, err)
	}
}

// countAgents is the organization's agents totalCount.
func countAgents(t *testing.T, b *testkit.Kit) int {
	t.Helper()
	var c struct{ TotalCount int }
	b.Post(b.Key, map[string]any{"query": `{ agents { totalCount } }`}).Into(t, "agents", &c)
	return c.TotalCount
}

// Large documents are refused by size, tokens, repeated response names and
// fragment count before validation, whose same-name overlap check is
// quadratic (4,000 __typename in one selection took 7.6 s to validate, and
// 50 trust fields of 50 scores each 5.4 s); the worst document within the
// limits is answered quickly.
func TestDocumentSize(t *testing.T) {
	t.Parallel()
	b := testkit.New(t)
	refusedQuickly(t, b, "{ agents { totalCount } }"+strings.Repeat(" ", 32<<10), "bytes")
	refusedQuickly(t, b, "{"+strings.Repeat(" a", 5000)+" }", "tokens")
	refusedQuickly(t, b, "{ agents { nodes {"+strings.Repeat(" __typename", 51)+" } } }", `"__typename" more than 50 times`)
	refusedQuickly(t, b, "{ agents { nodes {"+strings.Repeat(" trust {"+strings.Repeat(" score", 50)+" }", 50)+" } } }", `"score" more than 50 times`)
	refusedQuickly(t, b, "{ agents { nodes {"+strings.Repeat(" ... on Agent { __typename }", 40)+
		strings.Repeat(" ...A", 161)+" } } } fragment A on Agent { id }", "more than 200 fragment")

	// At the limits: 12 names 50 times each in one selection, and 50 same-named
	// fields spreading 4 fragments each.
	fields := []string{"id", "name", "authorizedActions", "spendingLimit", "dailyLimit", "currency",
		"environment", "status", "fingerprint", "createdAt", "updatedAt", "__typename"}
	var wide strings.Builder
	for _, f := range fields {
		wide.WriteString(strings.Repeat(" "+f, 50))
	}
	var spread strings.Builder
	for j := range 50 {
		spread.WriteString(" trust {")
		for i := range 4 {
			fmt.Fprintf(&spread, " ...T%d", (i+j)%50)
		}
		spread.WriteString(" }")
	}
	spread.WriteString(" } } }")
	for i := range 50 {
		fmt.Fprintf(&spread, " fragment T%d on TrustProfile { score assessment agentId }", i)
	}
	b.Register(map[string]any{"name": "one"})
	for _, q := range []string{"{ agents { nodes {" + wide.String() + " } } }", "{ agents { nodes {" + spread.String()} {
		start := time.Now()
		r := b.Post(b.Key, map[string]any{"query": q})
		// About 30 ms without the race detector (docs/limits.md); the ceiling
		// leaves room for -race and a busy machine, and is still far below the
		// seconds the same shapes took beyond the limits.
		if took := time.Since(start); took > 4*time.Second || r.Status != http.StatusOK || len(r.Errors) != 0 {
			t.Fatalf("%.80q: %v %d %.300s", q, took, r.Status, r.Body)
		}
	}
}

// Failed attempts are limited per client address, and a malformed key never
// reaches the database.
func TestUnauthenticatedFlood(t *testing.T) {
	t.Parallel()
	b := testkit.New(t, func(c *httpapi.Config) { c.AuthFailureBurst = 5; c.AuthFailuresPerMinute = 1 })
	before := b.DB.Statements()
	for i := range 5 {
		r := b.Post("bad key "+strconv.Itoa(i), map[string]any{"query": "{ __typename }"})
		r.RefusedHTTP(t, http.StatusUnauthorized, "UNAUTHENTICATED")
	}
	if n := b.DB.Statements() - before; n != 0 {
		t.Fatalf("malformed keys ran %d statements", n)
	}
	r := b.Post("att_sk_"+strings.Repeat("x", 40), map[string]any{"query": "{ __typename }"})
	r.RefusedHTTP(t, http.StatusTooManyRequests, "RATE_LIMITED")
	if r.Header.Get("Retry-After") == "" {
		t.Fatal("no Retry-After")
	}
	if n := b.DB.Statements() - before; n != 0 {
		t.Fatalf("a limited address ran %d statements", n)
	}
	// Another address is not limited, and neither is the right key from it.
	req := testkit.Request(http.MethodPost, "/graphql", strings.NewReader(`{"query":"{ __typename }"}`),
		"Content-Type", "application/json", "Authorization", "Bearer "+b.Key)
	req.RemoteAddr = "198.51.100.7:4242"
	if r := testkit.Serve(t, b.Handler, req); r.Status != http.StatusOK {
		t.Fatalf("another address: %d %s", r.Status, r.Body)
	}
}
