package db

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/agenttrust/service/agent"
	"github.com/agenttrust/service/event"
	"github.com/agenttrust/service/trust"
)

type trustRow struct {
	bun.BaseModel `bun:"table:trust_counters"`
	AgentID       string    `bun:"agent_id,pk"`
	Attempts      int64     `bun:"attempts"`
	Completed     int64     `bun:"completed"`
	Refused       int64     `bun:"refused"`
	Reversed      int64     `bun:"reversed"`
	Disputes      int64     `bun:"disputes"`
	Transactions  int64     `bun:"transactions"`
	Score         int       `bun:"score"`
	Assessment    string    `bun:"assessment"`
	UpdatedAt     time.Time `bun:"updated_at"`
}

type snapshotRow struct {
	bun.BaseModel `bun:"table:trust_snapshots"`
	Seq           int64     `bun:"seq,pk,autoincrement"`
	AgentID       string    `bun:"agent_id"`
	At            time.Time `bun:"at"`
	Score         int       `bun:"score"`
	Assessment    string    `bun:"assessment"`
	Cause         *string   `bun:"cause"`
}

func (r *trustRow) counters(a *agentRow) trust.Counters {
	return trust.Counters{Attempts: r.Attempts, Completed: r.Completed, Refused: r.Refused, Reversed: r.Reversed,
		Disputes: r.Disputes, Transactions: r.Transactions, Suspended: a.Status == string(agent.Suspended),
		RegisteredAt: a.CreatedAt}
}

// trustDelta is how one event changes an agent's counters.
type trustDelta struct {
	Attempts, Completed, Refused, Reversed, Disputes, Transactions int64
}

// initTrust stores a new agent's counters and first snapshot.
func initTrust(ctx context.Context, tx bun.Tx, a *agentRow, now time.Time) error {
	row := trustRow{AgentID: a.ID, UpdatedAt: now}
	res := trust.Compute(row.counters(a), now)
	row.Score, row.Assessment = res.Score, res.Assessment
	if _, err := tx.NewInsert().Model(&row).Exec(ctx); err != nil {
		return fmt.Errorf("insert trust counters: %w", err)
	}
	cause := "registration:" + a.ID
	snap := snapshotRow{AgentID: a.ID, At: now, Score: row.Score, Assessment: row.Assessment, Cause: &cause}
	if _, err := tx.NewInsert().Model(&snap).Exec(ctx); err != nil {
		return fmt.Errorf("insert trust snapshot: %w", err)
	}
	return nil
}

// applyTrust adds d to a's counters and recomputes its score; when the score
// or assessment changes it writes a snapshot and a trust.score_changed event.
// The caller holds a's row lock, so counter updates never race.
func applyTrust(ctx context.Context, tx bun.Tx, a *agentRow, d trustDelta, cause string, now time.Time) error {
	var row trustRow
	err := tx.NewUpdate().Model(&row).
		Set("attempts = attempts + ?", d.Attempts).Set("completed = completed + ?", d.Completed).
		Set("refused = refused + ?", d.Refused).Set("reversed = reversed + ?", d.Reversed).
		Set("disputes = disputes + ?", d.Disputes).Set("transactions = transactions + ?", d.Transactions).
		Where("agent_id = ?", a.ID).Returning("*").Scan(ctx)
	if err != nil {
		return fmt.Errorf("update trust counters: %w", err)
	}
	res := trust.Compute(row.counters(a), now)
	if res.Score == row.Score && res.Assessment == row.Assessment {
		return nil
	}
	prevScore, prevAssessment := row.Score, row.Assessment
	if _, err := tx.NewUpdate().Model((*trustRow)(nil)).Set("score = ?", res.Score).Set("assessment = ?", res.Assessment).
		Set("updated_at = ?", now).Where("agent_id = ?", a.ID).Exec(ctx); err != nil {
		return fmt.Errorf("store trust score: %w", err)
	}
	snap := snapshotRow{AgentID: a.ID, At: now, Score: res.Score, Assessment: res.Assessment, Cause: &cause}
	if _, err := tx.NewInsert().Model(&snap).Exec(ctx); err != nil {
		return fmt.Errorf("insert trust snapshot: %w", err)
	}
	causeType, causeID, _ := strings.Cut(cause, ":")
	data := map[string]any{"agent_id": a.ID, "previous_score": prevScore, "score": res.Score,
		"previous_assessment": prevAssessment, "assessment": res.Assessment,
		"cause": cause, "cause_type": causeType, "cause_id": causeID}
	_, err = appendEvent(ctx, tx, event.TrustScoreChanged, now, data, a.OrgID)
	return err
}
