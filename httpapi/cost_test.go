package httpapi_test

import (
	"regexp"
	"testing"

	"github.com/agenttrust/service/httpapi"
	"github.com/agenttrust/service/internal/testkit"
)

// costOf is the cost the handler gives query with vars: with a cost limit of
// 1, every operation costing more is refused with its cost in the message,
// and one costing 1 runs.
func costOf(t *testing.T, b *testkit.Kit, query string, vars map[string]any) string {
	t.Helper()
	r := b.Post(b.Key, map[string]any{"query": query, "variables": vars})
	if len(r.Errors) == 0 {
		return "1"
	}
	m := regexp.MustCompile(`its cost is (.+), more than the limit of 1$`).FindStringSubmatch(r.Errors[0].Message)
	if r.Code() != "GRAPHQL_VALIDATION_FAILED" || len(r.Data) != 0 || m == nil {
		t.Fatalf("%.80q: %d %.300s, want a cost refusal", query, r.Status, r.Body)
	}
	return m[1]
}

// Every operation's cost, as docs/limits.md states it: a field costs 1 plus
// its selection, a page multiplies its nodes and edges by its first, last or
// limit (default 50, at most 1,000,000, at least 1), a list with a limit
// multiplies its element, and the fields whose work is more than a column
// cost their work; fragments, aliases and variables cost what they expand to.
func TestOperationCost(t *testing.T) {
	t.Parallel()
	b := testkit.New(t, func(c *httpapi.Config) { c.ComplexityLimit = 1 })
	const day = `since: "2026-01-01T00:00:00Z", until: "2026-01-02T00:00:00Z"`
	cases := []struct {
		name, query string
		vars        map[string]any
		want        string
	}{
		{"typename", `{ __typename }`, nil, "1"},
		{"default page", `{ agents { nodes { id name } } }`, nil, "102"},
		{"audit chains of a page", `{ agents(limit: 10) { nodes { auditChain { hash } } } }`, nil, "5012"},
		{"edges, pageInfo, totalCount", `{ agents(first: 3) { edges { cursor node { id auditChain(limit: 2) { hash sequence } } } pageInfo { endCursor hasNextPage } totalCount } }`, nil, "5029"},
		{"last from a variable", `query($n: Int) { agents(last: $n) { nodes { id } } }`, map[string]any{"n": 7}, "9"},
		{"absent variable", `query($n: Int) { agents(first: $n) { nodes { id } } }`, nil, "52"},
		{"explicit null limit", `{ transactions(limit: null) { nodes { id } } }`, nil, "3"},
		{"page over the maximum", `{ agents(limit: 5000000) { nodes { id } } }`, nil, "1000002"},
		{"negative page", `{ agents(limit: -5) { nodes { id } } }`, nil, "3"},
		{"inline fragment on a page", `{ transactions(limit: 7) { ... on TransactionConnection { nodes { id amount } } } }`, nil, "16"},
		{"fragments under two page sizes", `{ ...Q } fragment Q on Query { a: agents(limit: 4) { ...Page } b: agents(limit: 9) { ...Page } t: transactions(first: 5) { nodes { id } totalCount } }
			fragment Page on AgentConnection { nodes { ...A } totalCount } fragment A on Agent { id trust { score } }`, nil, "15050"},
		{"aliases", `{ a: agent(id: "agent_x") { id } b: agent(id: "agent_y") { id name } }`, nil, "5"},
		{"lists in lists", `{ agents(limit: 5) { nodes { a: auditChain(limit: 3) { hash } b: auditChain { sequence } } } }`, nil, "2527"},
		{"the heaviest read", `{ agents(limit: 14) { nodes { id auditChain { sequence action timestamp actor details hash previousHash } } } }`, nil, "49030"},
		{"a page of 200 with its count", `{ transactions(limit: 200) { nodes { id fromAgent toAgent action amount currency memo status reversalOf reversedBy reason createdAt } pageInfo { endCursor hasNextPage } totalCount } }`, nil, "7405"},
		{"audit chain", `{ agentAuditChain(agentId: "agent_x", limit: 20) { hash } }`, nil, "21"},
		{"audit chain, null limit", `{ agentAuditChain(agentId: "agent_x", limit: null) { hash } }`, nil, "2"},
		{"deliveries", `{ webhook(id: "wh_x") { deliveries(first: 10) { nodes { id } edges { cursor } pageInfo { hasNextPage } } } }`, nil, "26"},
		{"every totalCount", `{ agents { totalCount } transactions { totalCount } disputes { totalCount } mandates { totalCount } }`, nil, "20004"},
		{"nodes", `{ nodes(ids: ["agent_x", "tx_y", "disp_z"]) { id ... on Agent { name } } }`, nil, "7"},
		{"nodes, one id", `{ nodes(ids: "agent_x") { id } }`, nil, "2"},
		{"nodes, no ids", `{ nodes(ids: []) { id } }`, nil, "2"},
		{"node", `{ node(id: "agent_x") { id ... on Agent { auditChain(limit: 4) { hash } } } }`, nil, "7"},
		{"batchTrust from a variable", `query($ids: [ID!]!) { batchTrust(agentIds: $ids) { agentId score } }`,
			map[string]any{"ids": []string{"agent_a", "agent_b", "agent_c", "agent_d"}}, "9"},
		{"trustHistory", `{ trustHistory(agentId: "agent_x") { score timestamp } }`, nil, "2001"},
		{"verifyAgent", `{ verifyAgent(id: "agent_x") { verified } }`, nil, "1001"},
		{"exportTransactions", `{ exportTransactions(format: csv) { count } }`, nil, "40001"},
		{"overview", `{ overview { agentsByStatus { key count } transactionsLast24h { key count } pendingApprovals } }`, nil, "5007"},
		{"spendSeries", `{ spendSeries(bucket: HOUR, ` + day + `) { start amount count } }`, nil, "2003"},
		{"policyUsage", `{ agent(id: "agent_x") { policyUsage { spendLimits { window used remaining } velocityLimits { windowSeconds count } } } }`, nil, "108"},
		{"policyUsage of a page", `{ agents(limit: 20) { nodes { policyUsage { spendLimits { used } } } } }`, nil, "2042"},
		{"simulatePolicy", `{ simulatePolicy(agentId: "agent_x", policy: {}, ` + day + `) { replayed refusedByCode { reasonCode count } outcomes { transaction { id amount } reasonCode } } }`, nil, "406"},
		{"mutation", `mutation { suspendAgent(id: "agent_x") { id status auditChain(limit: 3) { hash } } }`, nil, "7"},
		{"subscription", `subscription { events { id type data } }`, nil, "4"},
		{"introspection", aliasedIntrospection(1), nil, "16025"},
		{"schema types", `{ __schema { types { name } } }`, nil, "93"},
		{"a type's fields", `{ __type(name: "Agent") { name fields { name args { name } } } }`, nil, "14"},
		{"saturated", `{ agents(limit: 1000000) { nodes { a: auditChain(limit: 1000000) { hash } b: auditChain(limit: 1000000) { hash } } } }`, nil, "more than 1099511627776"},
	}
	for _, c := range cases {
		if got := costOf(t, b, c.query, c.vars); got != c.want {
			t.Errorf("%s: cost %s, want %s", c.name, got, c.want)
		}
	}
}
