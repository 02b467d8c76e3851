package resolvers_test

// Benchmarks through the real HTTP handler and a real Postgres, each with its
// own database (see bench/RESULTS.md for figures and how to run them):
//
//	go test -run '^$' -bench . -benchtime 2s -count 1 ./resolvers/
//
// They seed only when run with -bench; -short skips the 10^6-row variants.

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// BenchmarkRegisterAgent: one registerAgent mutation (agent row, first audit
// entry, agent.registered event, trust counters and first snapshot).
func BenchmarkRegisterAgent(b *testing.B) {
	e := newBenchEnv(b)
	e.measure(b, e.Key, gqlBody(benchRegisterMutation, map[string]any{"input": benchAgentInput("bench agent", "100.50", "")}))
}

const benchAgentColumns = `"agent_row"."seq", "agent_row"."id", "agent_row"."org_id", "agent_row"."name", "agent_row"."authorized_actions", "agent_row"."spending_limit", "agent_row"."daily_limit", "agent_row"."currency", "agent_row"."environment", "agent_row"."status", "agent_row"."fingerprint", "agent_row"."audit_seq", "agent_row"."audit_head", "agent_row"."created_at", "agent_row"."updated_at"`

// benchProfilesSQL is TrustService.Profiles' statement.
func benchProfilesSQL(ids []string) string {
	return `SELECT tc.*, a.status, a.org_id, a.created_at AS agent_created_at FROM trust_counters AS tc JOIN agents AS a ON a.id = tc.agent_id WHERE (tc.agent_id IN (` + sqlList(ids) + `))`
}

// benchPageSQL is TransactionService.List's statement for the first page
// (limit 50), optionally for one agent.
func benchPageSQL(orgID, agentID string) string {
	const cols = `id, from_agent, to_agent, from_org, to_org, action, amount, currency, memo, status, reversal_of, reversed_by, reason, created_at`
	var agent string
	if agentID != "" {
		agent = ` AND (from_agent = '` + agentID + `' OR to_agent = '` + agentID + `')`
	}
	return `SELECT * FROM ((SELECT ` + cols + ` FROM transactions WHERE from_org = '` + orgID + `'` + agent +
		` ORDER BY created_at DESC, id DESC LIMIT 51) UNION ALL (SELECT ` + cols + ` FROM transactions WHERE to_org = '` + orgID +
		`' AND from_org <> '` + orgID + `'` + agent + ` ORDER BY created_at DESC, id DESC LIMIT 51)) t ORDER BY created_at DESC, id DESC LIMIT 51`
}

const (
	benchAgentFields = `id name authorizedActions spendingLimit dailyLimit currency environment status fingerprint createdAt updatedAt`
	benchAuditSel    = ` auditChain(limit: 10) { sequence action timestamp actor details hash previousHash }`
	benchTrustSel    = ` trust { agentId score assessment factors { completionRate disputeRatio } updatedAt }`
)

// BenchmarkAgentsPage: agents(limit) over 200 agents, each with a three-entry
// audit chain, with and without the auditChain and trust fields read ahead.
// stmts/op must not depend on the page size (no N+1).
func BenchmarkAgentsPage(b *testing.B) {
	e := newBenchEnv(b)
	const agents = 200
	ids := e.registerMany(e.Key, "agent", agents, "1000")
	for i, id := range ids { // a ring of payments: every chain gets an outgoing and an incoming entry
		if err := e.call(e.Key, executeBody(id, ids[(i+1)%agents], "1.00")); err != nil {
			b.Fatal(err)
		}
	}
	firstPage := slices.Clone(ids[agents-50:])
	slices.Reverse(firstPage)
	e.explain("agents page", `SELECT `+benchAgentColumns+` FROM "agents" AS "agent_row" WHERE (org_id = '`+e.OrgID+`') ORDER BY "seq" DESC LIMIT 51`)
	e.explain("auditChain batch", `SELECT "audit_row"."agent_id", "audit_row"."sequence", "audit_row"."action", "audit_row"."at", "audit_row"."actor", "audit_row"."details", "audit_row"."hash", "audit_row"."previous_hash" FROM "audit_entries" AS "audit_row" WHERE (agent_id IN (`+sqlList(firstPage)+`)) AND (agent_id IN (SELECT id FROM agents WHERE org_id = '`+e.OrgID+`' AND id IN (`+sqlList(firstPage)+`))) ORDER BY "agent_id", "sequence"`)
	e.explain("trust batch", benchProfilesSQL(firstPage))
	for _, c := range []struct {
		limit int
		name  string
		sel   string
	}{
		{50, "plain", ""},
		{50, "auditChain", benchAuditSel},
		{50, "trust", benchTrustSel},
		{50, "auditChain+trust", benchAuditSel + benchTrustSel},
		{10, "auditChain+trust", benchAuditSel + benchTrustSel},
		{100, "auditChain+trust", benchAuditSel + benchTrustSel},
	} {
		b.Run(fmt.Sprintf("limit=%d/%s", c.limit, c.name), func(b *testing.B) {
			body := gqlBody(`query($limit: Int) { agents(limit: $limit) { nodes { `+benchAgentFields+c.sel+
				` } pageInfo { endCursor hasNextPage } } }`, map[string]any{"limit": c.limit})
			var page struct {
				Nodes []struct {
					AuditChain []struct{ Sequence int } `json:"auditChain"`
					Trust      *struct{ Score int }     `json:"trust"`
				} `json:"nodes"`
			}
			e.decode(e.Key, body, "agents", &page)
			if len(page.Nodes) != c.limit {
				b.Fatalf("got %d agents, want %d", len(page.Nodes), c.limit)
			}
			for _, n := range page.Nodes {
				if strings.Contains(c.sel, "auditChain") && len(n.AuditChain) != 3 ||
					strings.Contains(c.sel, "trust") && n.Trust == nil {
					b.Fatalf("unexpected node %+v", n)
				}
			}
			e.measure(b, e.Key, body)
		})
	}
}

// BenchmarkExecuteTransaction: executeTransaction throughput with 1, 8 and 32
// concurrent clients. Client c always sends from its own agent (org A) to its
// own four receivers (org B) in turn, so no two clients ever wait for the same
// row lock; the agents' trust counters are those of 10^4 past transactions,
// so scores are steady (no snapshot or score event per execute).
func BenchmarkExecuteTransaction(b *testing.B) {
	e := newBenchEnv(b)
	_, keyB := e.NewOrg("globex")
	const maxClients, perClient = 32, 4
	senders := e.registerMany(e.Key, "sender", maxClients, "1000000")
	receivers := e.registerMany(keyB, "receiver", maxClients*perClient, "1000")
	e.steadyTrust(slices.Concat(senders, receivers), 10_000)
	bodies := make([][][]byte, maxClients)
	for c := range bodies {
		for j := range perClient {
			bodies[c] = append(bodies[c], executeBody(senders[c], receivers[c*perClient+j], "1.00"))
		}
	}
	for _, clients := range []int{1, 8, 32} {
		b.Run(fmt.Sprintf("clients=%d", clients), func(b *testing.B) {
			before := e.DB.Statements()
			runClients(b, clients, func(c, i int) error { return e.call(e.Key, bodies[c][i%perClient]) })
			b.ReportMetric(float64(e.DB.Statements()-before)/float64(b.N), "stmts/op")
		})
	}
}

// BenchmarkHistory: reads and one execute against 10^3 and 10^6 transactions
// of history. Every seeded transaction has the hub agent (the caller's) on one
// side, so the caller's organization sees all of them and the hub has that many
// transactions of its own, with trust counters to match; they span the past
// 365 days. The figures must not grow with the history: a spend policy's
// check sums hourly buckets and the rows of the hours its windows begin in
// (window-rows reports the rows of the trailing 24 hours, which only a
// refusal reads).
func BenchmarkHistory(b *testing.B) {
	for _, n := range []int{1_000, 1_000_000} {
		b.Run(fmt.Sprintf("rows=%d", n), func(b *testing.B) {
			if n > 1_000 && testing.Short() {
				b.Skip("10^6 rows: skipped with -short")
			}
			benchHistory(b, n)
		})
	}
}

const (
	benchTxFields     = `id fromAgent toAgent action amount currency memo status reversalOf reversedBy reason createdAt`
	benchTxPageQuery  = `query($agent: ID) { transactions(agentId: $agent, limit: 50) { nodes { ` + benchTxFields + ` } pageInfo { endCursor hasNextPage } } }`
	benchProfileQuery = `query($id: ID!) { trustProfile(agentId: $id) { agentId score assessment factors { completionRate disputeRatio } updatedAt } }`
	benchEvalQuery    = `query($input: TrustEvaluationInput!) { evaluateTrust(input: $input) { allowed reason reasonCode } }`
	benchBatchQuery   = `query($ids: [ID!]!) { batchTrust(agentIds: $ids) { agentId score assessment } }`
	benchUpdateDaily  = `mutation($id: ID!, $daily: Decimal) { updateAgent(id: $id, input: { dailyLimit: $daily }) { id dailyLimit } }`
)

func benchHistory(b *testing.B, n int) {
	e := newBenchEnv(b)
	orgB, keyB := e.NewOrg("globex")
	hub := e.registerMany(e.Key, "hub", 1, "1000000")[0]
	quiet := e.registerMany(e.Key, "quiet", 1, "1000")[0]
	own := e.registerMany(e.Key, "own", 48, "1000")
	theirs := e.registerMany(keyB, "their", 50, "1000")
	// Receivers of the timed executes: outside the seeded history, with steady
	// counters, so the execute's statements do not depend on the history size.
	sinks := e.registerMany(keyB, "sink", 5, "1000")
	// The interleaved benchmark's sender without a policy: no history needed,
	// as without a policy an execute reads none.
	twin := e.registerMany(e.Key, "twin", 1, "1000000")[0]
	e.steadyTrust(append(sinks, twin), 10_000)
	// The quiet agent's five transactions are newer than all the history.
	for i := range 5 {
		if err := e.call(e.Key, executeBody(quiet, theirs[i], "1.00")); err != nil {
			b.Fatal(err)
		}
	}
	// Agents registered before the history they take part in.
	e.exec(`UPDATE agents SET created_at = created_at - interval '400 days'`)
	e.seedHistory(hub, slices.Concat(own, theirs), n)
	batch := slices.Concat([]string{hub, quiet}, own, theirs)
	if len(batch) != 100 {
		b.Fatalf("batch of %d ids", len(batch))
	}
	evalBody := gqlBody(benchEvalQuery, map[string]any{"input": map[string]any{
		"agentId": hub, "action": "purchase", "amount": "1.00", "currency": "USD"}})
	execBodies, twinBodies := make([][]byte, len(sinks)), make([][]byte, len(sinks))
	for i, s := range sinks {
		execBodies[i], twinBodies[i] = executeBody(hub, s, "1.00"), executeBody(twin, s, "1.00")
	}
	e.explain("transactions page", benchPageSQL(e.OrgID, ""))
	e.explain("transactions page, agent=hub", benchPageSQL(e.OrgID, hub))
	e.explain("transactions page, agent=quiet", benchPageSQL(e.OrgID, quiet))
	e.explain("batchTrust(100)", benchProfilesSQL(batch))
	e.explain("outflow rows (a refused execute's window)", `SELECT "amount", "action", "created_at" FROM "transactions" WHERE (from_agent = '`+hub+
		`') AND (reversal_of IS NULL AND status IN ('completed', 'reversed')) AND (created_at >= '`+time.Now().UTC().Add(-24*time.Hour).Format("2006-01-02 15:04:05.999999-07:00")+`')`)
	e.explain("totalCount (only when asked for)", `SELECT count(*) FROM "transactions" AS "transaction_row" WHERE ((from_org = '`+e.OrgID+`' OR to_org = '`+e.OrgID+`'))`)
	windowRows := func() float64 {
		return float64(e.count(`SELECT count(*) FROM transactions WHERE from_agent = $1 AND status = 'completed'
			AND created_at > now() - interval '24 hours'`, hub))
	}

	checkPage := func(agent any, want int) {
		var page struct {
			Nodes    []struct{ ID string } `json:"nodes"`
			PageInfo struct {
				HasNextPage bool `json:"hasNextPage"`
			} `json:"pageInfo"`
		}
		e.decode(e.Key, gqlBody(benchTxPageQuery, map[string]any{"agent": agent}), "transactions", &page)
		if len(page.Nodes) != want {
			b.Fatalf("page of %d transactions, want %d", len(page.Nodes), want)
		}
	}
	read := func(name string, body []byte, check func()) {
		b.Run(name, func(b *testing.B) {
			if check != nil {
				check()
			}
			e.measure(b, e.Key, body)
		})
	}
	read("typename", gqlBody(`{ __typename }`, nil), nil)
	read("trustProfile", gqlBody(benchProfileQuery, map[string]any{"id": hub}), func() {
		var p struct{ Score int }
		e.decode(e.Key, gqlBody(benchProfileQuery, map[string]any{"id": hub}), "trustProfile", &p)
		b.Logf("hub score %d", p.Score)
	})
	read("evaluateTrust", evalBody, func() {
		var ev struct{ Allowed bool }
		e.decode(e.Key, evalBody, "evaluateTrust", &ev)
		if !ev.Allowed {
			b.Fatal("evaluateTrust refused the hub")
		}
	})
	read("batchTrust100", gqlBody(benchBatchQuery, map[string]any{"ids": batch}), nil)
	read("transactionsPage", gqlBody(benchTxPageQuery, map[string]any{"agent": nil}), func() { checkPage(nil, 50) })
	read("transactionsPage/agent=hub", gqlBody(benchTxPageQuery, map[string]any{"agent": hub}), func() { checkPage(hub, 50) })
	read("transactionsPage/agent=quiet", gqlBody(benchTxPageQuery, map[string]any{"agent": quiet}), func() { checkPage(quiet, 5) })

	// With a daily limit, the policy reads the sender's outflow of the last 24 h.
	var upd struct{ ID string }
	e.decode(e.Key, gqlBody(benchUpdateDaily, map[string]any{"id": hub, "daily": "1000000000"}), "updateAgent", &upd)
	b.Run("evaluateTrust/dailyLimit", func(b *testing.B) {
		rows := windowRows()
		e.measure(b, e.Key, evalBody)
		b.ReportMetric(rows, "window-rows")
	})
	b.Run("execute/dailyLimit", func(b *testing.B) {
		rows := windowRows()
		e.measure(b, e.Key, execBodies...)
		b.ReportMetric(rows, "window-rows")
	})
	e.decode(e.Key, gqlBody(benchUpdateDaily, map[string]any{"id": hub, "daily": nil}), "updateAgent", &upd)
	b.Run("execute", func(b *testing.B) { e.measure(b, e.Key, execBodies...) })
	// Every window (rolling and calendar), a total and velocity limits,
	// counterparty lists, a minimum receiver score and trust tiers, none reached.
	e.decode(e.Key, gqlBody(benchSetPolicy, map[string]any{"id": hub, "orgs": []string{orgB}, "deny": []string{quiet}}), "setAgentPolicy", &upd)
	b.Run("execute/policy", func(b *testing.B) { e.measure(b, e.Key, execBodies...) })
	// The same two executes in turn, each timed on its own, so both see the
	// same load: a sender without a policy, then the hub with it.
	b.Run("execute/interleaved", func(b *testing.B) { e.interleave(b, twinBodies, execBodies) })
}

// interleave times pairs of requests, one of none and one of policy, and
// reports each one's ms/op and statements per request, and none/policy.
// The pair's order alternates, so neither kind always runs while the
// other's background work (what its commit sets off) is still going on.
func (e *benchEnv) interleave(b *testing.B, none, policy [][]byte) {
	b.Helper()
	var took [2]time.Duration
	var stmts [2]int64
	i := 0
	for b.Loop() {
		for j := range 2 {
			k := (i + j) % 2
			bodies := [2][][]byte{none, policy}[k]
			before, start := e.DB.Statements(), time.Now()
			if err := e.call(e.Key, bodies[i%len(bodies)]); err != nil {
				b.Fatal(err)
			}
			took[k] += time.Since(start)
			stmts[k] += e.DB.Statements() - before
		}
		i++
	}
	n := float64(b.N)
	b.ReportMetric(ms(took[0])/n, "none-ms/op")
	b.ReportMetric(ms(took[1])/n, "policy-ms/op")
	b.ReportMetric(float64(stmts[0])/n, "none-stmts/op")
	b.ReportMetric(float64(stmts[1])/n, "policy-stmts/op")
	b.ReportMetric(float64(took[0])/float64(took[1]), "none/policy")
}

const benchSetPolicy = `mutation($id: ID!, $orgs: [ID!]!, $deny: [ID!]!) { setAgentPolicy(agentId: $id, input: { timezone: "Europe/Berlin",
 spendLimits: [{amount: "900000000000", window: day}, {amount: "900000000000", window: week, mode: calendar},
  {amount: "900000000000", window: month}, {amount: "900000000000", window: month, mode: calendar},
  {amount: "900000000000", window: total}],
 velocityLimits: [{maxCount: 100000000, windowSeconds: 3600}, {maxCount: 100000000, windowSeconds: 86400, actions: ["purchase"]}],
 counterparties: {allowOrgs: $orgs, denyAgents: $deny}, minCounterpartyScore: 0,
 trustTiers: [{minScore: 0, limitPercent: 100}, {minScore: 900, limitPercent: 100}] }) { id } }`
