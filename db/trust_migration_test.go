package db_test

import (
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/agenttrust/service/db/dbtest"
)

// The decay migration carries the old plain counters into the new model by
// recomputing them from the raw records, which it leaves untouched: after
// it, `trust rebuild` finds no drift and the snapshot history is intact.
func TestTrustDecayMigration(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d, u := dbtest.Unmigrated(t)
	if err := d.MigrateBefore(ctx, "20261122110000"); err != nil {
		t.Fatalf("older migrations: %v", err)
	}
	now := time.Now().UTC()
	ago := func(h float64) time.Time { return now.Add(-time.Duration(h * float64(time.Hour))) }
	exec := func(q string, args ...any) {
		t.Helper()
		if err := d.Exec(ctx, q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	exec(`INSERT INTO orgs (id, name) VALUES ('org_a', 'a'), ('org_b', 'b')`)
	for _, a := range [][2]string{{"agent_a1", "org_a"}, {"agent_a2", "org_a"}, {"agent_b1", "org_b"}} {
		exec(`INSERT INTO agents (id, org_id, name, authorized_actions, spending_limit, currency, environment, status, fingerprint, created_at, updated_at)
			VALUES (?, ?, 'x', '{purchase}', 100, 'USD', 'sandbox', 'active', 'sha256:x', ?, ?)`, a[0], a[1], ago(24*60), ago(24*60))
		// The old counters hold numbers the new model does not use.
		exec(`INSERT INTO trust_counters (agent_id, attempts, completed, refused, reversed, disputes, transactions, score, assessment, updated_at)
			VALUES (?, 9, 7, 2, 1, 3, 8, 612, 'Moderate', ?)`, a[0], ago(1))
		exec(`INSERT INTO trust_snapshots (agent_id, at, score, assessment, cause) VALUES (?, ?, 500, 'Moderate', 'registration:x'), (?, ?, 612, 'Moderate', 'transaction:tx_1')`,
			a[0], ago(24*60), a[0], ago(1))
	}
	tx := func(txID, from, to, fromOrg, toOrg string, at time.Time, status string, reversalOf, reversedBy any) {
		exec(`INSERT INTO transactions (id, from_agent, to_agent, from_org, to_org, action, amount, currency, status, reversal_of, reversed_by, created_at)
			VALUES (?, ?, ?, ?, ?, 'purchase', 5, 'USD', ?, ?, ?, ?)`, txID, from, to, fromOrg, toOrg, status, reversalOf, reversedBy, at)
	}
	tx("tx_1", "agent_a1", "agent_b1", "org_a", "org_b", ago(24*40), "completed", nil, nil)
	tx("tx_2", "agent_a1", "agent_b1", "org_a", "org_b", ago(24*5), "completed", nil, nil)
	tx("tx_3", "agent_b1", "agent_a1", "org_b", "org_a", ago(24*3), "reversed", nil, "tx_3r")
	tx("tx_3r", "agent_a1", "agent_b1", "org_a", "org_b", ago(24*2), "reversed", "tx_3", nil)
	tx("tx_4", "agent_a1", "agent_a2", "org_a", "org_a", ago(10), "completed", nil, nil)
	for i, r := range []struct {
		code string
		h    float64
	}{{"invalid_amount", 48}, {"daily_limit_exceeded", 3}, {"trust_too_low", 2}, {"action_not_authorized", 24 * 20}} {
		exec(`INSERT INTO audit_entries (agent_id, sequence, action, at, actor, details, hash, previous_hash)
			VALUES ('agent_a1', ?, 'transaction.refused', ?, 'key_x', ?, 'h', 'p')`, i+1, ago(r.h), fmt.Sprintf(`{"reason_code": %q}`, r.code))
	}
	dispute := func(dID, agentID, reporter string, at time.Time, evidence string) {
		exec(`INSERT INTO disputes (id, agent_id, reporter_org, reason, evidence_ids, status, created_at) VALUES (?, ?, ?, 'r', ?, 'open', ?)`,
			dID, agentID, reporter, "{"+evidence+"}", at)
		exec(`INSERT INTO dispute_evidence (reporter_org, transaction_id, dispute_id) VALUES (?, ?, ?)`, reporter, evidence, dID)
	}
	dispute("disp_1", "agent_a1", "org_b", ago(24*30), "tx_1")
	dispute("disp_2", "agent_a1", "org_b", ago(24), "tx_2")
	dispute("disp_3", "agent_a2", "org_a", ago(5), "tx_4") // from its own organization

	// Later migrations (of other capabilities) apply after it.
	applied, err := d.Migrate(ctx)
	if err != nil || len(applied) == 0 || applied[0] != "20261122110000" {
		t.Fatalf("decay migration: %v %v", err, applied)
	}
	drifts, err := d.RebuildTrust(ctx, false)
	if err != nil || len(drifts) != 0 {
		t.Fatalf("drift after the migration: %v %+v", err, drifts)
	}
	var snapshots, evidence int
	var openA1, orgsA1, orgsA2 int64
	var completedA1 float64
	conn := dbtest.OpenSQL(u)
	defer conn.Close()
	if err := conn.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM trust_snapshots), (SELECT count(*) FROM dispute_evidence),
		(SELECT open_disputes FROM trust_counters WHERE agent_id = 'agent_a1'), (SELECT counterparty_orgs FROM trust_counters WHERE agent_id = 'agent_a1'),
		(SELECT counterparty_orgs FROM trust_counters WHERE agent_id = 'agent_a2'), (SELECT completed FROM trust_counters WHERE agent_id = 'agent_a1')`).
		Scan(&snapshots, &evidence, &openA1, &orgsA1, &orgsA2, &completedA1); err != nil {
		t.Fatal(err)
	}
	// a1: tx_1 (40 days) and tx_2 (5 days) count; tx_3 was reversed; tx_4 is inside org_a.
	want := pow2(-40.0/30) + pow2(-5.0/30)
	if snapshots != 6 || evidence != 3 || openA1 != 2 || orgsA1 != 1 || orgsA2 != 0 || completedA1 < want*0.999 || completedA1 > want*1.001 {
		t.Fatalf("after migration: %d snapshots, %d evidence rows, a1 open %d orgs %d completed %v (want %v), a2 orgs %d",
			snapshots, evidence, openA1, orgsA1, completedA1, want, orgsA2)
	}
}

func pow2(x float64) float64 { return math.Exp2(x) }
