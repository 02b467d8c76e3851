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

// trustCounters are an agent's trust_counters columns, read along with its
// agent row (agentsFor) or on their own (Profiles); written by storeTrust.
type trustCounters struct {
	EvidenceAt       time.Time  `bun:"evidence_at,scanonly"`
	Completed        float64    `bun:"completed,scanonly"`
	Failures         float64    `bun:"failures,scanonly"`
	LimitRefusals    float64    `bun:"limit_refusals,scanonly"`
	Reversals        float64    `bun:"reversals,scanonly"`
	DisputingOrgs    float64    `bun:"disputing_orgs,scanonly"`
	OpenDisputes     int64      `bun:"open_disputes,scanonly"`
	CounterpartyOrgs int64      `bun:"counterparty_orgs,scanonly"`
	FirstExternalAt  *time.Time `bun:"first_external_at,scanonly"`
	Score            int        `bun:"score,scanonly"`
	Assessment       string     `bun:"assessment,scanonly"`
	UpdatedAt        time.Time  `bun:"updated_at,scanonly"`
}

// scoreColumns selects the trust_counters AS tc a read scores at the
// current time (trustColumns without the stored score and assessment,
// which only a write compares its new score with) into an agentRow's
// embedded TC.
const scoreColumns = counterColumns + `, tc.updated_at AS tc_updated_at`

// counterColumns are scoreColumns without updated_at (the profile's
// updatedAt): the counters the score is computed from.
const counterColumns = `tc.evidence_at AS tc_evidence_at, tc.completed AS tc_completed, tc.failures AS tc_failures,
 tc.limit_refusals AS tc_limit_refusals, tc.reversals AS tc_reversals, tc.disputing_orgs AS tc_disputing_orgs,
 tc.open_disputes AS tc_open_disputes, tc.counterparty_orgs AS tc_counterparty_orgs,
 tc.first_external_at AS tc_first_external_at`

// trustColumns selects every column of trust_counters AS tc into an
// agentRow's embedded TC, as a write reads them under the row's lock.
const trustColumns = scoreColumns + `, tc.score AS tc_score, tc.assessment AS tc_assessment`

type snapshotRow struct {
	bun.BaseModel `bun:"table:trust_snapshots"`
	Seq           int64     `bun:"seq,pk,autoincrement"`
	AgentID       string    `bun:"agent_id"`
	At            time.Time `bun:"at"`
	Score         int       `bun:"score"`
	Assessment    string    `bun:"assessment"`
	Cause         *string   `bun:"cause"`
}

// counters converts the stored columns for the trust model.
func (tc *trustCounters) counters(status string) trust.Counters {
	c := trust.Counters{At: tc.EvidenceAt, Completed: tc.Completed, Failures: tc.Failures, LimitRefusals: tc.LimitRefusals,
		Reversals: tc.Reversals, DisputingOrgs: tc.DisputingOrgs, OpenDisputes: tc.OpenDisputes,
		CounterpartyOrgs: tc.CounterpartyOrgs, Suspended: status == string(agent.Suspended)}
	if tc.FirstExternalAt != nil {
		c.FirstExternalAt = *tc.FirstExternalAt
	}
	return c
}

// hasCounters reports whether the row was read with trust counters (a page
// joins them with LEFT JOIN; every agent has them unless deleted).
func (r *agentRow) hasCounters() bool { return !r.TC.EvidenceAt.IsZero() }

// trustOf is the agent's trust counters as read with its row.
func (r *agentRow) trustOf() trust.Counters { return r.TC.counters(r.Status) }

// initTrust stores a new agent's counters and first snapshot.
func initTrust(ctx context.Context, tx *txn, a *agentRow, now time.Time) error {
	res := trust.Compute(trust.Counters{At: now}, now)
	_, err := tx.NewRaw(`INSERT INTO trust_counters (agent_id, evidence_at, score, assessment, updated_at) VALUES (?, ?, ?, ?, ?)`,
		a.ID, now, res.Score, res.Assessment, now).Exec(ctx)
	if err != nil {
		return fmt.Errorf("insert trust counters: %w", err)
	}
	cause := "registration:" + a.ID
	snap := snapshotRow{AgentID: a.ID, At: now, Score: res.Score, Assessment: res.Assessment, Cause: &cause}
	if _, err := tx.NewInsert().Model(&snap).Exec(ctx); err != nil {
		return fmt.Errorf("insert trust snapshot: %w", err)
	}
	return nil
}

// applyTrust applies one action to a's counters (the rule is trust.Apply)
// and stores them with the score. a must have been read with its counters
// (agentsFor) under its row lock, so counter updates never race.
func applyTrust(ctx context.Context, tx *txn, a *agentRow, act trust.Action, cause string) error {
	return storeTrust(ctx, tx, a, trust.Apply(a.trustOf(), act), cause, act.At)
}

// storeTrust stores an agent's new counters and the score they give at now;
// when the score or assessment differs from the stored one it writes a
// snapshot and a trust.score_changed event naming the cause.
func storeTrust(ctx context.Context, tx *txn, a *agentRow, c trust.Counters, cause string, now time.Time) error {
	res := trust.Compute(c, now)
	c = c.DecayTo(now)
	var first *time.Time
	if !c.FirstExternalAt.IsZero() {
		first = &c.FirstExternalAt
	}
	prevScore, prevAssessment := a.TC.Score, a.TC.Assessment
	err := tx.write(ctx, "store trust counters", updateTrust, c.At, c.Completed, c.Failures, c.LimitRefusals,
		c.Reversals, c.DisputingOrgs, c.OpenDisputes, c.CounterpartyOrgs, first, res.Score, res.Assessment, now, a.ID)
	if err != nil {
		return err
	}
	a.TC = trustCounters{EvidenceAt: c.At, Completed: c.Completed, Failures: c.Failures, LimitRefusals: c.LimitRefusals,
		Reversals: c.Reversals, DisputingOrgs: c.DisputingOrgs, OpenDisputes: c.OpenDisputes,
		CounterpartyOrgs: c.CounterpartyOrgs, FirstExternalAt: first, Score: res.Score, Assessment: res.Assessment, UpdatedAt: now}
	if res.Score == prevScore && res.Assessment == prevAssessment {
		return nil
	}
	if err := tx.write(ctx, "insert trust snapshot", insertSnapshot, a.ID, now, res.Score, res.Assessment, cause); err != nil {
		return err
	}
	data := trust.ScoreChanged(a.ID, prevScore, prevAssessment, res, cause)
	_, err = appendEvent(ctx, tx, event.TrustScoreChanged, now, data, a.OrgID)
	return err
}

// updateTrust writes an agent's counters and score.
const updateTrust = `UPDATE trust_counters SET evidence_at = $1, completed = $2, failures = $3, limit_refusals = $4,
 reversals = $5, disputing_orgs = $6, open_disputes = $7, counterparty_orgs = $8, first_external_at = $9, score = $10,
 assessment = $11, updated_at = $12 WHERE agent_id = $13`

// insertSnapshot stores a trust snapshot.
const insertSnapshot = `INSERT INTO trust_snapshots (agent_id, at, score, assessment, cause) VALUES ($1, $2, $3, $4, $5)`

// countCounterparties adds delta to each (agent, other organization) pair's
// count of completed, not reversed transactions, and returns each agent's
// count before the change: the fact trust.Apply needs to count
// counterparty organizations in O(1).
func countCounterparties(ctx context.Context, tx *txn, delta int64, pairs ...[2]string) (map[string]int64, error) {
	values := make([]string, 0, len(pairs))
	args := make([]any, 0, 3*len(pairs)+1)
	for _, p := range pairs {
		values = append(values, "(?, ?, ?::bigint)")
		args = append(args, p[0], p[1], delta)
	}
	q := `INSERT INTO trust_counterparties (agent_id, org_id, transactions) VALUES ` + strings.Join(values, ", ") + `
ON CONFLICT (agent_id, org_id) DO UPDATE SET transactions = trust_counterparties.transactions + EXCLUDED.transactions
RETURNING agent_id, transactions`
	if delta < 0 { // a decrement never creates a pair
		q = `UPDATE trust_counterparties p SET transactions = p.transactions + v.delta
FROM (VALUES ` + strings.Join(values, ", ") + `) AS v (agent_id, org_id, delta)
WHERE p.agent_id = v.agent_id AND p.org_id = v.org_id RETURNING p.agent_id, p.transactions`
	}
	// Read with rows.Scan, not bun's reflective Scan: every execute runs it.
	rows, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("count counterparties: %w", err)
	}
	defer rows.Close()
	before := make(map[string]int64, len(pairs))
	for rows.Next() {
		var (
			agentID      string
			transactions int64
		)
		if err := rows.Scan(&agentID, &transactions); err != nil {
			return nil, fmt.Errorf("count counterparties: %w", err)
		}
		before[agentID] = transactions - delta
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("count counterparties: %w", err)
	}
	return before, nil
}
