package resolvers_test

import (
	"fmt"
	"testing"
	"time"
)

// BenchmarkSimulatePolicy: simulatePolicy replaying 10,000 transactions,
// the default bound, over 30 days, with 2,000 more in the 30 days before
// (which the simulated windows reach back into), a trust snapshot of the
// sender and of the receiver at every transaction (as executes across
// organizations write them), and a policy using every check that reads
// history: a window of every kind, velocity limits, tiers, a counterparty
// minimum and list, and approvals. It reports the Go side's CPU per
// simulation and the statements it runs.
func BenchmarkSimulatePolicy(b *testing.B) {
	e := newBenchEnv(b)
	orgB, keyB := e.NewOrg("globex")
	hub := e.registerMany(e.Key, "hub", 1, "1000")[0]
	theirs := e.registerMany(keyB, "their", 15, "1000")
	own := e.registerMany(e.Key, "own", 5, "1000")
	receivers := append(append([]string{}, theirs...), own...)
	orgs := make([]string, len(receivers))
	for i := range receivers {
		orgs[i] = orgB
		if i >= len(theirs) {
			orgs[i] = e.OrgID
		}
	}
	since := time.Now().UTC().Add(-30 * 24 * time.Hour).Truncate(time.Second)
	seed := `
INSERT INTO transactions (id, from_agent, to_agent, from_org, to_org, action, amount, currency, status, created_at)
SELECT $6 || lpad(g::text, 6, '0'), $1, ($2::text[])[1 + g % 20], $3, ($4::text[])[1 + g % 20],
       CASE WHEN g % 3 = 0 THEN 'refund' ELSE 'purchase' END, (1 + g % 100) + (g % 7) / 100.0, 'USD',
       CASE WHEN g % 50 = 0 THEN 'reversed' ELSE 'completed' END, $5::timestamptz + g * $7::interval
  FROM generate_series($8::int, $9::int) AS g`
	e.exec(seed, hub, receivers, e.OrgID, orgs, since, "tx_simp", "259.2 seconds", 0, 9_999)
	e.exec(seed, hub, receivers, e.OrgID, orgs, since, "tx_simb", "-1296 seconds", 1, 2_000)
	e.exec(`INSERT INTO agent_outflow_totals (agent_id, action, total)
SELECT from_agent, action, sum(amount) FROM transactions WHERE from_agent = $1 GROUP BY 1, 2`, hub)
	e.exec(`INSERT INTO trust_snapshots (agent_id, at, score, assessment, cause)
SELECT a, created_at, s, CASE WHEN s >= 700 THEN 'Verified' ELSE 'Moderate' END, 'transaction:' || id
  FROM transactions, LATERAL (VALUES (from_agent, 450 + (extract(epoch FROM created_at)::bigint / 3600) % 350),
                                     (to_agent, 480 + (extract(epoch FROM created_at)::bigint / 7200) % 300)) AS v (a, s)
 WHERE from_agent = $1`, hub)
	e.exec(`VACUUM ANALYZE`)

	policy := map[string]any{"timezone": "America/New_York",
		"spendLimits": []any{spendLimit("15000", "day", "rolling", nil), spendLimit("90000", "week", "calendar", nil),
			spendLimit("35000", "week", "rolling", []string{"refund"}), spendLimit("220000", "month", "rolling", []string{"purchase"}),
			spendLimit("500000", "total", "rolling", nil)},
		"velocityLimits":       []any{velocity(13, 3600, nil), velocity(1, 800, []string{"refund"})},
		"counterparties":       map[string]any{"denyAgents": []string{theirs[0]}},
		"minCounterpartyScore": 500,
		"trustTiers":           []any{map[string]any{"minScore": 0, "limitPercent": 60}, map[string]any{"minScore": 600, "limitPercent": 100}},
		"approval":             map[string]any{"above": "95", "expiresAfterSeconds": 3600}}
	body := gqlBody(`query($id: ID!, $policy: SpendPolicyInput!, $since: Time!) { simulatePolicy(agentId: $id, policy: $policy, since: $since) {
  replayed allowed refused heldForApproval refusedByCode { reasonCode count }
  outcomes { transaction { id amount createdAt } allowed requiresApproval reasonCode reason } peaks { window mode limit peak at } } }`,
		map[string]any{"id": hub, "policy": policy, "since": since.Format(time.RFC3339Nano)})
	var s struct {
		Replayed, Allowed, Refused, HeldForApproval int
		RefusedByCode                               []struct {
			ReasonCode string
			Count      int
		}
	}
	e.decode(e.Key, body, "simulatePolicy", &s)
	if s.Replayed != 10_000 || len(s.RefusedByCode) < 5 || s.Allowed < 1_000 || s.HeldForApproval == 0 {
		b.Fatalf("replayed %d: %d allowed, %d held, %d refused %v", s.Replayed, s.Allowed, s.HeldForApproval, s.Refused, s.RefusedByCode)
	}
	b.Logf("replayed %d: %d allowed, %d held, %d refused %v", s.Replayed, s.Allowed, s.HeldForApproval, s.Refused, s.RefusedByCode)
	until := time.Now().UTC().Format(time.RFC3339Nano)
	e.explain("simulatePolicy: the history", fmt.Sprintf(`SELECT t.id, t.to_agent, t.action, t.amount, t.currency, t.created_at, t.mandate_id,
       (SELECT s.score FROM trust_snapshots s WHERE s.agent_id = t.from_agent AND s.at < t.created_at ORDER BY s.at DESC, s.seq DESC LIMIT 1),
       (SELECT s.score FROM trust_snapshots s WHERE s.agent_id = t.to_agent AND s.at < t.created_at ORDER BY s.at DESC, s.seq DESC LIMIT 1)
  FROM transactions t
 WHERE t.from_agent = '%s' AND reversal_of IS NULL AND status IN ('completed', 'reversed') AND t.created_at >= '%s' AND t.created_at < '%s'
 ORDER BY t.created_at, t.id LIMIT 10001`, hub, since.Format(time.RFC3339Nano), until))
	e.measure(b, e.Key, body)
}
