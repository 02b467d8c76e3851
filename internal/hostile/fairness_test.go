package hostile_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// The world's fairness bounds, small enough for a few requests to reach
// them: an export's content, a replay's stored events and the failed
// logins an address may spend before it is refused.
const (
	exportMaxBytes = 1 << 10
	maxReplay      = 2
	failureBudget  = 30
)

// A hostile tenant's addresses: an IPv6 client rotating through its /64 and
// a client that opens websockets it never authenticates, both behind the
// world's trusted proxy (the X-Forwarded-For they arrive with).
const (
	guesser64 = "2001:db8:7:7::"
	idler     = "198.51.100.7"
)

// schemaField and introspectionFragments make the introspection query
// GraphiQL and code generators send.
const (
	schemaField            = `__schema { queryType { name } mutationType { name } subscriptionType { name } types { ...FullType } directives { name description locations args { ...InputValue } } }`
	introspectionFragments = `
fragment FullType on __Type { kind name description fields(includeDeprecated: true) { name description args { ...InputValue } type { ...TypeRef } isDeprecated deprecationReason } inputFields { ...InputValue } interfaces { ...TypeRef } enumValues(includeDeprecated: true) { name description isDeprecated deprecationReason } possibleTypes { ...TypeRef } }
fragment InputValue on __InputValue { name description type { ...TypeRef } defaultValue }
fragment TypeRef on __Type { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name } } } } } } } }`
)

// badKey is a well-formed key nobody holds.
func badKey(i int) string { return fmt.Sprintf("att_sk_guess%040d", i) }

// fairnessCases are a hostile tenant's ways of taking the memory, the
// logins or the network reach the other organizations share.
func (w *world) fairnessCases() []httpCase {
	var cs []httpCase
	add := func(c httpCase) { cs = append(cs, c) }

	// An export whose rows (a counterparty's quote-filled memo) pass the
	// answer's byte bound is refused on until; the streamed REST export
	// refuses bad parameters before anything is read.
	for _, f := range []string{"csv", "json"} {
		add(httpCase{name: "export/" + f + " past the byte bound", query: `{ exportTransactions(format: ` + f + `) { count content } }`,
			code: "VALIDATION_FAILED", field: "until", detail: fmt.Sprint(exportMaxBytes)})
	}
	for _, e := range []struct{ name, query, field string }{
		{"no format", "", "format"},
		{"format xml", "format=xml", "format"},
		{"since garbage", "format=csv&since=yesterday", "since"},
		{"until garbage", "format=json&until=2026-13-01", "until"},
		{"empty range", "format=csv&since=2026-11-02T00:00:00Z&until=2026-11-01T00:00:00Z", "until"},
	} {
		add(httpCase{name: "export/rest " + e.name, method: http.MethodGet, target: "/transactions/export?" + e.query,
			code: "VALIDATION_FAILED", status: http.StatusUnprocessableEntity, field: e.field})
	}
	add(httpCase{name: "export/rest without a key", method: http.MethodGet, target: "/transactions/export?format=csv", auth: "-",
		code: "UNAUTHENTICATED", status: http.StatusUnauthorized})

	// Guesses from one /64 spend its budget, rotating addresses or not; a
	// valid key from it is still served (refused here only for the
	// victim's id it asks for).
	for i := range failureBudget {
		add(httpCase{name: fmt.Sprintf("logins/guess %d from the /64", i), auth: "Bearer " + badKey(i), from: fmt.Sprintf("%s%x", guesser64, i+1),
			query: registerDoc, vars: register(nil), code: "UNAUTHENTICATED", status: http.StatusUnauthorized})
	}
	for i := range 3 {
		add(httpCase{name: fmt.Sprintf("logins/guess %d past the /64's budget", i), auth: "Bearer " + badKey(failureBudget+i), from: fmt.Sprintf("%sffff:1:2:%x", guesser64[:len(guesser64)-1], i),
			query: registerDoc, vars: register(nil), code: "RATE_LIMITED", status: http.StatusTooManyRequests, noStatements: true})
	}
	add(httpCase{name: "logins/valid key from the spent /64", from: guesser64 + "1",
		query: idOps[0].doc, vars: map[string]any{"id": w.v1.ID}, code: "NOT_FOUND", status: http.StatusOK})
	add(httpCase{name: "logins/victim key from the spent /64", auth: "Bearer " + w.victimKey, from: guesser64 + "2",
		query: idOps[6].doc, vars: map[string]any{"id": w.ownTx}, code: "NOT_FOUND", status: http.StatusOK})

	// Cheap to ask, dear to answer: the schema's answer asked several times
	// in one document, under the same-name bound that refuses ten copies.
	for _, n := range []int{2, 5} {
		add(httpCase{name: fmt.Sprintf("introspection/%d aliased __schema", n), query: aliasedIntrospection(n), code: "GRAPHQL_VALIDATION_FAILED", detail: "__schema"})
	}

	// Webhook URLs whose IPv6 address carries a private IPv4 address, and a
	// registration that fails without telling how (resolver, dial, TLS).
	blocked := "the signed webhook.verification request failed: not reachable: address not allowed"
	for _, u := range []struct{ name, url, detail string }{
		{"6to4 loopback", "https://[2002:7f00:1::1]/hook", blocked},
		{"6to4 metadata", "https://[2002:a9fe:a9fe::]/hook", blocked},
		{"teredo client loopback", "https://[2001:0:808:808:0:0:80ff:fffe]/hook", blocked},
		{"teredo server private", "https://[2001:0:a00:1::f7f7:fbfb]/hook", blocked},
		{"siit private", "https://[::ffff:0:a00:1]/hook", blocked},
		{"siit metadata", "https://[::ffff:0:a9fe:a9fe]/hook", blocked},
		{"unresolvable host", "https://no-such-host.invalid/hook", "the signed webhook.verification request failed: not reachable"},
	} {
		add(httpCase{name: "webhook/" + u.name, query: `mutation($in: RegisterWebhookInput!) { registerWebhook(input: $in) { id } }`,
			vars: map[string]any{"in": map[string]any{"url": u.url, "events": []any{"*"}}}, code: "VALIDATION_FAILED", field: "input.url", detail: u.detail})
	}
	return cs
}

// fairnessWSCases are a hostile tenant's live connections: websockets held
// without connection_init, and replays from further back than the bound.
func (w *world) fairnessWSCases() []wsCase {
	events := `subscription($after: ID) { events(after: $after) { id type } }`
	legacy, _ := json.Marshal(map[string]any{"id": "1", "type": "start", "payload": map[string]any{"query": events, "variables": map[string]any{"after": w.ownFirstEvent}}})
	return []wsCase{
		{name: "replay past the bound", frames: [][]byte{sub("1", events, map[string]any{"after": w.ownFirstEvent})}, code: "VALIDATION_FAILED"},
		{name: "legacy replay past the bound", protocol: "graphql-ws", frames: [][]byte{legacy}, code: "VALIDATION_FAILED"},
		{name: "65th websocket without init from one address", crowd: 64, header: http.Header{"X-Forwarded-For": {idler}}, code: "RATE_LIMITED"},
	}
}

// aliasedIntrospection is the introspection query with its __schema field
// asked n times under aliases.
func aliasedIntrospection(n int) string {
	var q strings.Builder
	q.WriteString("query {")
	for i := range n {
		fmt.Fprintf(&q, " s%d: %s", i, schemaField)
	}
	return q.String() + " }" + introspectionFragments
}
