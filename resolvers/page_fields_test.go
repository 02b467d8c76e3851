package resolvers_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/vektah/gqlparser/v2/ast"

	"github.com/agenttrust/service/graph"
	"github.com/agenttrust/service/internal/testkit"
)

// A page reads only the columns of the fields its nodes select: every leaf
// field of a page's node type, asked for alone beside id (as nodes, and as
// edges' node through a Node fragment), answers what the page answers when
// every field is asked for, on rows where each field has a value.
func TestPageFieldsAlone(t *testing.T) {
	t.Parallel()
	w := setupApprovals(t)
	k := w.k
	paid := k.MustExecute(k.Key, map[string]any{"fromAgent": w.buyer.ID, "toAgent": w.seller.ID, "action": "purchase",
		"amount": "100", "currency": "USD", "memo": "first"})
	k.Reverse(k.Key, paid.ID, "refund").Into(t, "reverseTransaction", new(testkit.Transaction))
	var approved, declined testkit.Transaction
	k.Execute(k.Key, testkit.Pay(w.buyer, w.seller, "600")).Into(t, "executeTransaction", &approved)
	k.Approve(k.Key, approved.ID).Into(t, "approveTransaction", new(testkit.Transaction))
	k.Execute(k.Key, testkit.Pay(w.buyer, w.seller, "700")).Into(t, "executeTransaction", &declined)
	k.Decline(k.Key, declined.ID, "too much").Into(t, "declineTransaction", new(testkit.Transaction))
	k.Execute(k.Key, testkit.Pay(w.buyer, w.seller, "800")).Into(t, "executeTransaction", new(testkit.Transaction))
	m := k.MustCreateMandate(testkit.MandateInput(w.buyer, "300", nil))
	in := testkit.Pay(w.buyer, w.seller, "50")
	in["mandateId"] = m.ID
	var underMandate testkit.Transaction
	k.ExecuteUnder(k.Key, m.ID, in).Into(t, "executeTransaction", &underMandate)
	k.Report(k.Key, w.seller.ID, "never delivered", underMandate.ID).Into(t, "reportAgent", new(testkit.Dispute))
	var withdrawn testkit.Dispute
	k.Report(k.Key, w.seller.ID, "late", approved.ID).Into(t, "reportAgent", &withdrawn)
	k.Withdraw(k.Key, withdrawn.ID).Into(t, "withdrawDispute", new(testkit.Dispute))
	k.Register(map[string]any{"name": "second", "dailyLimit": "50"})

	schema := graph.NewExecutableSchema(graph.Config{}).Schema()
	for _, c := range []struct{ typ, list string }{
		{"Transaction", "transactions(limit: 50)"},
		{"Dispute", "disputes(limit: 50)"},
		{"Agent", "agents(limit: 50)"},
	} {
		t.Run(c.typ, func(t *testing.T) {
			fields := leafFields(schema, c.typ)
			page := func(sel string) []map[string]json.RawMessage {
				t.Helper()
				var conn struct {
					Nodes []map[string]json.RawMessage
					Edges []struct{ Node map[string]json.RawMessage }
				}
				q := fmt.Sprintf(`{ page: %s { nodes { id %s } edges { node { id ... on Node { ... on %s { %s } } } } } }`,
					c.list, sel, c.typ, sel)
				k.Query(q, nil).Into(t, "page", &conn)
				if len(conn.Edges) != len(conn.Nodes) {
					t.Fatalf("%s: %d edges, %d nodes", sel, len(conn.Edges), len(conn.Nodes))
				}
				for i, e := range conn.Edges {
					if fmt.Sprint(e.Node) != fmt.Sprint(conn.Nodes[i]) {
						t.Fatalf("%s: edge %d's node %s, nodes' %s", sel, i, e.Node, conn.Nodes[i])
					}
				}
				return conn.Nodes
			}
			all := page(joinFields(fields))
			if len(all) < 2 {
				t.Fatalf("%d %s rows", len(all), c.typ)
			}
			for _, f := range fields {
				valued := false
				alone := page(f)
				if len(alone) != len(all) {
					t.Fatalf("%s alone: %d rows, %d with every field", f, len(alone), len(all))
				}
				for i, n := range alone {
					if string(n["id"]) != string(all[i]["id"]) || string(n[f]) != string(all[i][f]) {
						t.Fatalf("%s alone, row %d: %s %s; with every field %s %s", f, i, n["id"], n[f], all[i]["id"], all[i][f])
					}
					valued = valued || (string(n[f]) != "null" && string(n[f]) != "[]")
				}
				if !valued {
					t.Errorf("%s.%s has no value on any row: the test proves nothing for it", c.typ, f)
				}
			}
			if c.typ != "Agent" {
				return
			}
			// An agent's trust, read with the page: each of its fields alone
			// answers what trustProfile answers for the agent.
			trustFields := leafFields(schema, "TrustProfile")
			profiles := map[string]map[string]json.RawMessage{}
			for _, n := range all {
				var id string
				_ = json.Unmarshal(n["id"], &id)
				var prof map[string]json.RawMessage
				k.Query(`query($id: ID!) { trustProfile(agentId: $id) { `+joinFields(trustFields)+`} }`, map[string]any{"id": id}).
					Into(t, "trustProfile", &prof)
				profiles[string(n["id"])] = prof
			}
			for _, f := range trustFields {
				for i, n := range page("trust { " + f + " }") {
					var got map[string]json.RawMessage
					want := profiles[string(n["id"])]
					if json.Unmarshal(n["trust"], &got) != nil || string(got[f]) != string(want[f]) || len(got) != 1 {
						t.Fatalf("trust.%s alone, row %d: %s; trustProfile %s", f, i, n["trust"], want[f])
					}
				}
			}
		})
	}
}

// leafFields are the fields of the object type typ that take no arguments
// and answer a scalar, an enum or a list of them.
func leafFields(s *ast.Schema, typ string) []string {
	var out []string
	for _, f := range s.Types[typ].Fields {
		kind := s.Types[f.Type.Name()].Kind
		if len(f.Arguments) == 0 && (kind == ast.Scalar || kind == ast.Enum) && f.Name != "id" {
			out = append(out, f.Name)
		}
	}
	return out
}

func joinFields(fields []string) string {
	out := ""
	for _, f := range fields {
		out += f + " "
	}
	return out
}
