package db

import (
	"context"
	"fmt"
	"time"

	"github.com/agenttrust/service/agent"
	"github.com/agenttrust/service/trust"
)

// RebuildTrust recomputes every agent's counters from the raw records
// (transactions, the refusals on its audit chain, the disputes against it)
// with trust.Replay, the same rules the write path applies, and returns the
// agents whose stored counters, decayed to now, differ. With fix, it stores
// the recomputed counters and counterparty tallies (and a new score,
// snapshot and event where the score changes).
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

// compareTrust replays one agent's records under its row lock, so no
// execute can commit between the replay and the comparison.
func (d *DB) compareTrust(ctx context.Context, agentID string, fix bool) (*trust.Drift, error) {
	var drift *trust.Drift
	err := d.inTx(ctx, func(tx *txn) error {
		parties, err := lockAgents(ctx, tx, agentID)
		if err != nil {
			return err
		}
		a := parties[agentID]
		if a == nil {
			return nil // deleted meanwhile: nothing to compare
		}
		h, err := trustHistory(ctx, tx, a)
		if err != nil {
			return err
		}
		now := d.Now()
		stored, rebuilt := a.trustOf().DecayTo(now), trust.Replay(h, now)
		if stored.Close(rebuilt) {
			return nil
		}
		drift = &trust.Drift{AgentID: agentID, Stored: stored, Rebuilt: rebuilt}
		if !fix {
			return nil
		}
		if err := recountCounterparties(ctx, tx, agentID); err != nil {
			return err
		}
		return storeTrust(ctx, tx, a, rebuilt, "rebuild:"+a.ID, now)
	})
	return drift, err
}

// trustHistory reads the raw records trust.Replay needs for one agent.
func trustHistory(ctx context.Context, tx *txn, a *agentRow) (trust.History, error) {
	h := trust.History{Suspended: a.Status == string(agent.Suspended)}
	var txs []struct {
		CreatedAt  time.Time  `bun:"created_at"`
		FromAgent  string     `bun:"from_agent"`
		FromOrg    string     `bun:"from_org"`
		ToOrg      string     `bun:"to_org"`
		ReversedAt *time.Time `bun:"reversed_at"`
	}
	err := tx.NewSelect().TableExpr("transactions AS t").
		ColumnExpr("t.created_at, t.from_agent, t.from_org, t.to_org, r.created_at AS reversed_at").
		Join("LEFT JOIN transactions AS r ON r.id = t.reversed_by").
		Where("(t.from_agent = ? OR t.to_agent = ?)", a.ID, a.ID).Where("t.reversal_of IS NULL").
		Where("t.status IN ('completed', 'reversed')").Scan(ctx, &txs)
	if err != nil {
		return h, fmt.Errorf("read transactions: %w", err)
	}
	for _, t := range txs {
		r := trust.TransactionRecord{At: t.CreatedAt, SameOrg: t.FromOrg == t.ToOrg, Sender: t.FromAgent == a.ID, CounterpartyOrg: t.FromOrg}
		if r.Sender {
			r.CounterpartyOrg = t.ToOrg
		}
		if t.ReversedAt != nil {
			r.ReversedAt = *t.ReversedAt
		}
		h.Transactions = append(h.Transactions, r)
	}
	err = tx.NewSelect().TableExpr("audit_entries").ColumnExpr("at, details->>'reason_code' AS reason_code").
		Where("agent_id = ? AND action = ?", a.ID, agent.AuditTransactionRefused).Scan(ctx, &h.Refusals)
	if err != nil {
		return h, fmt.Errorf("read refusals: %w", err)
	}
	var disputes []disputeRow
	if err := tx.NewSelect().Model(&disputes).Where("agent_id = ?", a.ID).Scan(ctx); err != nil {
		return h, fmt.Errorf("read disputes: %w", err)
	}
	for _, d := range disputes {
		h.Disputes = append(h.Disputes, trust.DisputeRecord{At: d.CreatedAt, ReporterOrg: d.ReporterOrg,
			SameOrg: d.ReporterOrg == a.OrgID, WithdrawnAt: d.WithdrawnAt})
	}
	return h, nil
}

// recountCounterparties rewrites an agent's counterparty tallies from its transactions.
func recountCounterparties(ctx context.Context, tx *txn, agentID string) error {
	if _, err := tx.NewDelete().TableExpr("trust_counterparties").Where("agent_id = ?", agentID).Exec(ctx); err != nil {
		return fmt.Errorf("clear counterparties: %w", err)
	}
	_, err := tx.NewRaw(`INSERT INTO trust_counterparties (agent_id, org_id, transactions)
SELECT ?, CASE WHEN from_agent = ? THEN to_org ELSE from_org END, count(*) FROM transactions
WHERE (from_agent = ? OR to_agent = ?) AND reversal_of IS NULL AND status = 'completed' AND from_org <> to_org
GROUP BY 2`, agentID, agentID, agentID, agentID).Exec(ctx)
	if err != nil {
		return fmt.Errorf("recount counterparties: %w", err)
	}
	return nil
}
