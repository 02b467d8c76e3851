package db

import (
	"context"
	"fmt"

	"github.com/uptrace/bun"

	"github.com/agenttrust/service/agent"
	"github.com/agenttrust/service/trust"
)

// recount recounts one agent's trust counters from the raw records:
// transactions (reversal records excluded), the refusals on its audit chain,
// and the disputes against it.
const recount = `
SELECT a.id AS agent_id,
  (SELECT count(*) FROM transactions t WHERE t.from_agent = a.id AND t.reversal_of IS NULL) AS completed,
  (SELECT count(*) FROM audit_entries e WHERE e.agent_id = a.id AND e.action = ?) AS refused,
  (SELECT count(*) FROM transactions t WHERE (t.from_agent = a.id OR t.to_agent = a.id)
      AND t.reversal_of IS NULL AND t.status = 'reversed') AS reversed,
  (SELECT count(*) FROM transactions t WHERE (t.from_agent = a.id OR t.to_agent = a.id) AND t.reversal_of IS NULL) AS transactions,
  (SELECT count(*) FROM disputes d WHERE d.agent_id = a.id) AS disputes
FROM agents a WHERE a.id = ?`

// RebuildTrust recomputes every agent's counters from the raw records and
// returns the agents whose stored counters differ. With fix, it stores the
// recomputed counters (and a new score, snapshot and event where it changes).
func (d *DB) RebuildTrust(ctx context.Context, fix bool) ([]trust.Drift, error) {
	var drifts []trust.Drift
	after := ""
	for {
		var ids []string
		err := d.bun.NewSelect().Model((*agentRow)(nil)).Column("id").Where("id > ?", after).
			Order("id").Limit(500).Scan(ctx, &ids)
		if err != nil {
			return nil, fmt.Errorf("list agents: %w", err)
		}
		for _, agentID := range ids {
			drift, err := d.compareTrust(ctx, agentID, fix)
			if err != nil {
				return nil, err
			}
			if drift != nil {
				drifts = append(drifts, *drift)
			}
		}
		if len(ids) < 500 {
			return drifts, nil
		}
		after = ids[len(ids)-1]
	}
}

// compareTrust recounts one agent under its row lock, so no execute can
// commit between the recount and the comparison.
func (d *DB) compareTrust(ctx context.Context, agentID string, fix bool) (*trust.Drift, error) {
	var drift *trust.Drift
	err := d.inTx(ctx, func(tx bun.Tx) error {
		var a agentRow
		if err := tx.NewSelect().Model(&a).Where("id = ?", agentID).For("UPDATE").Scan(ctx); err != nil {
			return fmt.Errorf("lock agent: %w", err)
		}
		var stored, counted trustRow
		if err := tx.NewSelect().Model(&stored).Where("agent_id = ?", agentID).Scan(ctx); err != nil {
			return fmt.Errorf("read trust counters: %w", err)
		}
		if err := tx.NewRaw(recount, agent.AuditTransactionRefused, agentID).Scan(ctx, &counted); err != nil {
			return fmt.Errorf("recount trust: %w", err)
		}
		counted.Attempts = counted.Completed + counted.Refused
		if sameCounters(stored, counted) {
			return nil
		}
		drift = &trust.Drift{AgentID: agentID, Stored: stored.counters(&a), Rebuilt: counted.counters(&a)}
		if !fix {
			return nil
		}
		delta := trustDelta{Attempts: counted.Attempts - stored.Attempts, Completed: counted.Completed - stored.Completed,
			Refused: counted.Refused - stored.Refused, Reversed: counted.Reversed - stored.Reversed,
			Disputes: counted.Disputes - stored.Disputes, Transactions: counted.Transactions - stored.Transactions}
		return applyTrust(ctx, tx, &a, delta, "rebuild:"+a.ID, d.Now())
	})
	return drift, err
}

func sameCounters(a, b trustRow) bool {
	return a.Attempts == b.Attempts && a.Completed == b.Completed && a.Refused == b.Refused &&
		a.Reversed == b.Reversed && a.Disputes == b.Disputes && a.Transactions == b.Transactions
}
