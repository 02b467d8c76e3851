package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"time"

	"github.com/uptrace/bun"

	"github.com/agenttrust/service/agent"
	"github.com/agenttrust/service/auth"
	"github.com/agenttrust/service/event"
	"github.com/agenttrust/service/failure"
	"github.com/agenttrust/service/id"
	"github.com/agenttrust/service/money"
	"github.com/agenttrust/service/policy"
	"github.com/agenttrust/service/transaction"
	"github.com/agenttrust/service/trust"
)

type transactionRow struct {
	bun.BaseModel `bun:"table:transactions"`
	ID            string         `bun:"id,pk"`
	FromAgent     string         `bun:"from_agent"`
	ToAgent       string         `bun:"to_agent"`
	FromOrg       string         `bun:"from_org"`
	ToOrg         string         `bun:"to_org"`
	Action        string         `bun:"action"`
	Amount        money.Amount   `bun:"amount"`
	Currency      money.Currency `bun:"currency"`
	Memo          *string        `bun:"memo"`
	Status        string         `bun:"status"`
	ReversalOf    *string        `bun:"reversal_of"`
	ReversedBy    *string        `bun:"reversed_by"`
	Reason        *string        `bun:"reason"`
	CreatedAt     time.Time      `bun:"created_at"`
	ExpiresAt     *time.Time     `bun:"expires_at"`
	DecidedAt     *time.Time     `bun:"decided_at"`
	DecidedBy     *string        `bun:"decided_by"`
	MandateID     *string        `bun:"mandate_id"`
}

func (r *transactionRow) transaction() *transaction.Transaction {
	return &transaction.Transaction{ID: r.ID, FromAgent: r.FromAgent, ToAgent: r.ToAgent, FromOrg: r.FromOrg,
		ToOrg: r.ToOrg, Action: r.Action, Amount: r.Amount, Currency: r.Currency, Memo: r.Memo,
		Status: transaction.Status(r.Status), ReversalOf: r.ReversalOf, ReversedBy: r.ReversedBy,
		Reason: r.Reason, CreatedAt: r.CreatedAt.UTC(), ExpiresAt: utc(r.ExpiresAt), DecidedAt: utc(r.DecidedAt),
		DecidedBy: r.DecidedBy, MandateID: r.MandateID}
}

// TransactionService implements transaction.Service on Postgres.
type TransactionService struct{ db *DB }

// NewTransactionService returns the transaction service.
func NewTransactionService(d *DB) *TransactionService { return &TransactionService{db: d} }

var _ transaction.Service = (*TransactionService)(nil)

func txNotFound(txID string) error {
	return failure.Errorf(failure.NotFound, "transaction %q not found", txID)
}

// Execute checks the policy and moves the money in one database transaction.
// The sender's and receiver's rows are locked in id order, so concurrent
// executes from one agent serialize (no overspend, no lost update) while
// executes from different agents proceed in parallel. A refusal is recorded
// on the sender's audit chain and committed, then answered POLICY_DENIED.
func (s *TransactionService) Execute(ctx context.Context, p auth.Principal, in transaction.ExecuteInput) (*transaction.Transaction, error) {
	cur, err := in.Validate()
	if err != nil {
		return nil, err
	}
	var out *transaction.Transaction
	var denied error
	// The writes go out together once everything they depend on has been
	// read: begin, the sender check, the locks, the counterparty counts, the
	// writes, commit (six round trips).
	err = s.db.inBatchTx(ctx, func(tx *txn) error {
		var err error
		out, denied, err = s.execute(ctx, tx, p, in, cur)
		return err
	})
	if err != nil {
		return nil, err
	}
	if denied != nil {
		return nil, denied
	}
	return out, nil
}

// execute is Execute's transaction: the transaction made, or the refusal
// (recorded on the sender's chain), or an error. Its writes may be queued
// on tx's batch.
func (s *TransactionService) execute(ctx context.Context, tx *txn, p auth.Principal, in transaction.ExecuteInput, cur money.Currency) (out *transaction.Transaction, denied, err error) {
	if in.IdempotencyKey != nil {
		prior, err := s.claimKey(ctx, tx, p.OrgID, *in.IdempotencyKey, in.RequestHash())
		if err != nil || prior != nil {
			return prior, nil, err
		}
	}
	parties, err := lockParties(ctx, tx, p.OrgID, in.FromAgent, in.ToAgent)
	if err != nil {
		return nil, nil, err
	}
	sender, receiver := parties[in.FromAgent], parties[in.ToAgent]
	if sender == nil || sender.OrgID != p.OrgID {
		return nil, nil, agentNotFound(in.FromAgent)
	}
	if receiver == nil {
		return nil, nil, agentNotFound(in.ToAgent)
	}
	// The mandate is locked after the agents (the order MandateService.Revoke
	// keeps too), and its clock read once it is held: an execute that waited
	// for a revocation sees it.
	ref, err := lockMandate(ctx, tx, sender.ID, in.MandateID)
	if err != nil {
		return nil, nil, err
	}
	now := s.db.Now()
	decision, err := evaluatePolicy(ctx, tx, sender, receiver, in.Action, in.Amount, cur, now, ref)
	if err != nil {
		return nil, nil, err
	}
	if decision, err = tx.d.limitPending(ctx, tx, decision, sender); err != nil {
		return nil, nil, err
	}
	if !decision.Allowed {
		return nil, policyDenied(decision), s.recordRefusal(ctx, tx, sender, in, cur, decision, p, now)
	}
	if decision.RequiresApproval {
		// A pending transaction charges its mandate only once approved.
		out, err = requestApproval(ctx, tx, sender, receiver, in, cur, now)
	} else if out, err = s.complete(ctx, tx, sender, receiver, in, cur, p, now); err == nil {
		err = chargeMandate(ctx, tx, ref, in.Amount)
	}
	if err != nil {
		return nil, nil, err
	}
	if in.IdempotencyKey != nil {
		if err := tx.write(ctx, "store idempotency key", insertIdempotencyKey, p.OrgID, *in.IdempotencyKey,
			in.RequestHash(), out.ID, now); err != nil {
			return nil, nil, err
		}
	}
	if out.Status == transaction.PendingApproval {
		return out, nil, nil // nothing moved: trust changes once it is approved
	}
	return out, nil, trustExecuted(ctx, tx, sender, receiver, "transaction:"+out.ID, now)
}

// from which the policy's assessment is computed, in the same statement;
// model is the *[]agentRow to Scan into.
func agentsFor(q bun.IDB, model any, ids ...string) *bun.SelectQuery {
	return q.NewSelect().Model(model).ColumnExpr("agent_row.*, "+trustColumns).
		Join("JOIN trust_counters AS tc ON tc.agent_id = agent_row.id").
		Where("agent_row.id IN (?)", bun.In(ids)).Order("agent_row.id")
}

// byID indexes agent rows by id.
func byID(rows []agentRow) map[string]*agentRow {
	out := make(map[string]*agentRow, len(rows))
	for i := range rows {
		out[rows[i].ID] = &rows[i]
	}
	return out
}

// lockAgents locks the given agents' rows in id order (so two executes in
// opposite directions cannot deadlock) and returns them by id.
func lockAgents(ctx context.Context, tx *txn, ids ...string) (map[string]*agentRow, error) {
	// Lock the counters too: a row only joined, not locked, would be read
	// as of the statement's snapshot after waiting for the agent's lock.
	var rows []agentRow
	if err := agentsFor(tx, &rows, ids...).For("UPDATE OF agent_row, tc").Scan(ctx); err != nil {
		return nil, fmt.Errorf("lock agents: %w", err)
	}
	return byID(rows), nil
}

// lockParties locks an execute's sender and receiver like lockAgents, but
// only once a plain read has shown the sender belongs to orgID: a caller
// naming another organization's agent never queues behind its payments. (A
// one-statement variant filtering the locking SELECT on ownership lost
// updates under contention, so the check is its own statement.) It returns
// no rows when the sender is not the caller's.
func lockParties(ctx context.Context, tx *txn, orgID, from, to string) (map[string]*agentRow, error) {
	own, err := tx.NewSelect().Model((*agentRow)(nil)).Where("id = ?", from).Where("org_id = ?", orgID).Exists(ctx)
	if err != nil {
		return nil, fmt.Errorf("check sender: %w", err)
	}
	if !own {
		return map[string]*agentRow{}, nil
	}
	return lockAgents(ctx, tx, from, to)
}

// evaluatePolicy gathers the policy's input (the sender's outflow its
// windows and velocity limits count; the rows come from agentsFor, with both
// parties' scores) and runs the one policy function: executeTransaction and
// evaluateTrust both come through here, so they decide alike.
func evaluatePolicy(ctx context.Context, q bun.IDB, sender, receiver *agentRow, action string, amount money.Amount, cur money.Currency, now time.Time, ref *policy.MandateRef) (policy.Decision, error) {
	in := policy.Input{Sender: party(sender, now), Action: action, Amount: amount, Currency: cur, Now: now, Mandate: ref}
	if receiver != nil {
		r := party(receiver, now)
		in.Receiver = &r
	}
	in.SenderAssessment = trust.Assess(*in.Sender.Score) // the score party computed, not a second Compute
	var err error
	if in.Outflow, err = spendHistory(ctx, q, in.Sender, now, false); err != nil {
		return policy.Decision{}, err
	}
	d := policy.Evaluate(in)
	if d.Allowed || !explainsWithRows(d.ReasonCode) {
		return d, nil
	}
	// The buckets decide; the rows explain (when enough frees up), read
	// only for a refusal, so an allowed execute reads only the rows of the
	// hours its windows begin in.
	if in.Outflow, err = spendHistory(ctx, q, in.Sender, now, true); err != nil {
		return policy.Decision{}, err
	}
	return policy.Evaluate(in), nil
}

func party(a *agentRow, now time.Time) policy.Party {
	score := trust.Compute(a.trustOf(), now).Score
	return policy.Party{ID: a.ID, OrgID: a.OrgID, Score: &score, Status: a.Status, Environment: a.Environment,
		Currency: a.Currency, AuthorizedActions: a.AuthorizedActions, SpendingLimit: a.SpendingLimit,
		DailyLimit: a.DailyLimit, Policy: a.Policy}
}

func policyDenied(d policy.Decision) error {
	fe := failure.Errorf(failure.PolicyDenied, "transaction refused: %s", d.Reason)
	fe.Extensions = map[string]any{"reasonCode": d.ReasonCode, "reason": d.Reason}
	return fe
}

func (s *TransactionService) recordRefusal(ctx context.Context, tx *txn, sender *agentRow, in transaction.ExecuteInput, cur money.Currency, d policy.Decision, actor auth.Principal, now time.Time) error {
	details := map[string]any{"reason_code": d.ReasonCode, "reason": d.Reason, "to_agent": in.ToAgent,
		"action": in.Action, "amount": in.Amount.String(), "currency": string(cur)}
	if in.MandateID != nil {
		details["mandate_id"] = *in.MandateID
	}
	if err := s.db.recordAudit(ctx, tx, sender, agent.AuditTransactionRefused, actor, now, details); err != nil {
		return err
	}
	if !trust.RefusalCounts(d.ReasonCode) { // the trust rule's own refusals never count against the agent
		return nil
	}
	return applyTrust(ctx, tx, sender, trust.Action{Kind: trust.Refused, At: now, ReasonCode: d.ReasonCode}, "refusal:"+sender.ID)
}

// complete stores an allowed transaction, its audit entries and its event.
func (s *TransactionService) complete(ctx context.Context, tx *txn, sender, receiver *agentRow, in transaction.ExecuteInput, cur money.Currency, actor auth.Principal, now time.Time) (*transaction.Transaction, error) {
	row := transactionRow{ID: id.New(id.Transaction), FromAgent: sender.ID, ToAgent: receiver.ID,
		FromOrg: sender.OrgID, ToOrg: receiver.OrgID, Action: in.Action, Amount: in.Amount, Currency: cur,
		Memo: in.Memo, Status: string(transaction.Completed), CreatedAt: now, MandateID: in.MandateID}
	if err := tx.write(ctx, "insert transaction", insertCompleted, row.ID, row.FromAgent, row.ToAgent, row.FromOrg,
		row.ToOrg, row.Action, row.Amount.String(), string(row.Currency), row.Memo, row.Status, row.CreatedAt, row.MandateID); err != nil {
		return nil, err
	}
	t := row.transaction()
	return t, s.settle(ctx, tx, t, sender, receiver, actor, now, nil)
}

// settle moves the money of t, completed at now: the sender's outflow
// total and hour bucket, the audit entries (with extra details and the
// mandate) and the transaction.completed event. An execute and an approval
// both settle here.
func (s *TransactionService) settle(ctx context.Context, tx *txn, t *transaction.Transaction, sender, receiver *agentRow, actor auth.Principal, now time.Time, extra map[string]any) error {
	if err := tx.write(ctx, "add to outflow total", addOutflowTotal, t.FromAgent, t.Action, t.Amount.String()); err != nil {
		return err
	}
	if err := tx.write(ctx, "add to outflow hour", addOutflowHour, t.FromAgent, outflowHour(now), t.Action, t.Amount.String(), now); err != nil {
		return err
	}
	if err := tx.write(ctx, "add to outflow day", addOutflowDay, t.FromAgent, now.UTC().Truncate(24*time.Hour), t.Action, t.Amount.String()); err != nil {
		return err
	}
	if t.MandateID != nil {
		extra = maps.Clone(extra)
		if extra == nil {
			extra = map[string]any{}
		}
		extra["mandate_id"] = *t.MandateID
	}
	if err := s.db.auditBoth(ctx, tx, agent.AuditTransactionCompleted, actor, now, t, sender, receiver, extra); err != nil {
		return err
	}
	_, err := appendEvent(ctx, tx, event.TransactionCompleted, now, transaction.CompletedEvent{Data: t.ToData(), MandateID: t.MandateID}, t.FromOrg, t.ToOrg)
	return err
}

// insertCompleted stores a completed transaction (no reversal fields).
const insertCompleted = `INSERT INTO transactions (id, from_agent, to_agent, from_org, to_org, action, amount, currency,
 memo, status, created_at, mandate_id) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`

// addOutflowTotal adds a completed transaction to its sender's running
// total for its action, which total limits read.
const addOutflowTotal = `INSERT INTO agent_outflow_totals (agent_id, action, total) VALUES ($1, $2, $3)
 ON CONFLICT (agent_id, action) DO UPDATE SET total = agent_outflow_totals.total + EXCLUDED.total`

// addOutflowHour adds a completed transaction to its sender's bucket of
// the hour and action, which window sums, velocity counts, policy usage and
// spend series read; first_at keeps the bucket's earliest completion.
const addOutflowHour = `INSERT INTO agent_outflow_hours (agent_id, hour, action, amount, count, first_at) VALUES ($1, $2, $3, $4, 1, $5)
 ON CONFLICT (agent_id, hour, action) DO UPDATE SET amount = agent_outflow_hours.amount + EXCLUDED.amount,
 count = agent_outflow_hours.count + 1, first_at = least(agent_outflow_hours.first_at, EXCLUDED.first_at)`

// addOutflowDay adds a completed transaction to its sender's bucket of the
// UTC day and action, which spend series of days read.
const addOutflowDay = `INSERT INTO agent_outflow_days (agent_id, day, action, amount, count) VALUES ($1, $2, $3, $4, 1)
 ON CONFLICT (agent_id, day, action) DO UPDATE SET amount = agent_outflow_days.amount + EXCLUDED.amount,
 count = agent_outflow_days.count + 1`

// auditBoth appends an entry about t to the sender's and the receiver's chains.
func (d *DB) auditBoth(ctx context.Context, tx *txn, action string, actor auth.Principal, now time.Time, t *transaction.Transaction, from, to *agentRow, extra map[string]any) error {
	for _, side := range []struct {
		row          *agentRow
		direction    string
		counterparty string
	}{{from, "outgoing", to.ID}, {to, "incoming", from.ID}} {
		details := map[string]any{"transaction_id": t.ID, "direction": side.direction, "counterparty": side.counterparty,
			"action": t.Action, "amount": t.Amount.String(), "currency": string(t.Currency)}
		for k, v := range extra {
			details[k] = v
		}
		if err := d.recordAudit(ctx, tx, side.row, action, actor, now, details); err != nil {
			return err
		}
	}
	return nil
}

// Reverse marks a completed transaction reversed and creates its reversal
// record (parties swapped, same amount) in one database transaction.
func (s *TransactionService) Reverse(ctx context.Context, p auth.Principal, txID, reason string) (*transaction.Transaction, error) {
	if err := transaction.ValidateReason(reason); err != nil {
		return nil, err
	}
	var out *transaction.Transaction
	err := s.db.inTx(ctx, func(tx *txn) error {
		var row transactionRow
		// NO KEY UPDATE: a dispute filed at the same time holds the reported
		// agent's lock and takes a key-share lock on this row through its
		// evidence foreign key; FOR UPDATE would conflict with that and
		// deadlock against this transaction's agent locks that follow.
		err := tx.NewSelect().Model(&row).Where("id = ?", txID).
			Where(visibleTo, p.OrgID, p.OrgID).For("NO KEY UPDATE").Scan(ctx)
		if errors.Is(err, sql.ErrNoRows) {
			return txNotFound(txID)
		}
		if err != nil {
			return fmt.Errorf("lock transaction: %w", err)
		}
		switch {
		case row.FromOrg != p.OrgID:
			return failure.Errorf(failure.Forbidden, "only the sending organization may reverse transaction %q", txID)
		case row.ReversalOf != nil:
			return failure.Errorf(failure.Conflict, "transaction %q is a reversal record and cannot be reversed", txID)
		case row.Status == string(transaction.Reversed):
			return failure.Errorf(failure.Conflict, "transaction %q is already reversed (by %s)", txID, deref(row.ReversedBy))
		case row.Status != string(transaction.Completed):
			return failure.Errorf(failure.Conflict, "transaction %q is %s: only a completed transaction can be reversed", txID, row.Status)
		}
		parties, err := lockAgents(ctx, tx, row.FromAgent, row.ToAgent)
		if err != nil {
			return err
		}
		now := s.db.Now()
		rev := transactionRow{ID: id.New(id.Transaction), FromAgent: row.ToAgent, ToAgent: row.FromAgent,
			FromOrg: row.ToOrg, ToOrg: row.FromOrg, Action: row.Action, Amount: row.Amount, Currency: row.Currency,
			Status: string(transaction.Reversed), ReversalOf: &row.ID, Reason: &reason, CreatedAt: now}
		if _, err := tx.NewInsert().Model(&rev).Exec(ctx); err != nil {
			return fmt.Errorf("insert reversal: %w", err)
		}
		row.Status, row.ReversedBy, row.Reason = string(transaction.Reversed), &rev.ID, &reason
		if _, err := tx.NewUpdate().Model(&row).Column("status", "reversed_by", "reason").WherePK().Exec(ctx); err != nil {
			return fmt.Errorf("mark transaction reversed: %w", err)
		}
		original, reversal := row.transaction(), rev.transaction()
		extra := map[string]any{"reversal_id": rev.ID, "reason": reason}
		if err := s.db.auditBoth(ctx, tx, agent.AuditTransactionReversed, p, now, original, parties[row.FromAgent], parties[row.ToAgent], extra); err != nil {
			return err
		}
		if _, err := appendEvent(ctx, tx, event.TransactionReversed, now, transaction.ReversedEvent{Data: reversal.ToData()}, row.FromOrg, row.ToOrg); err != nil {
			return err
		}
		out = reversal
		return trustReversed(ctx, tx, &row, parties[row.FromAgent], parties[row.ToAgent], "transaction:"+reversal.ID, now)
	})
	return out, err
}

// trustExecuted applies a completed transaction to both parties' trust;
// within one organization it changes nothing and writes nothing.
func trustExecuted(ctx context.Context, tx *txn, sender, receiver *agentRow, cause string, now time.Time) error {
	if sender.OrgID == receiver.OrgID {
		return nil
	}
	before, err := countCounterparties(ctx, tx, 1, [2]string{sender.ID, receiver.OrgID}, [2]string{receiver.ID, sender.OrgID})
	if err != nil {
		return err
	}
	for _, a := range []*agentRow{sender, receiver} {
		if err := applyTrust(ctx, tx, a, trust.Action{Kind: trust.Executed, At: now, WithOrgBefore: before[a.ID]}, cause); err != nil {
			return err
		}
	}
	return nil
}

// trustReversed applies the reversal of t to both parties' trust: the
// completion no longer counts for either, and the reversal counts against
// the sender only. Within one organization it changes nothing.
func trustReversed(ctx context.Context, tx *txn, t *transactionRow, sender, receiver *agentRow, cause string, now time.Time) error {
	if t.FromOrg == t.ToOrg {
		return nil
	}
	before, err := countCounterparties(ctx, tx, -1, [2]string{sender.ID, t.ToOrg}, [2]string{receiver.ID, t.FromOrg})
	if err != nil {
		return err
	}
	for _, a := range []*agentRow{sender, receiver} {
		act := trust.Action{Kind: trust.Reversed, At: now, Sender: a == sender, SentAt: t.CreatedAt, WithOrgBefore: before[a.ID]}
		if err := applyTrust(ctx, tx, a, act, cause); err != nil {
			return err
		}
	}
	return nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// PurgeIdempotencyKeys deletes keys older than olderThan (at least
// IdempotencyTTL is kept); replicas may run it concurrently.
func (d *DB) PurgeIdempotencyKeys(ctx context.Context, olderThan time.Duration) (int64, error) {
	if olderThan < IdempotencyTTL {
		olderThan = IdempotencyTTL
	}
	res, err := d.bun.NewDelete().Model((*idempotencyRow)(nil)).Where("created_at < ?", d.Now().Add(-olderThan)).Exec(ctx)
	if err != nil {
		return 0, fmt.Errorf("purge idempotency keys: %w", err)
	}
	n, _ := res.RowsAffected()
	return n, nil
}
