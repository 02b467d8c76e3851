package hostile_test

import (
	"fmt"
	"net/http"
	"strings"
)

// injections are strings that have broken other services' parsers, queries
// and logs. Used as ids, cursors and codes they must be refused like any
// other unknown value.
var injections = []string{
	`' OR '1'='1`,
	`"; DROP TABLE agents; --`,
	`agent_x' UNION SELECT key_hash FROM api_keys --`,
	"agent_\x00",
	`<script>alert(1)</script>`,
	`../../../../etc/passwd`,
	`${jndi:ldap://127.0.0.1/a}`,
	"agent_\u202egnp.exe",
	`%27%20OR%201%3D1`,
	strings.Repeat("agent_", 2000),
}

// idOps are the operations that take one resource id, with the kind of id.
var idOps = []struct{ name, kind, doc string }{
	{"agent", "agent", `query($id: ID!) { agent(id: $id) { id name } }`},
	{"verifyAgent", "agent", `query($id: ID!) { verifyAgent(id: $id) { verified } }`},
	{"agentAuditChain", "agent", `query($id: ID!) { agentAuditChain(agentId: $id) { sequence } }`},
	{"updateAgent", "agent", `mutation($id: ID!) { updateAgent(id: $id, input: {name: "pwned"}) { id } }`},
	{"suspendAgent", "agent", `mutation($id: ID!) { suspendAgent(id: $id, reason: "pwned") { id } }`},
	{"reinstateAgent", "agent", `mutation($id: ID!) { reinstateAgent(id: $id, reason: "pwned") { id } }`},
	{"transaction", "tx", `query($id: ID!) { transaction(id: $id) { id amount } }`},
	{"reverseTransaction", "tx", `mutation($id: ID!) { reverseTransaction(id: $id, reason: "pwned") { id } }`},
	{"dispute", "dispute", `query($id: ID!) { dispute(id: $id) { id } }`},
	{"withdrawDispute", "dispute", `mutation($id: ID!) { withdrawDispute(id: $id) { id } }`},
}

const (
	executeDoc  = `mutation($input: ExecuteTransactionInput!) { executeTransaction(input: $input) { id } }`
	registerDoc = `mutation($input: RegisterAgentInput!) { registerAgent(input: $input) { id } }`
	evaluateDoc = `query($input: TrustEvaluationInput!) { evaluateTrust(input: $input) { allowed } }`
)

func (w *world) pay(from, to string, amount any) map[string]any {
	return map[string]any{"input": map[string]any{"fromAgent": from, "toAgent": to, "action": "purchase", "amount": amount, "currency": "USD"}}
}

func register(over map[string]any) map[string]any {
	in := map[string]any{"name": "x", "authorizedActions": []any{"purchase"}, "spendingLimit": "10", "currency": "USD", "environment": "sandbox"}
	for k, v := range over {
		in[k] = v
	}
	return map[string]any{"input": in}
}

func (w *world) httpCases() []httpCase {
	var cs []httpCase
	add := func(c httpCase) { cs = append(cs, c) }

	// Authentication: every way of not holding a live key, on reads and writes.
	for _, a := range []struct{ name, header string }{
		{"none", "-"}, {"empty", ""}, {"bearer only", "Bearer"}, {"bearer blank", "Bearer   "},
		{"basic", "Basic dXNlcjpwYXNz"}, {"unknown key", "Bearer ak_doesnotexist"}, {"revoked key", "Bearer " + w.revokedKey},
		{"oversized key", "Bearer " + strings.Repeat("k", 4096)}, {"injection key", "Bearer ' OR 1=1 --"},
		{"victim key with junk", "Bearer " + w.victimKey + "x"},
	} {
		h := a.header
		if h == "" {
			h = " "
		}
		add(httpCase{name: "auth/" + a.name + "/register", auth: h, query: registerDoc, vars: register(nil), code: "UNAUTHENTICATED", status: http.StatusUnauthorized})
		add(httpCase{name: "auth/" + a.name + "/execute", auth: h, query: executeDoc, vars: w.pay(w.a1.ID, w.a2.ID, "1"), code: "UNAUTHENTICATED", status: http.StatusUnauthorized})
	}

	// Other organizations' ids, for every operation that takes one.
	victimID := map[string]string{"agent": w.v1.ID, "tx": w.victimTx, "dispute": w.victimDispute}
	for _, op := range idOps {
		add(httpCase{name: "tenancy/" + op.name, query: op.doc, vars: map[string]any{"id": victimID[op.kind]}, code: "NOT_FOUND"})
	}
	add(httpCase{name: "tenancy/reverse inbound", query: idOps[7].doc, vars: map[string]any{"id": w.inboundTx}, code: "FORBIDDEN"})
	add(httpCase{name: "tenancy/execute from victim", query: executeDoc, vars: w.pay(w.v1.ID, w.a1.ID, "1"), code: "NOT_FOUND"})
	add(httpCase{name: "tenancy/evaluate victim", query: evaluateDoc, vars: map[string]any{"input": map[string]any{"agentId": w.v1.ID, "action": "purchase", "amount": "1", "currency": "USD"}}, code: "NOT_FOUND"})
	add(httpCase{name: "tenancy/report with victim evidence", query: `mutation($in: ReportAgentInput!) { reportAgent(input: $in) { id } }`,
		vars: map[string]any{"in": map[string]any{"agentId": w.v2.ID, "reason": "x", "evidenceIds": []any{w.victimTx}}}, code: "VALIDATION_FAILED"})
	add(httpCase{name: "tenancy/subscription over http", query: `subscription($after: ID) { events(after: $after) { id } }`, vars: map[string]any{"after": w.victimEvent}, code: "NOT_FOUND"})
	// The attacker's own ids of the wrong kind.
	ownID := map[string]string{"agent": w.ownTx, "tx": w.a1.ID, "dispute": w.ownTx}
	for _, op := range idOps {
		add(httpCase{name: "wrong kind/" + op.name, query: op.doc, vars: map[string]any{"id": ownID[op.kind]}, code: "NOT_FOUND"})
	}

	// Injection strings as ids, cursors, currencies and event types.
	for i, inj := range injections {
		for _, op := range idOps {
			add(httpCase{name: fmt.Sprintf("injection %d/%s", i, op.name), query: op.doc, vars: map[string]any{"id": inj}, code: "NOT_FOUND"})
		}
		add(httpCase{name: fmt.Sprintf("injection %d/agents after", i), query: `query($after: String) { agents(after: $after) { totalCount } }`,
			vars: map[string]any{"after": inj}, code: "VALIDATION_FAILED"})
		add(httpCase{name: fmt.Sprintf("injection %d/transactions after", i), query: `query($after: String) { transactions(after: $after) { totalCount } }`,
			vars: map[string]any{"after": inj}, code: "VALIDATION_FAILED"})
		add(httpCase{name: fmt.Sprintf("injection %d/currency", i), query: registerDoc, vars: register(map[string]any{"currency": inj}), code: "VALIDATION_FAILED"})
	}

	// Amounts that are not exact, positive, bounded decimals.
	for _, amt := range []any{"NaN", "Infinity", "-1", "0", "-0", "0.001", "1e400", "1e16", "99999999999999999999", "", " 1", "1,000", "0x10", "1/3", "1e-31"} {
		add(httpCase{name: fmt.Sprintf("amount %q/execute", amt), query: executeDoc, vars: w.pay(w.a1.ID, w.a2.ID, amt), code: "VALIDATION_FAILED"})
		add(httpCase{name: fmt.Sprintf("amount %q/register", amt), query: registerDoc, vars: register(map[string]any{"spendingLimit": amt}), code: "VALIDATION_FAILED"})
	}
	// A JSON number too big for float64, written literally.
	add(httpCase{name: "amount literal 1e400", body: []byte(`{"query":` + quote(executeDoc) + `,"variables":{"input":{"fromAgent":"` + w.a1.ID +
		`","toAgent":"` + w.a2.ID + `","action":"purchase","amount":1e400,"currency":"USD"}}}`), code: "VALIDATION_FAILED"})

	// Wrong types and out-of-range values.
	for _, v := range []struct {
		name string
		doc  string
		vars map[string]any
		code string
	}{
		{"amount bool", executeDoc, w.pay(w.a1.ID, w.a2.ID, true), "VALIDATION_FAILED"},
		{"amount object", executeDoc, w.pay(w.a1.ID, w.a2.ID, map[string]any{"$gt": 0}), "VALIDATION_FAILED"},
		{"amount list", executeDoc, w.pay(w.a1.ID, w.a2.ID, []any{1, 2}), "VALIDATION_FAILED"},
		{"input null", executeDoc, map[string]any{"input": nil}, "GRAPHQL_VALIDATION_FAILED"},
		{"input missing", executeDoc, nil, "GRAPHQL_VALIDATION_FAILED"},
		{"input string", executeDoc, map[string]any{"input": "all of it"}, "GRAPHQL_VALIDATION_FAILED"},
		{"unknown input field", executeDoc, map[string]any{"input": map[string]any{"fromAgent": w.a1.ID, "toAgent": w.a2.ID, "action": "purchase", "amount": "1", "currency": "USD", "status": "completed"}}, "GRAPHQL_VALIDATION_FAILED"},
		{"environment enum", registerDoc, register(map[string]any{"environment": "staging"}), "GRAPHQL_VALIDATION_FAILED"},
		{"environment injection", registerDoc, register(map[string]any{"environment": "sandbox' OR 1=1"}), "GRAPHQL_VALIDATION_FAILED"},
		{"actions object", registerDoc, register(map[string]any{"authorizedActions": map[string]any{"a": 1}}), "GRAPHQL_VALIDATION_FAILED"},
		{"actions empty", registerDoc, register(map[string]any{"authorizedActions": []any{}}), "VALIDATION_FAILED"},
		{"actions huge", registerDoc, register(map[string]any{"authorizedActions": manyStrings(10000, "a")}), "VALIDATION_FAILED"},
		{"name empty", registerDoc, register(map[string]any{"name": ""}), "VALIDATION_FAILED"},
		{"name 100k", registerDoc, register(map[string]any{"name": strings.Repeat("n", 100000)}), "VALIDATION_FAILED"},
		{"daily below zero", registerDoc, register(map[string]any{"dailyLimit": "-5"}), "VALIDATION_FAILED"},
		{"limit 0", `{ agents(limit: 0) { totalCount } }`, nil, "VALIDATION_FAILED"},
		{"limit 201", `{ agents(limit: 201) { totalCount } }`, nil, "VALIDATION_FAILED"},
		{"limit -1", `{ transactions(limit: -1) { totalCount } }`, nil, "VALIDATION_FAILED"},
		{"limit huge", `{ disputes(limit: 2147483647) { totalCount } }`, nil, "VALIDATION_FAILED"},
		{"limit overflow", `{ agents(limit: 99999999999) { totalCount } }`, nil, "VALIDATION_FAILED"},
		{"limit float", `query($l: Int) { agents(limit: $l) { totalCount } }`, map[string]any{"l": 1.5}, "GRAPHQL_VALIDATION_FAILED"},
		{"audit after negative", `query($id: ID!) { agentAuditChain(agentId: $id, after: -5) { sequence } }`, map[string]any{"id": w.a1.ID}, "VALIDATION_FAILED"},
		{"audit limit 0", `query($id: ID!) { agentAuditChain(agentId: $id, limit: 0) { sequence } }`, map[string]any{"id": w.a1.ID}, "VALIDATION_FAILED"},
		{"audit limit huge", `query($id: ID!) { agent(id: $id) { auditChain(limit: 1000000) { sequence } } }`, map[string]any{"id": w.a1.ID}, "GRAPHQL_VALIDATION_FAILED"},
		{"audit victim chain", `query($id: ID!) { agentAuditChain(agentId: $id, after: 0, limit: 10) { sequence } }`, map[string]any{"id": w.v1.ID}, "NOT_FOUND"},
		{"batchTrust 101 ids", `query($ids: [ID!]!) { batchTrust(agentIds: $ids) { score } }`, map[string]any{"ids": manyStrings(101, w.a1.ID)}, "VALIDATION_FAILED"},
		{"batchTrust 20000 ids", `query($ids: [ID!]!) { batchTrust(agentIds: $ids) { score } }`, map[string]any{"ids": manyStrings(20000, w.a1.ID)}, "VALIDATION_FAILED"},
		{"batchTrust null id", `query($ids: [ID!]!) { batchTrust(agentIds: $ids) { score } }`, map[string]any{"ids": []any{nil}}, "GRAPHQL_VALIDATION_FAILED"},
		{"report evidence huge", `mutation($in: ReportAgentInput!) { reportAgent(input: $in) { id } }`,
			map[string]any{"in": map[string]any{"agentId": w.a2.ID, "reason": "x", "evidenceIds": manyStrings(5000, w.ownTx)}}, "VALIDATION_FAILED"},
		{"report reason empty", `mutation($in: ReportAgentInput!) { reportAgent(input: $in) { id } }`,
			map[string]any{"in": map[string]any{"agentId": w.a2.ID, "reason": "", "evidenceIds": []any{w.ownTx}}}, "VALIDATION_FAILED"},
		{"subscription types unknown", `subscription { events(types: ["agent.deleted"]) { id } }`, nil, "VALIDATION_FAILED"},
		{"trustHistory since garbage", `query($id: ID!, $s: Time) { trustHistory(agentId: $id, since: $s) { score } }`, map[string]any{"id": w.a1.ID, "s": "yesterday"}, "VALIDATION_FAILED"},
		{"export format", `{ exportTransactions(format: xml) { count } }`, nil, "GRAPHQL_VALIDATION_FAILED"},
		{"currency mismatch lower", executeDoc, map[string]any{"input": map[string]any{"fromAgent": w.a1.ID, "toAgent": w.a2.ID, "action": "purchase", "amount": "1", "currency": "usd"}}, "VALIDATION_FAILED"},
		{"memo huge", executeDoc, map[string]any{"input": map[string]any{"fromAgent": w.a1.ID, "toAgent": w.a2.ID, "action": "purchase", "amount": "1", "currency": "USD", "memo": strings.Repeat("m", 200000)}}, "VALIDATION_FAILED"},
		{"idempotency key huge", executeDoc, map[string]any{"input": map[string]any{"fromAgent": w.a1.ID, "toAgent": w.a2.ID, "action": "purchase", "amount": "1", "currency": "USD", "idempotencyKey": strings.Repeat("k", 100000)}}, "VALIDATION_FAILED"},
		{"self payment", executeDoc, w.pay(w.a1.ID, w.a1.ID, "1"), "VALIDATION_FAILED"},
	} {
		add(httpCase{name: "types/" + v.name, query: v.doc, vars: v.vars, code: v.code})
	}

	// The document itself: malformed, deep, wide, aliased, cyclic.
	for _, d := range []struct{ name, doc, code string }{
		{"parse unclosed", `{ agents { `, "GRAPHQL_PARSE_FAILED"},
		{"parse garbage", `SELECT * FROM agents`, "GRAPHQL_PARSE_FAILED"},
		{"parse huge string", `{ agent(id: "` + strings.Repeat("\\u0000", 20000) + `") { id } }`, "VALIDATION_FAILED"},
		{"unknown field", `{ apiKeys { hash } }`, "GRAPHQL_VALIDATION_FAILED"},
		{"fragment cycle", `query { ...A } fragment A on Query { ...B } fragment B on Query { ...A }`, "GRAPHQL_VALIDATION_FAILED"},
		{"aliased pages", aliased(300, `agents(limit: 200) { nodes { trust { score } } }`), "GRAPHQL_VALIDATION_FAILED"},
		{"aliased mutations", "mutation {" + aliasedBody(60, `registerAgent(input: {name: "x", authorizedActions: ["a"], spendingLimit: "1", currency: "USD", environment: sandbox}) { id }`) + "}", "GRAPHQL_VALIDATION_FAILED"},
		{"aliased reads", aliased(51, `agents { totalCount }`), "GRAPHQL_VALIDATION_FAILED"},
		{"nested pages", `{ agents(limit: 200) { nodes { auditChain(limit: 500) { sequence } trust { contributions { points } } } } transactions(limit: 200) { nodes { id } } disputes(limit: 200) { nodes { id } } a: agents(limit: 200) { nodes { auditChain(limit: 500) { sequence } } } }`, "GRAPHQL_VALIDATION_FAILED"},
		{"subscription two roots", `subscription { a: events { id } b: events { id } }`, "GRAPHQL_VALIDATION_FAILED"},
		{"two operations no name", `query A { webhooks { id } } query B { webhooks { id } }`, "GRAPHQL_VALIDATION_FAILED"},
		{"directive on unknown", `{ agents @deprecated { totalCount } }`, "GRAPHQL_VALIDATION_FAILED"},
		{"variable undefined", `{ agent(id: $nope) { id } }`, "GRAPHQL_VALIDATION_FAILED"},
		{"mutation and bad field", `mutation { registerAgent(input: {name: "x", authorizedActions: ["a"], spendingLimit: "1", currency: "USD", environment: sandbox}) { id secretKey } }`, "GRAPHQL_VALIDATION_FAILED"},
	} {
		add(httpCase{name: "document/" + d.name, query: d.doc, code: d.code})
	}

	// The HTTP envelope.
	big := []byte(`{"query":"{ agents { totalCount } }","variables":{"pad":"` + strings.Repeat("x", 2<<20) + `"}}`)
	for _, e := range []httpCase{
		{name: "oversized body", body: big, code: "VALIDATION_FAILED", status: http.StatusRequestEntityTooLarge},
		{name: "malformed json", body: []byte(`{"query": "{ agents { totalCount } }"`), code: "VALIDATION_FAILED", status: http.StatusBadRequest},
		{name: "json array", body: []byte(`[{"query":"{ agents { totalCount } }"}]`), code: "VALIDATION_FAILED", status: http.StatusBadRequest},
		{name: "json null", body: []byte(`null`), code: "VALIDATION_FAILED", status: http.StatusBadRequest},
		{name: "json string", body: []byte(`"{ agents { totalCount } }"`), code: "VALIDATION_FAILED", status: http.StatusBadRequest},
		{name: "json object of junk", body: []byte(`{"query": {"$where": "1"}}`), code: "VALIDATION_FAILED", status: http.StatusBadRequest},
		{name: "operationName number", body: []byte(`{"query":"{ agents { totalCount } }","operationName":7}`), code: "VALIDATION_FAILED", status: http.StatusBadRequest},
		{name: "extensions list", body: []byte(`{"query":"{ agents { totalCount } }","extensions":[1]}`), code: "VALIDATION_FAILED", status: http.StatusBadRequest},
		{name: "query number", body: []byte(`{"query": 42}`), code: "VALIDATION_FAILED", status: http.StatusBadRequest},
		// gqlgen matches member names case-insensitively (encoding/json), so the check does too.
		{name: "Query number", body: []byte(`{"Query": 42}`), code: "VALIDATION_FAILED", status: http.StatusBadRequest},
		{name: "whitespace then array", body: []byte(" \n[]"), code: "VALIDATION_FAILED", status: http.StatusBadRequest},
		{name: "variables string", body: []byte(`{"query":"{ agents { totalCount } }","variables":"x"}`), code: "VALIDATION_FAILED", status: http.StatusBadRequest},
		{name: "empty body", body: []byte{}, code: "VALIDATION_FAILED", status: http.StatusBadRequest},
		{name: "nul bytes", body: []byte("{\"query\":\"\x00\x00\"}"), code: "VALIDATION_FAILED", status: http.StatusBadRequest},
		{name: "mutation over GET", method: http.MethodGet, target: "/graphql?query=" + urlEscape(`mutation { suspendAgent(id: "`+w.a1.ID+`") { id } }`), code: "VALIDATION_FAILED", status: http.StatusMethodNotAllowed},
	} {
		e.name = "envelope/" + e.name
		add(e)
	}
	return cs
}

func quote(s string) string { return fmt.Sprintf("%q", s) }

func urlEscape(s string) string {
	r := strings.NewReplacer(" ", "%20", "{", "%7B", "}", "%7D", `"`, "%22", ":", "%3A", "(", "%28", ")", "%29")
	return r.Replace(s)
}

func manyStrings(n int, s string) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = s
	}
	return out
}

func aliased(n int, field string) string { return "{" + aliasedBody(n, field) + "}" }

func aliasedBody(n int, field string) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, " a%d: %s", i, field)
	}
	return b.String()
}
