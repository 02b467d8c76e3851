package resolvers_test

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/agenttrust/service/internal/testkit"
)

// relayConn is any connection as the Relay selection reads it.
type relayConn struct {
	Nodes []struct{ ID string } `json:"nodes"`
	Edges []struct {
		Cursor string
		Node   struct{ ID string }
	} `json:"edges"`
	PageInfo struct {
		StartCursor, EndCursor       *string
		HasNextPage, HasPreviousPage bool
	} `json:"pageInfo"`
}

func (c relayConn) ids() []string {
	out := make([]string, len(c.Nodes))
	for i, n := range c.Nodes {
		out[i] = n.ID
	}
	return out
}

// check holds a page's own invariants: edges are its nodes in order, and
// startCursor and endCursor are its first and last edges' cursors.
func (c relayConn) check(t *testing.T, what string) {
	t.Helper()
	if len(c.Edges) != len(c.Nodes) {
		t.Fatalf("%s: %d edges for %d nodes", what, len(c.Edges), len(c.Nodes))
	}
	for i, e := range c.Edges {
		if e.Node.ID != c.Nodes[i].ID || e.Cursor == "" {
			t.Fatalf("%s: edge %d is %+v, node %s", what, i, e, c.Nodes[i].ID)
		}
	}
	if n := len(c.Edges); n > 0 && (c.PageInfo.StartCursor == nil || *c.PageInfo.StartCursor != c.Edges[0].Cursor) {
		t.Fatalf("%s: startCursor %v, first edge's %s", what, c.PageInfo.StartCursor, c.Edges[0].Cursor)
	}
	if n := len(c.Edges); n > 0 && c.PageInfo.EndCursor != nil && *c.PageInfo.EndCursor != c.Edges[n-1].Cursor {
		t.Fatalf("%s: endCursor %s, last edge's %s", what, *c.PageInfo.EndCursor, c.Edges[n-1].Cursor)
	}
}

const relaySelection = `nodes { id } edges { cursor node { id } } pageInfo { startCursor endCursor hasNextPage hasPreviousPage }`

// relayList is one connection field under test: how to read a page of it
// with the given paging variables (limit, first, last, after, before).
type relayList struct {
	name string
	page func(k *testkit.Kit, vars map[string]any) (relayConn, *testkit.Response)
}

func rootList(field string) relayList {
	doc := `query($limit: Int, $first: Int, $last: Int, $after: String, $before: String) { ` + field +
		`(limit: $limit, first: $first, last: $last, after: $after, before: $before) { ` + relaySelection + ` } }`
	return relayList{name: field, page: func(k *testkit.Kit, vars map[string]any) (relayConn, *testkit.Response) {
		var c relayConn
		r := k.Do(k.Key, doc, vars)
		if len(r.Errors) == 0 {
			r.Into(k.T, field, &c)
		}
		return c, r
	}}
}

func deliveriesList(whID string) relayList {
	doc := `query($wh: ID!, $limit: Int, $first: Int, $last: Int, $after: String, $before: String) { webhook(id: $wh) {
		deliveries(limit: $limit, first: $first, last: $last, after: $after, before: $before) { ` + relaySelection + ` } } }`
	return relayList{name: "deliveries", page: func(k *testkit.Kit, vars map[string]any) (relayConn, *testkit.Response) {
		var w struct{ Deliveries relayConn }
		v := map[string]any{"wh": whID}
		for key, val := range vars {
			v[key] = val
		}
		r := k.Do(k.Key, doc, v)
		if len(r.Errors) == 0 {
			r.Into(k.T, "webhook", &w)
		}
		return w.Deliveries, r
	}}
}

// walk pages l to its end: forwards from the first page with size as
// sizeArg (limit or first), or backwards from the last page with last.
// It returns the rows in the list's order and fails on a repeated row.
func walk(t *testing.T, k *testkit.Kit, l relayList, sizeArg string, size int, backward bool) []string {
	t.Helper()
	var pages [][]string
	seen := map[string]bool{}
	vars := map[string]any{sizeArg: size}
	for range 10000 {
		c, r := l.page(k, vars)
		if len(r.Errors) > 0 {
			t.Fatalf("%s %v: %s", l.name, vars, r.Body)
		}
		c.check(t, fmt.Sprintf("%s %v", l.name, vars))
		for _, id := range c.ids() {
			if seen[id] {
				t.Fatalf("%s walk (%s, backward %v) repeats %s", l.name, sizeArg, backward, id)
			}
			seen[id] = true
		}
		if len(c.Nodes) > size || (len(c.Nodes) < size && (c.PageInfo.HasNextPage && !backward || c.PageInfo.HasPreviousPage && backward)) {
			t.Fatalf("%s %v: %d rows of %d with more to come", l.name, vars, len(c.Nodes), size)
		}
		pages = append(pages, c.ids())
		if backward {
			if !c.PageInfo.HasPreviousPage {
				break
			}
			vars["before"] = *c.PageInfo.StartCursor
		} else {
			if !c.PageInfo.HasNextPage {
				break
			}
			vars["after"] = *c.PageInfo.EndCursor
		}
	}
	if backward {
		slices.Reverse(pages)
	}
	return slices.Concat(pages...)
}

// suffixOf reports whether got is the tail of want: a walk that began
// while rows were being added at the list's head holds the rows that were
// there when it began, or when it ended (backwards), none skipped.
func suffixOf(got, want []string) bool {
	return len(got) <= len(want) && slices.Equal(got, want[len(want)-len(got):])
}

// TestConnectionsPageBothWays walks every connection with limit/after,
// first/after and last/before while rows are added at its head: no row is
// skipped or repeated, and once the adding stops every walk returns the
// same rows in the same order.
func TestConnectionsPageBothWays(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		seed func(k *testkit.Kit) (relayList, func(i int))
	}{
		{"agents", seedAgents},
		{"transactions", seedTransactions},
		{"disputes", seedDisputes},
		{"deliveries", seedDeliveries},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			k := testkit.New(t)
			list, add := tc.seed(k)
			for i := range 23 {
				add(i)
			}
			var stop atomic.Bool
			var wg sync.WaitGroup
			t.Cleanup(func() { stop.Store(true); wg.Wait() })
			wg.Go(func() {
				for i := 23; i < 60 && !stop.Load(); i++ {
					add(i)
				}
			})
			var during [][]string
			for _, w := range []struct {
				arg      string
				size     int
				backward bool
			}{{"limit", 4, false}, {"first", 5, false}, {"last", 4, true}, {"last", 7, true}} {
				during = append(during, walk(t, k, list, w.arg, w.size, w.backward))
			}
			stop.Store(true)
			wg.Wait()
			final := walk(t, k, list, "limit", 200, false)
			if len(final) < 23 {
				t.Fatalf("%d rows, want at least the 23 seeded", len(final))
			}
			for i, got := range during {
				if len(got) < 23 || !suffixOf(got, final) {
					t.Fatalf("walk %d during inserts: %d rows, not a tail of the %d rows after them", i, len(got), len(final))
				}
			}
			for _, w := range []struct {
				arg      string
				size     int
				backward bool
			}{{"limit", 6, false}, {"first", 6, false}, {"last", 6, true}, {"last", 1, true}, {"first", 200, false}, {"last", 200, true}} {
				if got := walk(t, k, list, w.arg, w.size, w.backward); !slices.Equal(got, final) {
					t.Fatalf("%s %d walk: %d rows, want the same %d rows in the same order", w.arg, w.size, len(got), len(final))
				}
			}
			checkEdgeCursors(t, k, list, final)
		})
	}
}

// checkEdgeCursors pages from an edge's cursor in the middle of the list,
// both ways.
func checkEdgeCursors(t *testing.T, k *testkit.Kit, l relayList, final []string) {
	t.Helper()
	c, _ := l.page(k, map[string]any{"first": 20})
	mid := c.Edges[10].Cursor
	after, _ := l.page(k, map[string]any{"first": 3, "after": mid})
	if !slices.Equal(after.ids(), final[11:14]) || !after.PageInfo.HasPreviousPage || !after.PageInfo.HasNextPage {
		t.Fatalf("first 3 after edge 10: %v %+v, want %v", after.ids(), after.PageInfo, final[11:14])
	}
	before, _ := l.page(k, map[string]any{"last": 3, "before": mid})
	if !slices.Equal(before.ids(), final[7:10]) || !before.PageInfo.HasPreviousPage || !before.PageInfo.HasNextPage {
		t.Fatalf("last 3 before edge 10: %v %+v, want %v", before.ids(), before.PageInfo, final[7:10])
	}
	top, _ := l.page(k, map[string]any{"last": 5, "before": c.Edges[2].Cursor})
	if !slices.Equal(top.ids(), final[:2]) || top.PageInfo.HasPreviousPage {
		t.Fatalf("last 5 before edge 2: %v %+v, want %v", top.ids(), top.PageInfo, final[:2])
	}
}

func seedAgents(k *testkit.Kit) (relayList, func(int)) {
	return rootList("agents"), func(i int) {
		if _, err := registerRange(k, "relay", i, i+1); err != nil {
			k.T.Error(err)
		}
	}
}

func seedTransactions(k *testkit.Kit) (relayList, func(int)) {
	from := k.Register(map[string]any{"spendingLimit": "1000000"})
	to := k.Register(nil)
	return rootList("transactions"), func(i int) {
		if r := k.Execute(k.Key, testkit.Pay(from, to, "1.00")); len(r.Errors) > 0 {
			k.T.Errorf("execute %d: %s", i, r.Body)
		}
	}
}

func seedDisputes(k *testkit.Kit) (relayList, func(int)) {
	from := k.Register(map[string]any{"spendingLimit": "1000000"})
	to := k.Register(nil)
	return rootList("disputes"), func(i int) {
		var tx testkit.Transaction
		r := k.Execute(k.Key, testkit.Pay(from, to, "1.00"))
		if len(r.Errors) > 0 {
			k.T.Errorf("execute %d: %s", i, r.Body)
			return
		}
		r.Into(k.T, "executeTransaction", &tx)
		if r := k.Report(k.Key, to.ID, fmt.Sprintf("dispute %d", i), tx.ID); len(r.Errors) > 0 {
			k.T.Errorf("report %d: %s", i, r.Body)
		}
	}
}

// seedDeliveries stores an endpoint and its attempts directly: each call
// adds two batches of three, newer than every earlier one, that overlap in
// time as side-by-side jobs' do (the second's oldest attempt is older than
// the first's newest), the first's last two attempts sharing a time (the id
// breaks the tie).
func seedDeliveries(k *testkit.Kit) (relayList, func(int)) {
	whID := "wh_relay" + strings.ToLower(k.OrgID[len("org_"):])
	k.Exec(`INSERT INTO webhooks (id, org_id, url, events, secret_sealed, created_at, updated_at)
		VALUES ($1, $2, 'https://example.com/', '{*}', 'x', now(), now())`, whID, k.OrgID)
	return deliveriesList(whID), func(i int) {
		k.Exec(`INSERT INTO webhook_attempt_batches (webhook_id, last_at, id, first_at, n, lo_seq, hi_seq, job_id, run, ids, event_ids,
				event_seqs, event_types, attempts, success, status_codes, latencies_ms, errors, bodies, created_ats)
			SELECT $1, max(at), min(id), min(at), 3, min(seq), max(seq), min(seq), 1, array_agg(id ORDER BY at, id),
				array_agg('evt_x' || seq ORDER BY at, id), array_agg(seq ORDER BY at, id), array_agg('agent.registered'::text ORDER BY at, id),
				array_agg(1 ORDER BY at, id), array_agg(true ORDER BY at, id), array_agg(204 ORDER BY at, id), array_agg(5 ORDER BY at, id),
				array_agg(NULL::text ORDER BY at, id), array_agg(''::text ORDER BY at, id), array_agg(at ORDER BY at, id)
			FROM (SELECT h, ($2 * 6 + h * 3 + g)::bigint AS seq, 'dlv_' || lpad(($2 * 6 + h * 3 + g)::text, 6, '0') AS id,
				timestamptz '2026-11-01T00:00:00Z' + make_interval(secs => $2 * 1000 + h * 100 + (g + 1) / 2 * 500) AS at
				FROM generate_series(0, 1) AS h, generate_series(0, 2) AS g) s
			GROUP BY h`, whID, i)
	}
}
