package resolvers_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/agenttrust/service/internal/testkit"
)

// A page of agents with their trust reads the page and the profiles in one
// statement: it runs as many statements as the page without trust, at any
// size.
func TestAgentsTrustStatementCount(t *testing.T) {
	t.Parallel()
	k := testkit.New(t)
	registerMany(k, 60)
	statements := func(limit int, sel string) int64 {
		q := fmt.Sprintf(`{ agents(limit: %d) { nodes { id%s } } }`, limit, sel)
		k.Query(q, nil) // the first request with a key looks it up; the next ones find it in the key cache
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
		t.Fatalf("a page ran %d statements with a cached key, want 1", plain)
	}
}

// Through the real handler, a page selecting everything read ahead (trust
// with factors and contributions, and two pages of the audit chain under
// two aliases, with totalCount and pageInfo) runs the same number of
// statements whatever the page size: the page with the profiles, the count,
// and one per page of the chains.
func TestAgentsPreloadStatementCount(t *testing.T) {
	t.Parallel()
	k := testkit.New(t)
	registerMany(k, 60)
	const q = `query($limit: Int) { agents(limit: $limit) { totalCount pageInfo { endCursor hasNextPage } nodes { id
		trust { score assessment factors { completionRate volume confidence } contributions { factor points description } }
		first: auditChain(limit: 1) { sequence hash }
		all: auditChain(limit: 5) { sequence hash } } } }`
	statements := func(limit int) int64 {
		k.Query(q, map[string]any{"limit": limit})
		before := k.DB.Statements()
		var c struct {
			TotalCount int
			Nodes      []struct {
				ID    string
				Trust struct {
					Score         int
					Contributions []struct{ Factor string }
				}
				First []testkit.AuditEntry
				All   []testkit.AuditEntry
			}
		}
		k.Query(q, map[string]any{"limit": limit}).Into(t, "agents", &c)
		if len(c.Nodes) != limit || c.TotalCount != 60 {
			t.Fatalf("limit %d: %d nodes of %d", limit, len(c.Nodes), c.TotalCount)
		}
		for _, n := range c.Nodes {
			if n.Trust.Score != 500 || len(n.Trust.Contributions) == 0 || len(n.First) != 1 || len(n.All) != 1 ||
				n.First[0].Sequence != 1 || !testkit.HashPattern.MatchString(n.All[0].Hash) {
				t.Fatalf("limit %d: agent %+v", limit, n)
			}
		}
		return k.DB.Statements() - before
	}
	// The fewest of three runs: a request may also look its key up when
	// the key cache is briefly untrusted (a loaded machine), which is not
	// the page's own work.
	fewest := func(limit int) int64 { return min(statements(limit), statements(limit), statements(limit)) }
	small := fewest(1)
	for _, limit := range []int{10, 60} {
		if n := fewest(limit); n != small {
			t.Fatalf("a page of %d ran %d statements, a page of 1 %d", limit, n, small)
		}
	}
	if small != 4 {
		t.Fatalf("a page ran %d statements, want 4 (page with profiles, count, two chain pages)", small)
	}
}

// Whatever the shape of the selection (aliases, fragments, directives,
// merged or repeated nodes fields), each agent's trust is its own: the
// same as trustProfile reads for it alone.
func TestAgentsPreloadSelections(t *testing.T) {
	t.Parallel()
	k := testkit.New(t)
	ids := registerMany(k, 4)
	// Counters away from their defaults and from each other, so that a
	// profile given to the wrong agent shows.
	for i, id := range ids {
		k.Exec(`UPDATE trust_counters SET completed = $2, failures = $3, counterparty_orgs = 2,
			first_external_at = now() - interval '30 days' WHERE agent_id = $1`, id, 10*(i+1), i)
	}
	want := map[string]int{}
	for _, id := range ids {
		var p struct{ Score int }
		k.Query(`query($id: ID!) { trustProfile(agentId: $id) { score } }`, map[string]any{"id": id}).Into(t, "trustProfile", &p)
		want[id] = p.Score
	}
	for _, c := range []struct {
		name, query string
		vars        map[string]any
	}{
		{"aliases", `{ a: agents(limit: 4) { n: nodes { i: id t: trust { s: score } } } }`, nil},
		{"fragments", `query Q { a: agents { ...C } } fragment C on AgentConnection { n: nodes { ...A } } fragment A on Agent { i: id t: trust { ...T } } fragment T on TrustProfile { s: score }`, nil},
		{"merged selections", `{ a: agents { n: nodes { i: id } n: nodes { t: trust { s: score } } } }`, nil},
		{"second nodes field", `{ a: agents { other: nodes { id } n: nodes { i: id t: trust { s: score } } } }`, nil},
		{"directives", `query($yes: Boolean!) { a: agents { n: nodes { i: id t: trust @include(if: $yes) { s: score } } } }`, map[string]any{"yes": true}},
		{"nested fragments", `query($yes: Boolean! = true) { ... on Query { a: agents @include(if: $yes) { ... on AgentConnection { n: nodes { ... on Agent { i: id ...More } } } } } } fragment More on Agent { t: trust @skip(if: false) { ... on TrustProfile { s: score } } }`, nil},
		{"with another root field", `{ __typename a: agents(status: active) { n: nodes { i: id t: trust { s: score } } } }`, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			var page struct {
				N []struct {
					I string
					T struct{ S int }
				}
			}
			k.Query(c.query, c.vars).Into(t, "a", &page)
			if len(page.N) != len(ids) {
				t.Fatalf("%d agents, want %d", len(page.N), len(ids))
			}
			for _, n := range page.N {
				if n.T.S != want[n.I] {
					t.Fatalf("agent %s: score %d, trustProfile says %d", n.I, n.T.S, want[n.I])
				}
			}
		})
	}
	// Skipped trust is not read, and a skipped field is not answered.
	var skipped struct{ Nodes []map[string]json.RawMessage }
	k.Query(`{ agents { nodes { id trust @skip(if: true) { score } } } }`, nil).Into(t, "agents", &skipped)
	if _, ok := skipped.Nodes[0]["trust"]; ok || len(skipped.Nodes) != len(ids) {
		t.Fatalf("skipped trust answered: %+v", skipped)
	}
}

// The agent and the mutations answering an agent read its trust and chain
// ahead as the page does, and an invalid chain page is the field's error.
func TestAgentPreload(t *testing.T) {
	t.Parallel()
	k := testkit.New(t)
	a := k.Register(nil)
	k.UpdateAgent(a.ID, map[string]any{"name": "renamed"})
	const sel = `id trust { score agentId } chain: auditChain(after: 1) { sequence }`
	var got, updated struct {
		ID    string
		Trust struct {
			Score   int
			AgentID string
		}
		Chain []struct{ Sequence int }
	}
	k.Query(`query($id: ID!) { agent(id: $id) { `+sel+` } }`, map[string]any{"id": a.ID}).Into(t, "agent", &got)
	k.Query(`mutation($id: ID!) { updateAgent(id: $id, input: { name: "again" }) { `+sel+` } }`, map[string]any{"id": a.ID}).Into(t, "updateAgent", &updated)
	if got.Trust.AgentID != a.ID || got.Trust.Score != 500 || len(got.Chain) != 1 || got.Chain[0].Sequence != 2 {
		t.Fatalf("agent: %+v", got)
	}
	if updated.Trust.AgentID != a.ID || !reflect.DeepEqual(updated.Chain, []struct{ Sequence int }{{2}, {3}}) {
		t.Fatalf("updateAgent: %+v", updated)
	}
	r := k.Do(k.Key, `query($id: ID!) { agent(id: $id) { id auditChain(limit: 0) { sequence } } }`, map[string]any{"id": a.ID})
	if r.Code() != "VALIDATION_FAILED" {
		t.Fatalf("auditChain(limit: 0): %s", r.Body)
	}
}
