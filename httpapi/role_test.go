package httpapi_test

import (
	"context"
	"encoding/json"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agenttrust/service/auth"
	"github.com/agenttrust/service/graph"
	"github.com/agenttrust/service/httpapi"
	"github.com/agenttrust/service/internal/testkit"
)

// roleWorld is an organization with two agents its agent key may act for
// one of (a), one it may not (b), a spare agent for state changes (c), an
// agent of another organization (x), and a key of every role.
type roleWorld struct {
	k          *testkit.Kit
	a, b, c, x testkit.Agent
	keys       map[auth.Role]string
	tx         testkit.Transaction // a completed a → x
	dispute    string              // filed by the admin key on tx
}

// actor is who sends an operation: a key of a role, acting for agent.
type actor struct {
	name  string
	role  auth.Role
	key   string
	agent testkit.Agent
	// other: an agent key acting for an agent of its organization it does
	// not act for.
	other bool
}

func setupRoles(t *testing.T) *roleWorld {
	k := testkit.New(t)
	w := &roleWorld{k: k, keys: map[auth.Role]string{auth.RoleAdmin: k.Key}}
	w.a = k.Register(map[string]any{"name": "a", "spendingLimit": "1000"})
	w.b = k.Register(map[string]any{"name": "b", "spendingLimit": "1000"})
	w.c = k.Register(map[string]any{"name": "c"})
	k.SetPolicy(k.Key, w.b.ID, map[string]any{"approval": map[string]any{"above": "500", "expiresAfterSeconds": 3600}})
	_, otherKey := k.NewOrg("other")
	w.x = k.RegisterAs(otherKey, nil)
	_, w.keys[auth.RoleAgent] = k.IssueKey(auth.RoleAgent, w.a.ID)
	_, w.keys[auth.RoleReadonly] = k.IssueKey(auth.RoleReadonly)
	w.tx = w.pay(w.a)
	var d testkit.Dispute
	k.Report(k.Key, w.x.ID, "never delivered", w.tx.ID).Into(t, "reportAgent", &d)
	w.dispute = d.ID
	// A key's first request records its use; later ones, within the
	// minute, write nothing.
	for _, key := range w.keys {
		k.Do(key, testkit.WhoamiQuery, nil).Into(t, "whoami", new(testkit.APIKey))
	}
	return w
}

func (w *roleWorld) actors() []actor {
	return []actor{
		{name: "readonly", role: auth.RoleReadonly, key: w.keys[auth.RoleReadonly], agent: w.a},
		{name: "agent for another agent", role: auth.RoleAgent, key: w.keys[auth.RoleAgent], agent: w.b, other: true},
		{name: "agent", role: auth.RoleAgent, key: w.keys[auth.RoleAgent], agent: w.a},
		{name: "admin", role: auth.RoleAdmin, key: w.keys[auth.RoleAdmin], agent: w.a},
	}
}

// pay completes a fresh transaction from one of the organization's agents
// to x, as the admin key.
func (w *roleWorld) pay(from testkit.Agent) testkit.Transaction {
	return w.k.MustExecute(w.k.Key, testkit.Pay(from, w.x, "1"))
}

// pending is a new transaction b → x waiting for approval (b's policy
// makes amounts over 500 wait).
func (w *roleWorld) pending() testkit.Transaction {
	tx := w.k.MustExecute(w.k.Key, testkit.Pay(w.b, w.x, "600"))
	if tx.Status != "pending_approval" {
		w.k.T.Fatalf("600 from b: %s, want pending_approval", tx.Status)
	}
	return tx
}

// mandate grants a fresh mandate to one of the organization's agents, as the admin key.
func (w *roleWorld) mandate(a testkit.Agent) testkit.Mandate {
	return w.k.MustCreateMandate(testkit.MandateInput(a, "10", nil))
}

// call is one operation to send: a GraphQL document and its variables.
type call struct {
	doc  string
	vars map[string]any
}

// gqlCalls has a call for every root field of the schema: one that
// succeeds when the actor's role allows it, except the webhook operations,
// which name no endpoint (registering one needs a reachable receiver) and
// answer NOT_FOUND or VALIDATION_FAILED. A builder may prepare what the call
// needs (as the admin key) before it is made.
var gqlCalls = map[string]func(w *roleWorld, as actor) call{
	"Query.agent": func(w *roleWorld, as actor) call {
		return call{`query($id: ID!) { agent(id: $id) { id } }`, vars("id", as.agent.ID)}
	},
	"Query.agents": func(*roleWorld, actor) call { return call{`{ agents { totalCount } }`, nil} },
	"Query.verifyAgent": func(w *roleWorld, as actor) call {
		return call{`query($id: ID!) { verifyAgent(id: $id) { verified } }`, vars("id", as.agent.ID)}
	},
	"Query.agentAuditChain": func(w *roleWorld, as actor) call {
		return call{`query($id: ID!) { agentAuditChain(agentId: $id) { action } }`, vars("id", as.agent.ID)}
	},
	"Query.transaction": func(w *roleWorld, _ actor) call {
		return call{`query($id: ID!) { transaction(id: $id) { id } }`, vars("id", w.tx.ID)}
	},
	"Query.transactions":       func(*roleWorld, actor) call { return call{`{ transactions { totalCount } }`, nil} },
	"Query.exportTransactions": func(*roleWorld, actor) call { return call{`{ exportTransactions(format: json) { count } }`, nil} },
	"Query.trustProfile": func(w *roleWorld, _ actor) call {
		return call{`query($id: ID!) { trustProfile(agentId: $id) { score } }`, vars("id", w.x.ID)}
	},
	"Query.evaluateTrust": func(w *roleWorld, as actor) call {
		return call{evaluateQuery, vars("in", map[string]any{"agentId": as.agent.ID, "action": "purchase", "amount": "1", "currency": "USD"})}
	},
	"Query.batchTrust": func(w *roleWorld, _ actor) call {
		return call{`query($ids: [ID!]!) { batchTrust(agentIds: $ids) { score } }`, vars("ids", []string{w.x.ID})}
	},
	"Query.trustHistory": func(w *roleWorld, _ actor) call {
		return call{`query($id: ID!) { trustHistory(agentId: $id) { score } }`, vars("id", w.x.ID)}
	},
	"Query.dispute": func(w *roleWorld, _ actor) call {
		return call{`query($id: ID!) { dispute(id: $id) { id } }`, vars("id", w.dispute)}
	},
	"Query.disputes": func(*roleWorld, actor) call { return call{`{ disputes { totalCount } }`, nil} },
	"Query.node": func(w *roleWorld, as actor) call {
		return call{`query($id: ID!) { node(id: $id) { id } }`, vars("id", as.agent.ID)}
	},
	"Query.nodes": func(w *roleWorld, as actor) call {
		return call{`query($ids: [ID!]!) { nodes(ids: $ids) { id } }`, vars("ids", []string{as.agent.ID})}
	},
	"Query.webhooks": func(*roleWorld, actor) call { return call{`{ webhooks { id } }`, nil} },
	"Query.webhook":  func(*roleWorld, actor) call { return call{`{ webhook(id: "wh_none") { id } }`, nil} },
	"Query.apiKeys":  func(*roleWorld, actor) call { return call{testkit.APIKeysQuery, nil} },
	"Query.whoami":   func(*roleWorld, actor) call { return call{testkit.WhoamiQuery, nil} },
	"Query.mandate": func(w *roleWorld, _ actor) call {
		return call{`query($id: ID!) { mandate(id: $id) { id } }`, vars("id", w.mandate(w.a).ID)}
	},
	"Query.mandates": func(*roleWorld, actor) call { return call{`{ mandates { totalCount } }`, nil} },
	"Query.spendSeries": func(w *roleWorld, as actor) call {
		return call{`query($id: ID) { spendSeries(agentId: $id, bucket: DAY, since: "2026-01-01T00:00:00Z", until: "2026-01-02T00:00:00Z") { count } }`,
			vars("id", as.agent.ID)}
	},
	"Query.overview": func(*roleWorld, actor) call { return call{`{ overview { pendingApprovals } }`, nil} },
	"Query.simulatePolicy": func(w *roleWorld, as actor) call {
		return call{`query($id: ID!) { simulatePolicy(agentId: $id, policy: {}, since: "2026-01-01T00:00:00Z") { replayed } }`,
			vars("id", as.agent.ID)}
	},

	"Mutation.registerAgent": func(*roleWorld, actor) call {
		return call{testkit.RegisterMutation, vars("input", testkit.RegisterInput(nil))}
	},
	"Mutation.updateAgent": func(w *roleWorld, _ actor) call {
		return call{`mutation($id: ID!) { updateAgent(id: $id, input: {spendingLimit: "1"}) { id } }`, vars("id", w.c.ID)}
	},
	"Mutation.setAgentPolicy": func(w *roleWorld, _ actor) call {
		return call{`mutation($id: ID!) { setAgentPolicy(agentId: $id, input: {timezone: "UTC"}) { id } }`, vars("id", w.c.ID)}
	},
	"Mutation.suspendAgent": func(w *roleWorld, _ actor) call {
		return call{`mutation($id: ID!) { suspendAgent(id: $id) { id } }`, vars("id", w.c.ID)}
	},
	"Mutation.reinstateAgent": func(w *roleWorld, _ actor) call {
		w.k.Do(w.k.Key, `mutation($id: ID!) { suspendAgent(id: $id) { id } }`, vars("id", w.c.ID))
		return call{`mutation($id: ID!) { reinstateAgent(id: $id) { id } }`, vars("id", w.c.ID)}
	},
	"Mutation.executeTransaction": func(w *roleWorld, as actor) call {
		return call{testkit.ExecuteMutation, vars("input", testkit.Pay(as.agent, w.x, "1"))}
	},
	"Mutation.reverseTransaction": func(w *roleWorld, _ actor) call {
		return call{testkit.ReverseMutation, map[string]any{"id": w.pay(w.a).ID, "reason": "refund"}}
	},
	"Mutation.approveTransaction": func(w *roleWorld, _ actor) call {
		return call{testkit.ApproveMutation, vars("id", w.pending().ID)}
	},
	"Mutation.declineTransaction": func(w *roleWorld, _ actor) call {
		return call{testkit.DeclineMutation, map[string]any{"id": w.pending().ID, "reason": "not needed"}}
	},
	"Mutation.reportAgent": func(w *roleWorld, as actor) call {
		in := map[string]any{"agentId": w.x.ID, "reason": "never delivered", "evidenceIds": []string{w.pay(as.agent).ID}}
		return call{testkit.ReportMutation, vars("in", in)}
	},
	"Mutation.withdrawDispute": func(w *roleWorld, as actor) call {
		filer := w.k.Key // another key filed it, unless the agent key withdraws its own
		if as.role == auth.RoleAgent && !as.other {
			filer = as.key
		}
		var d testkit.Dispute
		w.k.Report(filer, w.x.ID, "never delivered", w.pay(w.a).ID).Into(w.k.T, "reportAgent", &d)
		return call{testkit.WithdrawMutation, vars("id", d.ID)}
	},
	"Mutation.registerWebhook": func(*roleWorld, actor) call {
		return call{`mutation { registerWebhook(input: {url: "https://127.0.0.1/hook", events: ["*"]}) { id } }`, nil}
	},
	"Mutation.updateWebhook": func(*roleWorld, actor) call {
		return call{`mutation { updateWebhook(id: "wh_none", input: {active: false}) { id } }`, nil}
	},
	"Mutation.deleteWebhook": func(*roleWorld, actor) call { return call{`mutation { deleteWebhook(id: "wh_none") }`, nil} },
	"Mutation.testWebhook":   func(*roleWorld, actor) call { return call{`mutation { testWebhook(id: "wh_none") { success } }`, nil} },
	"Mutation.rotateWebhookSecret": func(*roleWorld, actor) call {
		return call{`mutation { rotateWebhookSecret(id: "wh_none") { id } }`, nil}
	},
	"Mutation.redeliverEvent": func(*roleWorld, actor) call {
		return call{`mutation { redeliverEvent(webhookId: "wh_none", eventId: "evt_none") }`, nil}
	},
	"Mutation.createApiKey": func(w *roleWorld, as actor) call {
		in := map[string]any{"name": "widened", "role": "agent", "agentIds": []string{w.a.ID, w.b.ID}}
		return call{testkit.CreateAPIKeyMutation, vars("in", in)}
	},
	"Mutation.revokeApiKey": func(w *roleWorld, _ actor) call {
		keyID, _ := w.k.IssueKey(auth.RoleReadonly)
		return call{testkit.RevokeAPIKeyMutation, vars("id", keyID)}
	},

	"Mutation.createMandate": func(w *roleWorld, as actor) call {
		return call{testkit.CreateMandateMutation, vars("in", testkit.MandateInput(as.agent, "10", nil))}
	},
	"Mutation.revokeMandate": func(w *roleWorld, as actor) call {
		return call{testkit.RevokeMandateMutation, vars("id", w.mandate(as.agent).ID)}
	},

	"Subscription.events": func(*roleWorld, actor) call { return call{`subscription { events { id } }`, nil} },
}

func vars(name string, v any) map[string]any { return map[string]any{name: v} }

// restCalls has a request for every REST route.
var restCalls = map[string]func(w *roleWorld) (method, target string, body any){
	"POST /webhooks": func(*roleWorld) (string, string, any) {
		return http.MethodPost, "/webhooks", map[string]any{"url": "https://127.0.0.1/hook", "events": []string{"*"}}
	},
	"GET /webhooks":      func(*roleWorld) (string, string, any) { return http.MethodGet, "/webhooks", nil },
	"GET /webhooks/{id}": func(*roleWorld) (string, string, any) { return http.MethodGet, "/webhooks/wh_none", nil },
	"PATCH /webhooks/{id}": func(*roleWorld) (string, string, any) {
		return http.MethodPatch, "/webhooks/wh_none", map[string]any{"active": false}
	},
	"DELETE /webhooks/{id}":             func(*roleWorld) (string, string, any) { return http.MethodDelete, "/webhooks/wh_none", nil },
	"POST /webhooks/{id}/test":          func(*roleWorld) (string, string, any) { return http.MethodPost, "/webhooks/wh_none/test", nil },
	"GET /webhooks/{id}/deliveries":     func(*roleWorld) (string, string, any) { return http.MethodGet, "/webhooks/wh_none/deliveries", nil },
	"POST /webhooks/{id}/secret/rotate": func(*roleWorld) (string, string, any) { return http.MethodPost, "/webhooks/wh_none/secret/rotate", nil },
	"POST /webhooks/{id}/redeliver": func(*roleWorld) (string, string, any) {
		return http.MethodPost, "/webhooks/wh_none/redeliver", map[string]any{"event_id": "evt_none"}
	},
	"GET /transactions/export": func(*roleWorld) (string, string, any) { return http.MethodGet, "/transactions/export?format=json", nil },
}

// allowed is what the contract (sections 9.1 and 10) says of as calling op,
// written from its words rather than read from auth.Operations, so a wrong
// entry in the table fails: every role reads (queries, subscriptions, REST
// GETs) except apiKeys, which is an admin's; an agent key also pays,
// reports and withdraws, for its own agents only (as evaluateTrust); every
// other write is an admin's. Section 10: an agent key reads spendSeries of
// its own agents only, and neither overview nor simulatePolicy.
func allowed(op string, as actor) bool {
	scoped := map[string]bool{"Query.evaluateTrust": true, "Mutation.executeTransaction": true,
		"Mutation.reportAgent": true, "Mutation.withdrawDispute": true}
	if as.other && (scoped[op] || op == "Query.spendSeries") {
		return false
	}
	if as.role == auth.RoleAgent && (op == "Query.overview" || op == "Query.simulatePolicy") {
		return false
	}
	read := strings.HasPrefix(op, "Query.") || strings.HasPrefix(op, "Subscription.") || strings.HasPrefix(op, "GET ")
	switch {
	case as.role == auth.RoleAdmin:
		return true
	case op == "Query.apiKeys":
		return false
	case read:
		return true
	}
	return as.role == auth.RoleAgent && scoped[op]
}

// schemaOperations lists every root field of the schema as "Type.field".
func schemaOperations(t *testing.T) []string {
	s := graph.NewExecutableSchema(graph.Config{}).Schema()
	var ops []string
	for _, root := range []string{"Query", "Mutation", "Subscription"} {
		for _, f := range s.Types[root].Fields {
			if !strings.HasPrefix(f.Name, "__") {
				ops = append(ops, root+"."+f.Name)
			}
		}
	}
	if len(ops) < 30 {
		t.Fatalf("the schema has %d root fields", len(ops))
	}
	return ops
}

// Every operation of the schema and every REST route (httpapi.RESTRoutes)
// has an entry in the authorization table and a call in this test's
// tables; the table names nothing else.
func TestRoleTableCoversEveryOperation(t *testing.T) {
	t.Parallel()
	ops := schemaOperations(t)
	for _, op := range ops {
		if _, ok := auth.Operations[op]; !ok {
			t.Errorf("%s has no entry in auth.Operations", op)
		}
		if gqlCalls[op] == nil {
			t.Errorf("%s has no call in gqlCalls", op)
		}
	}
	routes := httpapi.RESTRoutes()
	if len(routes) < 10 {
		t.Fatalf("the REST edge has %d routes", len(routes))
	}
	for _, op := range routes {
		if _, ok := auth.Operations[op]; !ok {
			t.Errorf("REST route %s has no entry in auth.Operations", op)
		}
		if restCalls[op] == nil {
			t.Errorf("REST route %s has no call in restCalls", op)
		}
	}
	for op := range auth.Operations {
		if !slices.Contains(ops, op) && !slices.Contains(routes, op) {
			t.Errorf("auth.Operations names %s, neither a root field nor a REST route", op)
		}
	}
}

// Every operation of the schema, over the real GraphQL handler, as every
// role (and an agent key acting for an agent it does not act for): allowed,
// or FORBIDDEN naming the role with the database unchanged.
func TestRolesGraphQL(t *testing.T) {
	t.Parallel()
	w := setupRoles(t)
	for _, op := range schemaOperations(t) {
		for _, as := range w.actors() {
			c := gqlCalls[op](w, as)
			before := w.k.Snapshot()
			r := send(w.k, as.key, op, c)
			forbidden := hasCode(r, "FORBIDDEN")
			if want := !allowed(op, as); forbidden != want {
				t.Errorf("%s as %s: forbidden %v, want %v: %s", op, as.name, forbidden, want, r.Body)
				continue
			}
			if !forbidden {
				if len(r.Errors) > 0 && !strings.Contains(strings.ToLower(op), "webhook") && op != "Mutation.redeliverEvent" {
					t.Errorf("%s as %s: allowed but failed: %s", op, as.name, r.Body)
				}
				continue
			}
			if msg := r.Errors[0].Message; !strings.Contains(msg, string(as.role)+" key may not "+auth.OperationName(op)) {
				t.Errorf("%s as %s: message %q names neither the role nor the operation", op, as.name, msg)
			}
			if d := diffSnapshots(before, w.k.Snapshot()); len(d) > 0 {
				t.Errorf("%s as %s was refused but changed %v", op, as.name, d)
			}
		}
	}
}

// send makes a call over POST, or over SSE for a subscription (read until
// the first event or a short while).
func send(k *testkit.Kit, key, op string, c call) *testkit.Response {
	if !strings.HasPrefix(op, "Subscription.") {
		return k.Do(key, c.doc, c.vars)
	}
	raw, _ := json.Marshal(map[string]any{"query": c.doc, "variables": c.vars})
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	req := testkit.Request(http.MethodPost, "/graphql", strings.NewReader(string(raw)),
		"Content-Type", "application/json", "Accept", "text/event-stream", "Authorization", "Bearer "+key).WithContext(ctx)
	r := k.Serve(req)
	if strings.Contains(r.Body, `"FORBIDDEN"`) {
		_, data, _ := strings.Cut(r.Body, "data: ")
		data, _, _ = strings.Cut(data, "\n")
		_ = json.Unmarshal([]byte(data), r)
	}
	return r
}

func hasCode(r *testkit.Response, code string) bool {
	for _, e := range r.Errors {
		if e.Extensions["code"] == code {
			return true
		}
	}
	return false
}

// Every REST route as every role: allowed, or 403 FORBIDDEN naming the role
// with the database unchanged.
func TestRolesREST(t *testing.T) {
	t.Parallel()
	w := setupRoles(t)
	for _, op := range slices.Sorted(maps.Keys(restCalls)) {
		for _, as := range w.actors() {
			method, target, body := restCalls[op](w)
			before := w.k.Snapshot()
			r := w.k.REST(as.key, method, target, body)
			if allowed(op, as) {
				if r.Status == http.StatusForbidden {
					t.Errorf("%s as %s: refused: %s", op, as.name, r.Body)
				}
				continue
			}
			r.Refused(t, http.StatusForbidden, "FORBIDDEN")
			if !strings.Contains(r.Body, string(as.role)+" key may not "+op) {
				t.Errorf("%s as %s: %s names neither the role nor the route", op, as.name, r.Body)
			}
			if d := diffSnapshots(before, w.k.Snapshot()); len(d) > 0 {
				t.Errorf("%s as %s was refused but changed %v", op, as.name, d)
			}
		}
	}
}

func diffSnapshots(before, after map[string]string) []string {
	var out []string
	for k, v := range before {
		if after[k] != v {
			out = append(out, k)
		}
	}
	return out
}
