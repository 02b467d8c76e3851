package resolvers_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/agenttrust/service/internal/testkit"
)

const nodesQuery = `query($ids: [ID!]!) { nodes(ids: $ids) { __typename id
	... on Agent { name trust { score } } ... on Transaction { amount } ... on Dispute { reason }
	... on Webhook { url } ... on WebhookDelivery { eventType } ... on Event { type } ... on Mandate { remaining } } }`

const nodeQuery = `query($id: ID!) { node(id: $id) { __typename id ... on Agent { trust { score } } } }`

type nodeAnswer struct {
	Typename string `json:"__typename"`
	ID       string `json:"id"`
	Trust    *struct{ Score int }
}

// nodeWorld is one of each Node type in the kit's organization, and an
// agent and an endpoint of another one.
type nodeWorld struct {
	own    map[string]string // id -> __typename
	others []string
}

func seedNodeWorld(t *testing.T, k *testkit.Kit) nodeWorld {
	from := k.Register(map[string]any{"spendingLimit": "1000"})
	to := k.Register(nil)
	tx := k.MustExecute(k.Key, testkit.Pay(from, to, "2.00"))
	var d testkit.Dispute
	k.Report(k.Key, to.ID, "node test", tx.ID).Into(t, "reportAgent", &d)
	m := k.MustCreateMandate(testkit.MandateInput(from, "10", nil))
	w := nodeWorld{own: map[string]string{from.ID: "Agent", to.ID: "Agent", tx.ID: "Transaction", d.ID: "Dispute", m.ID: "Mandate"}}
	for _, org := range []struct{ id, wh string }{{k.OrgID, "wh_nodeown"}, {"", "wh_nodeother"}} {
		orgID := org.id
		if orgID == "" {
			var key string
			orgID, key = k.NewOrg("other")
			stranger := k.RegisterAs(key, nil)
			var theirs testkit.Mandate
			k.CreateMandate(key, testkit.MandateInput(stranger, "10", nil)).Into(t, "createMandate", &theirs)
			w.others = append(w.others, stranger.ID, org.wh, "dlv_nodeother", theirs.ID)
		} else {
			w.own[org.wh], w.own["dlv_nodeown"] = "Webhook", "WebhookDelivery"
		}
		k.Exec(`INSERT INTO webhooks (id, org_id, url, events, secret_sealed, created_at, updated_at)
			VALUES ($1, $2, 'https://example.com/', '{*}', 'x', now(), now())`, org.wh, orgID)
		k.Exec(`INSERT INTO webhook_attempt_batches (webhook_id, last_at, id, first_at, n, lo_seq, hi_seq, job_id, run, ids, event_ids,
				event_seqs, event_types, attempts, success, status_codes, latencies_ms, errors, bodies, created_ats)
			VALUES ($1, now(), $2, now(), 1, 1, 1, 1, 1, ARRAY[$2], '{evt_x}', '{1}', '{agent.registered}', '{1}', '{t}', '{204}',
				'{5}', '{NULL}', '{""}', ARRAY[now()])`, org.wh, "dlv_"+org.wh[len("wh_"):])
	}
	ev := k.Events(k.OrgID)
	w.own[ev[len(ev)-1].ID] = "Event"
	return w
}

func TestNodeAndNodes(t *testing.T) {
	t.Parallel()
	k := testkit.New(t)
	w := seedNodeWorld(t, k)
	for id, typ := range w.own {
		var n nodeAnswer
		k.Query(nodeQuery, map[string]any{"id": id}).Into(t, "node", &n)
		if n.ID != id || n.Typename != typ || (typ == "Agent") != (n.Trust != nil) {
			t.Errorf("node(%s) = %+v, want a %s", id, n, typ)
		}
	}
	for _, id := range append([]string{"agent_unknown", "tx_unknown", "nothing_x", "evt_unknown"}, w.others...) {
		k.Do(k.Key, nodeQuery, map[string]any{"id": id}).Refused(t, "NOT_FOUND")
	}

	var ids []string
	for id := range w.own {
		ids = append(ids, id, "nothing_"+id)
	}
	ids = append(ids, w.others...)
	ids = append(ids, ids[0]) // asked twice, answered twice
	var got []*nodeAnswer
	k.Query(nodesQuery, map[string]any{"ids": ids}).Into(t, "nodes", &got)
	if len(got) != len(ids) {
		t.Fatalf("nodes answered %d, want %d", len(got), len(ids))
	}
	for i, id := range ids {
		typ, own := w.own[id]
		switch {
		case !own && got[i] != nil:
			t.Errorf("nodes[%d] (%s) = %+v, want null", i, id, got[i])
		case own && (got[i] == nil || got[i].ID != id || got[i].Typename != typ):
			t.Errorf("nodes[%d] = %+v, want the %s %s", i, got[i], typ, id)
		}
	}
}

// nodes reads each type in one statement whatever the number of ids, the
// agents' trust read ahead with them.
func TestNodesStatementCount(t *testing.T) {
	t.Parallel()
	k := testkit.New(t)
	agents := registerMany(k, 12)
	statements := func(ids []string) int64 {
		before := k.DB.Statements()
		var got []*nodeAnswer
		k.Query(nodesQuery, map[string]any{"ids": ids}).Into(t, "nodes", &got)
		for i, n := range got {
			if n == nil || n.ID != ids[i] || n.Trust == nil {
				t.Fatalf("nodes[%d] = %+v, want agent %s with trust", i, n, ids[i])
			}
		}
		return k.DB.Statements() - before
	}
	if two, twelve := statements(agents[:2]), statements(agents); two != twelve {
		t.Fatalf("statements: %d for 2 agents, %d for 12", two, twelve)
	}
	many := make([]string, 201)
	for i := range many {
		many[i] = fmt.Sprintf("agent_%d", i)
	}
	if got := k.Do(k.Key, nodesQuery, map[string]any{"ids": many}).Fields(t); !slices.Equal(got, []string{"ids"}) {
		t.Fatalf("201 ids: fieldErrors %v", got)
	}
	if got := k.Do(k.Key, nodesQuery, map[string]any{"ids": many[:200]}); len(got.Errors) > 0 {
		t.Fatalf("200 ids: %s", got.Body)
	}
}

// edges are built from the page's own rows, with what their nodes select
// read ahead like nodes': selecting both costs no second read.
func TestEdgesCostNoSecondRead(t *testing.T) {
	t.Parallel()
	k := testkit.New(t)
	registerMany(k, 8)
	statements := func(sel string) (int64, *testkit.Response) {
		before := k.DB.Statements()
		r := k.Query(`{ agents(first: 5) { `+sel+` } }`, nil)
		return k.DB.Statements() - before, r
	}
	nodes, _ := statements(`nodes { id trust { score } }`)
	both, _ := statements(`nodes { id trust { score } } edges { cursor node { id trust { score } } }`)
	edgesOnly, r := statements(`edges { cursor node { id trust { score } auditChain(limit: 1) { sequence } } }`)
	withChain, _ := statements(`nodes { id trust { score } auditChain(limit: 1) { sequence } }`)
	if nodes != both || edgesOnly != withChain {
		t.Fatalf("statements: nodes %d, nodes and edges %d; edges with chains %d, nodes with chains %d", nodes, both, edgesOnly, withChain)
	}
	var c struct {
		Edges []struct {
			Node struct{ Trust struct{ Score int } }
		}
	}
	r.Into(t, "agents", &c)
	if len(c.Edges) != 5 || c.Edges[0].Node.Trust.Score == 0 {
		t.Fatalf("edges: %+v", c.Edges)
	}
}

func TestRelayArgumentValidation(t *testing.T) {
	t.Parallel()
	k := testkit.New(t)
	registerMany(k, 3)
	const q = `query($limit: Int, $first: Int, $last: Int, $after: String, $before: String) {
		agents(limit: $limit, first: $first, last: $last, after: $after, before: $before) { nodes { id } } }`
	c, _ := rootList("agents").page(k, map[string]any{"first": 2})
	cursor := *c.PageInfo.EndCursor
	for _, tc := range []struct {
		vars  map[string]any
		field string
	}{
		{map[string]any{"limit": 2, "first": 2}, "first"},
		{map[string]any{"first": 0}, "first"},
		{map[string]any{"first": 201}, "first"},
		{map[string]any{"last": 0}, "last"},
		{map[string]any{"last": 201}, "last"},
		{map[string]any{"last": 2, "after": cursor}, "last"},
		{map[string]any{"last": 2, "first": 2}, "last"},
		{map[string]any{"before": cursor, "limit": 2}, "last"},
		{map[string]any{"last": 2, "before": "garbage"}, "before"},
	} {
		if got := k.Do(k.Key, q, tc.vars).Fields(t); !slices.Equal(got, []string{tc.field}) {
			t.Errorf("%v: fieldErrors %v, want [%s]", tc.vars, got, tc.field)
		}
	}
	for _, vars := range []map[string]any{{"limit": nil, "first": 2}, {"first": 2, "after": cursor}, {"before": cursor}, {"last": 2}} {
		if r := k.Do(k.Key, q, vars); len(r.Errors) > 0 {
			t.Errorf("%v: %s", vars, r.Body)
		}
	}
}
