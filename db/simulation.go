package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/agenttrust/service/agent"
	"github.com/agenttrust/service/auth"
	"github.com/agenttrust/service/mandate"
	"github.com/agenttrust/service/money"
	"github.com/agenttrust/service/policy"
	"github.com/agenttrust/service/trust"
)

// SimulationService implements agent.Simulator on Postgres.
type SimulationService struct{ db *DB }

// NewSimulationService returns the simulation service.
func NewSimulationService(d *DB) *SimulationService { return &SimulationService{db: d} }

var _ agent.Simulator = (*SimulationService)(nil)

// SimulatePolicy reads the agent, its period's transactions with the
// scores in force just before each, their receivers, the mandates named and
// the outflow before the period that the simulated windows count, in one
// read-only snapshot of five statements at most whatever the period holds;
// replays them with policy.Simulate; and reads the listed outcomes'
// transactions in one more.
func (s *SimulationService) SimulatePolicy(ctx context.Context, p auth.Principal, q agent.SimulationQuery, charge func(rows int) error) (*agent.Simulation, error) {
	now := s.db.Now()
	if err := q.Validate(now); err != nil {
		return nil, err
	}
	until := now
	if q.Until != nil {
		until = *q.Until
	}
	var r simulationRead
	opts := &sql.TxOptions{ReadOnly: true, Isolation: sql.LevelRepeatableRead}
	err := s.db.bun.RunInTx(ctx, opts, func(ctx context.Context, tx bun.Tx) error {
		return r.read(ctx, s.db, tx, p, q, until)
	})
	if err != nil {
		return nil, err
	}
	if len(r.history) > q.Max {
		if err := charged(charge, r.rows); err != nil {
			return nil, err
		}
		return nil, agent.TooMany(q.Max)
	}
	sim := policy.Simulate(r.replay)
	out := &agent.Simulation{Replayed: sim.Replayed, Allowed: sim.Allowed, Refused: sim.Refused,
		HeldForApproval: sim.HeldForApproval, RefusedByCode: sim.RefusedByCode, Peaks: sim.Peaks}
	if out.Outcomes, err = s.outcomes(ctx, r.history, sim.Outcomes); err != nil {
		return nil, err
	}
	if err := charged(charge, r.rows+len(out.Outcomes)); err != nil {
		return nil, err
	}
	return out, nil
}

// charged calls charge, when there is one, with rows.
func charged(charge func(int) error, rows int) error {
	if charge == nil {
		return nil
	}
	return charge(rows)
}

// outcomes pairs each listed decision with its transaction, read in one statement.
func (s *SimulationService) outcomes(ctx context.Context, history []pastRow, listed []policy.Outcome) ([]agent.SimulatedOutcome, error) {
	if len(listed) == 0 {
		return nil, nil
	}
	ids := make([]string, len(listed))
	for i, o := range listed {
		ids[i] = history[o.Index].ID
	}
	var rows []transactionRow
	if err := s.db.bun.NewSelect().Model(&rows).Where("id IN (?)", bun.In(ids)).Scan(ctx); err != nil {
		return nil, fmt.Errorf("read simulated transactions: %w", err)
	}
	byID := make(map[string]*transactionRow, len(rows))
	for i := range rows {
		byID[rows[i].ID] = &rows[i]
	}
	out := make([]agent.SimulatedOutcome, len(listed))
	for i, o := range listed {
		row := byID[ids[i]]
		if row == nil {
			return nil, fmt.Errorf("read simulated transactions: %s is gone", ids[i])
		}
		d := o.Decision
		out[i] = agent.SimulatedOutcome{Transaction: row.transaction(), Allowed: d.Allowed,
			RequiresApproval: d.RequiresApproval, ReasonCode: d.ReasonCode, Reason: d.Reason}
	}
	return out, nil
}

// simulationRead is what a simulation reads: the replay, the history's
// rows, and how many rows were read.
type simulationRead struct {
	replay  policy.Replay
	history []pastRow
	rows    int
}

// pastRow is one row of simulationHistorySQL; readPast is its one reader.
type pastRow struct {
	ID            string
	ToAgent       string
	Action        string
	Amount        money.Amount
	Currency      money.Currency
	CreatedAt     time.Time
	MandateID     *string
	SenderScore   *int
	ReceiverScore *int
}

// simulationHistorySQL reads agent ?0's counted outflow in [?1, ?2), oldest
// first, at most ?3 rows, each with both parties' scores in force just
// before it: their latest snapshots taken earlier (the snapshot a
// transaction causes carries its own time, and describes the score after it).
const simulationHistorySQL = `
SELECT t.id, t.to_agent, t.action, t.amount, t.currency, t.created_at, t.mandate_id,
       (SELECT s.score FROM trust_snapshots s WHERE s.agent_id = t.from_agent AND s.at < t.created_at ORDER BY s.at DESC, s.seq DESC LIMIT 1),
       (SELECT s.score FROM trust_snapshots s WHERE s.agent_id = t.to_agent AND s.at < t.created_at ORDER BY s.at DESC, s.seq DESC LIMIT 1)
  FROM transactions t
 WHERE t.from_agent = ?0 AND ` + countedOutflow + ` AND t.created_at >= ?1 AND t.created_at < ?2
 ORDER BY t.created_at, t.id
 LIMIT ?3`

func readPast(rows *sql.Rows, n int) ([]pastRow, error) {
	defer rows.Close()
	out := make([]pastRow, 0, n)
	for rows.Next() {
		var r pastRow
		if err := rows.Scan(&r.ID, &r.ToAgent, &r.Action, &r.Amount, &r.Currency, &r.CreatedAt, &r.MandateID,
			&r.SenderScore, &r.ReceiverScore); err != nil {
			return nil, err
		}
		r.CreatedAt = r.CreatedAt.UTC()
		out = append(out, r)
	}
	return out, rows.Err()
}

// simulationBeforeSQL reads agent ?0's counted outflow in [?1, ?2), one
// row each, and with ?4 what each action's running total holds before ?1
// (the total less every counted row from ?1 on), capped at ?3, at NULL.
const simulationBeforeSQL = `
SELECT created_at, action, amount, 1 FROM transactions
 WHERE from_agent = ?0 AND ` + countedOutflow + ` AND created_at >= ?1 AND created_at < ?2
UNION ALL
SELECT NULL, o.action, least(o.total - coalesce((SELECT sum(amount) FROM transactions
        WHERE from_agent = ?0 AND ` + countedOutflow + ` AND created_at >= ?1 AND action = o.action), 0), ?3::numeric), 0
  FROM agent_outflow_totals o WHERE o.agent_id = ?0 AND ?4::bool`

// simulatedAgent is the agent with its score in force at the end of the period.
type simulatedAgent struct {
	agentRow   `bun:",extend"`
	FinalScore *int `bun:"final_score,scanonly"`
}

// simulatedMandate is a mandate with what it spent from the period's start on.
type simulatedMandate struct {
	mandateRow `bun:",extend"`
	SpentSince money.Amount `bun:"spent_since,scanonly"`
	UsesSince  int          `bun:"uses_since,scanonly"`
}

func (r *simulationRead) read(ctx context.Context, d *DB, tx bun.Tx, p auth.Principal, q agent.SimulationQuery, until time.Time) error {
	var a simulatedAgent
	err := tx.NewSelect().Model(&a).ColumnExpr("?TableAlias.*").
		ColumnExpr("(SELECT s.score FROM trust_snapshots s WHERE s.agent_id = ?TableAlias.id AND s.at < ? ORDER BY s.at DESC, s.seq DESC LIMIT 1) AS final_score", until).
		Where("?TableAlias.id = ? AND ?TableAlias.org_id = ?", q.AgentID, p.OrgID).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return agentNotFound(q.AgentID)
	}
	if err != nil {
		return fmt.Errorf("read agent: %w", err)
	}
	simulated, _, err := q.Policy.ApplyPolicyAs(*a.agent(), "policy")
	if err != nil {
		return err
	}
	sender := policy.Party{ID: simulated.ID, OrgID: simulated.OrgID, Environment: string(simulated.Environment),
		Currency: simulated.Currency, AuthorizedActions: simulated.AuthorizedActions, SpendingLimit: simulated.SpendingLimit,
		DailyLimit: simulated.DailyLimit, Policy: simulated.Policy}
	r.replay = policy.Replay{Sender: sender, FinalScore: a.FinalScore}
	rows, err := tx.QueryContext(ctx, simulationHistorySQL, q.AgentID, q.Since, until, q.Max+1)
	if err != nil {
		return fmt.Errorf("read simulated history: %w", err)
	}
	if r.history, err = readPast(rows, min(q.Max+1, 1024)); err != nil {
		return fmt.Errorf("read simulated history: %w", err)
	}
	r.rows = 1 + len(r.history)
	if len(r.history) > q.Max || len(r.history) == 0 {
		return nil
	}
	receivers, err := r.receivers(ctx, tx)
	if err != nil {
		return err
	}
	mandates, err := r.mandates(ctx, tx, q)
	if err != nil {
		return err
	}
	if err := r.before(ctx, tx, q); err != nil {
		return err
	}
	r.replay.History = make([]policy.Past, len(r.history))
	for i, h := range r.history {
		recv := receivers[h.ToAgent]
		if recv == nil {
			return fmt.Errorf("read simulated receivers: %s is gone", h.ToAgent)
		}
		past := policy.Past{At: h.CreatedAt, Action: h.Action, Amount: h.Amount, Currency: h.Currency,
			Receiver: policy.Party{ID: recv.ID, OrgID: recv.OrgID, Score: h.ReceiverScore, Environment: recv.Environment,
				Currency: recv.Currency}, SenderScore: h.SenderScore, MandateID: h.MandateID}
		if h.SenderScore != nil {
			past.SenderAssessment = trust.Assess(*h.SenderScore)
		}
		r.replay.History[i] = past
	}
	r.replay.Mandates = mandates
	return nil
}

// receivers reads the history's receivers by id.
func (r *simulationRead) receivers(ctx context.Context, tx bun.Tx) (map[string]*agentRow, error) {
	seen := map[string]bool{}
	var ids []string
	for _, h := range r.history {
		if !seen[h.ToAgent] {
			seen[h.ToAgent] = true
			ids = append(ids, h.ToAgent)
		}
	}
	var rows []agentRow
	if err := tx.NewSelect().Model(&rows).Column("id", "org_id", "currency", "environment").
		Where("id IN (?)", bun.In(ids)).Scan(ctx); err != nil {
		return nil, fmt.Errorf("read simulated receivers: %w", err)
	}
	r.rows += len(rows)
	return byID(rows), nil
}

// mandates reads the mandates the history names, each with its spending
// as it stood when the period began: what it has spent less what the
// counted rows naming it from then on spent.
func (r *simulationRead) mandates(ctx context.Context, tx bun.Tx, q agent.SimulationQuery) (map[string]*mandate.Mandate, error) {
	seen := map[string]bool{}
	var ids []string
	for _, h := range r.history {
		if h.MandateID != nil && !seen[*h.MandateID] {
			seen[*h.MandateID] = true
			ids = append(ids, *h.MandateID)
		}
	}
	if len(ids) == 0 {
		return nil, nil
	}
	var rows []simulatedMandate
	err := tx.NewSelect().Model(&rows).ColumnExpr("?TableAlias.*").
		ColumnExpr("coalesce(s.amount, 0) AS spent_since, coalesce(s.n, 0) AS uses_since").
		Join(`LEFT JOIN LATERAL (SELECT sum(amount) AS amount, count(*) AS n FROM transactions
 WHERE from_agent = ?TableAlias.agent_id AND mandate_id = ?TableAlias.id AND `+countedOutflow+` AND created_at >= ?) AS s ON true`, q.Since).
		Where("?TableAlias.id IN (?) AND ?TableAlias.agent_id = ?", bun.In(ids), q.AgentID).Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("read simulated mandates: %w", err)
	}
	r.rows += len(rows)
	out := make(map[string]*mandate.Mandate, len(rows))
	for i := range rows {
		m := rows[i].mandate(q.Since)
		m.Spent, m.Uses = m.Spent.Sub(rows[i].SpentSince), m.Uses-rows[i].UsesSince
		out[m.ID] = m
	}
	return out, nil
}

// before reads the outflow before the period that the simulated windows
// count from its first transaction on (policy.Replay.Before).
func (r *simulationRead) before(ctx context.Context, qr bun.IDB, q agent.SimulationQuery) error {
	sender := r.replay.Sender
	from, total := sender.Since(r.history[0].CreatedAt), sender.HasTotal()
	if !from.Before(q.Since) && !total {
		return nil
	}
	flows, err := readOutflows(ctx, qr, "read outflow before the period", simulationBeforeSQL, q.AgentID, from, q.Since, money.MaxAmount, total)
	if err != nil {
		return err
	}
	r.rows += len(flows)
	r.replay.Before = flows
	return nil
}
