package resolvers_test

import (
	"encoding/base64"
	"fmt"
	"slices"
	"strings"
	"testing"
)

const agentsQuery = `query($status: AgentStatus, $limit: Int, $after: String) {
	agents(status: $status, limit: $limit, after: $after) {
		nodes { ` + agentFields + ` } pageInfo { endCursor hasNextPage } totalCount } }`

type connectionJSON struct {
	Nodes    []agentJSON `json:"nodes"`
	PageInfo struct {
		EndCursor   *string `json:"endCursor"`
		HasNextPage bool    `json:"hasNextPage"`
	} `json:"pageInfo"`
	TotalCount int `json:"totalCount"`
}

func (c connectionJSON) ids() []string {
	out := make([]string, len(c.Nodes))
	for i, a := range c.Nodes {
		out[i] = a.ID
	}
	return out
}

// list runs agents(...) with key and vars (status, limit, after).
func (b *bundle) list(key string, vars map[string]any) connectionJSON {
	b.t.Helper()
	r := b.do(key, agentsQuery, vars)
	var c connectionJSON
	r.into(b.t, "agents", &c)
	for _, a := range c.Nodes {
		checkAgent(b.t, a)
	}
	return c
}

// registerMany registers n agents named agent-000... and returns their ids
// newest first. Mutations in one document run in order, so batching them
// keeps the order known while saving round trips.
func (b *bundle) registerMany(n int) []string {
	b.t.Helper()
	const batch = 50
	ids := make([]string, 0, n)
	for start := 0; start < n; start += batch {
		var doc strings.Builder
		vars := map[string]any{}
		doc.WriteString("mutation(")
		for i := start; i < min(start+batch, n); i++ {
			fmt.Fprintf(&doc, "$in%d: RegisterAgentInput! ", i)
			vars[fmt.Sprintf("in%d", i)] = registerInput(map[string]any{"name": fmt.Sprintf("agent-%03d", i)})
		}
		doc.WriteString(") {")
		for i := start; i < min(start+batch, n); i++ {
			fmt.Fprintf(&doc, " a%d: registerAgent(input: $in%d) { id }", i, i)
		}
		doc.WriteString(" }")
		r := b.q(doc.String(), vars)
		for i := start; i < min(start+batch, n); i++ {
			var a struct{ ID string }
			r.into(b.t, fmt.Sprintf("a%d", i), &a)
			ids = append(ids, a.ID)
		}
	}
	slices.Reverse(ids)
	return ids
}

func TestAgentsEmpty(t *testing.T) {
	t.Parallel()
	b := setup(t)
	c := b.list(b.key, nil)
	if len(c.Nodes) != 0 || c.TotalCount != 0 || c.PageInfo.HasNextPage || c.PageInfo.EndCursor != nil {
		t.Fatalf("empty organization's agents: %+v", c)
	}
}

func TestAgentsPagination(t *testing.T) {
	t.Parallel()
	b := setup(t)
	const n, limit = 500, 37
	want := b.registerMany(n)

	var got []string
	seen := map[string]bool{}
	vars := map[string]any{"limit": limit}
	for pages := 1; ; pages++ {
		c := b.list(b.key, vars)
		if c.TotalCount != n {
			t.Fatalf("page %d: totalCount %d, want %d", pages, c.TotalCount, n)
		}
		if len(c.Nodes) > limit || (c.PageInfo.HasNextPage && len(c.Nodes) != limit) {
			t.Fatalf("page %d: %d nodes, hasNextPage %v", pages, len(c.Nodes), c.PageInfo.HasNextPage)
		}
		for _, id := range c.ids() {
			if seen[id] {
				t.Fatalf("page %d repeats %s", pages, id)
			}
			seen[id] = true
		}
		got = append(got, c.ids()...)
		if c.PageInfo.EndCursor == nil {
			t.Fatalf("page %d has no endCursor", pages)
		}
		vars["after"] = *c.PageInfo.EndCursor
		if !c.PageInfo.HasNextPage {
			if want := (n + limit - 1) / limit; pages != want {
				t.Fatalf("walked %d pages, want %d", pages, want)
			}
			break
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("walk returned %d agents, not the %d registered newest first", len(got), len(want))
	}
	if c := b.list(b.key, vars); len(c.Nodes) != 0 || c.PageInfo.HasNextPage || c.PageInfo.EndCursor != nil {
		t.Fatalf("page after the last: %+v", c.PageInfo)
	}

	var def connectionJSON
	b.q(`{ agents { nodes { id } pageInfo { hasNextPage } } }`, nil).into(t, "agents", &def)
	if !slices.Equal(def.ids(), want[:50]) || !def.PageInfo.HasNextPage {
		t.Fatalf("default page: %d agents, hasNextPage %v", len(def.Nodes), def.PageInfo.HasNextPage)
	}
	if c := b.list(b.key, map[string]any{"limit": 200}); !slices.Equal(c.ids(), want[:200]) {
		t.Fatalf("limit 200 returned %d agents", len(c.Nodes))
	}
}

func TestAgentsPaginationWithStatus(t *testing.T) {
	t.Parallel()
	b := setup(t)
	all := b.registerMany(7)
	var suspended []string
	for i, id := range all {
		if i%2 == 0 {
			b.suspend(id, nil)
			suspended = append(suspended, id)
		}
	}
	var got []string
	vars := map[string]any{"status": "suspended", "limit": 2}
	for range len(all) {
		c := b.list(b.key, vars)
		if c.TotalCount != len(suspended) {
			t.Fatalf("totalCount %d, want %d", c.TotalCount, len(suspended))
		}
		got = append(got, c.ids()...)
		if !c.PageInfo.HasNextPage {
			break
		}
		vars["after"] = *c.PageInfo.EndCursor
	}
	if !slices.Equal(got, suspended) {
		t.Fatalf("suspended walk = %v, want %v", got, suspended)
	}
}

func TestAgentsPageArgumentValidation(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.registerMany(2)
	for _, limit := range []int{0, -1, 201, 1000} {
		if got := b.do(b.key, agentsQuery, map[string]any{"limit": limit}).fields(t); !slices.Equal(got, []string{"limit"}) {
			t.Errorf("limit %d: fieldErrors %v", limit, got)
		}
	}
	for _, limit := range []int{1, 200} {
		if c := b.list(b.key, map[string]any{"limit": limit}); len(c.Nodes) != min(limit, 2) {
			t.Errorf("limit %d returned %d agents", limit, len(c.Nodes))
		}
	}
	enc := base64.RawURLEncoding.EncodeToString
	for _, after := range []string{"garbage", "!!!", enc([]byte("c1:abc")), enc([]byte("c1:-5")), enc([]byte("x1:5"))} {
		if got := b.do(b.key, agentsQuery, map[string]any{"after": after}).fields(t); !slices.Equal(got, []string{"after"}) {
			t.Errorf("after %q: fieldErrors %v", after, got)
		}
	}
}

// A page with each agent's audit chain runs the same few statements at any size.
func TestAgentsStatementCount(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.registerMany(60)
	statements := func(limit int) int64 {
		q := fmt.Sprintf(`{ agents(limit: %d) { nodes { id auditChain { hash } } } }`, limit)
		before := b.db.Statements()
		var c connectionJSON
		b.q(q, nil).into(t, "agents", &c)
		if len(c.Nodes) != limit {
			t.Fatalf("limit %d returned %d agents", limit, len(c.Nodes))
		}
		return b.db.Statements() - before
	}
	small, large := statements(5), statements(50)
	if small != large || large > 4 {
		t.Fatalf("statements: %d for 5 agents, %d for 50 (want equal and at most 4)", small, large)
	}
}
