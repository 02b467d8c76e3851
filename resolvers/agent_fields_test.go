package resolvers_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/vektah/gqlparser/v2/ast"

	"github.com/agenttrust/service/graph"
	"github.com/agenttrust/service/internal/testkit"
)

// agentSelection asks for everything of an Agent that is read ahead
// (trust, audit chain pages) or resolved on its own (policyUsage): a field
// returning an Agent that forgot to preload fails on it.
const agentSelection = `id trust { score assessment contributions { factor } } auditChain(limit: 2) { sequence }
 policyUsage { spendLimits { remaining } }`

// agentFieldCalls has a call for every field of the schema whose type is an
// Agent or a list of them, or a Node (which may be one): the document and
// its variables for an agent id, an admin's key.
var agentFieldCalls = map[string]func(id string) (string, map[string]any){
	"Query.agent": func(id string) (string, map[string]any) {
		return `query($id: ID!) { agent(id: $id) { ` + agentSelection + ` } }`, map[string]any{"id": id}
	},
	"Query.node": func(id string) (string, map[string]any) {
		return `query($id: ID!) { node(id: $id) { ... on Agent { ` + agentSelection + ` } } }`, map[string]any{"id": id}
	},
	"Query.nodes": func(id string) (string, map[string]any) {
		return `query($id: ID!) { nodes(ids: [$id]) { ... on Agent { ` + agentSelection + ` } } }`, map[string]any{"id": id}
	},
	"AgentConnection.nodes": func(string) (string, map[string]any) {
		return `{ agents(limit: 1) { nodes { ` + agentSelection + ` } } }`, nil
	},
	"AgentEdge.node": func(string) (string, map[string]any) {
		return `{ agents(limit: 1) { edges { node { ` + agentSelection + ` } } } }`, nil
	},
	"Mutation.registerAgent": func(string) (string, map[string]any) {
		return `mutation($in: RegisterAgentInput!) { registerAgent(input: $in) { ` + agentSelection + ` } }`,
			map[string]any{"in": testkit.RegisterInput(map[string]any{"name": "new", "dailyLimit": "10"})}
	},
	"Mutation.updateAgent": func(id string) (string, map[string]any) {
		return `mutation($id: ID!) { updateAgent(id: $id, input: {name: "renamed"}) { ` + agentSelection + ` } }`, map[string]any{"id": id}
	},
	"Mutation.setAgentPolicy": func(id string) (string, map[string]any) {
		return `mutation($id: ID!) { setAgentPolicy(agentId: $id, input: {timezone: "UTC"}) { ` + agentSelection + ` } }`, map[string]any{"id": id}
	},
	"Mutation.suspendAgent": func(id string) (string, map[string]any) {
		return `mutation($id: ID!) { suspendAgent(id: $id, reason: "test") { ` + agentSelection + ` } }`, map[string]any{"id": id}
	},
	"Mutation.reinstateAgent": func(id string) (string, map[string]any) {
		return `mutation($id: ID!) { reinstateAgent(id: $id, reason: "test") { ` + agentSelection + ` } }`, map[string]any{"id": id}
	},
}

// Every field of the schema that returns an Agent (or a Node) answers the
// read-ahead fields: a new one missing from agentFieldCalls fails here, and
// one that forgot to preload fails on its call.
func TestEveryAgentFieldPreloads(t *testing.T) {
	t.Parallel()
	s := graph.NewExecutableSchema(graph.Config{}).Schema()
	var fields []string
	for _, def := range s.Types {
		if def.Kind != ast.Object || strings.HasPrefix(def.Name, "__") {
			continue
		}
		for _, f := range def.Fields {
			if name := f.Type.Name(); name == "Agent" || name == "Node" {
				fields = append(fields, def.Name+"."+f.Name)
			}
		}
	}
	slices.Sort(fields)
	if len(fields) < len(agentFieldCalls) {
		t.Fatalf("the schema has %d fields returning an Agent, the table %d: %v", len(fields), len(agentFieldCalls), fields)
	}
	k := testkit.New(t)
	a := k.Register(map[string]any{"dailyLimit": "50"})
	order := []string{} // reinstate after suspend
	for _, f := range fields {
		if f != "Mutation.reinstateAgent" {
			order = append(order, f)
		}
	}
	if slices.Contains(fields, "Mutation.reinstateAgent") {
		order = append(order, "Mutation.reinstateAgent")
	}
	for _, f := range order {
		call := agentFieldCalls[f]
		if call == nil {
			t.Errorf("%s returns an Agent but agentFieldCalls has no call for it", f)
			continue
		}
		query, vars := call(a.ID)
		r := k.Do(k.Key, query, vars)
		if len(r.Errors) > 0 {
			t.Errorf("%s: %s", f, r.Body)
			continue
		}
		if !strings.Contains(r.Body, `"policyUsage":{"spendLimits":[{"remaining":`) || !strings.Contains(r.Body, `"auditChain":[{"sequence":1}`) {
			t.Errorf("%s answered without the read-ahead fields: %s", f, r.Body)
		}
	}
}
