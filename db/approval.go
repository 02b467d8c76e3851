package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/agenttrust/service/auth"
	"github.com/agenttrust/service/event"
	"github.com/agenttrust/service/failure"
	"github.com/agenttrust/service/id"
	"github.com/agenttrust/service/money"
	"github.com/agenttrust/service/policy"
	"github.com/agenttrust/service/transaction"
)

// requestApproval stores an allowed execute over the sender's approval
// threshold as pending_approval, expiring after the rule's time, and its
// transaction.approval_requested event; nothing moves and nothing counts.
// Until it completes it is the sender's organization's alone (receiverSees),
// so this event, and its declined or expired one, go to that organization only.
func requestApproval(ctx context.Context, tx *txn, sender, receiver *agentRow, in transaction.ExecuteInput, cur money.Currency, now time.Time) (*transaction.Transaction, error) {
	expires := now.Add(sender.Policy.Approval.Expiry())
	row := transactionRow{ID: id.New(id.Transaction), FromAgent: sender.ID, ToAgent: receiver.ID,
		FromOrg: sender.OrgID, ToOrg: receiver.OrgID, Action: in.Action, Amount: in.Amount, Currency: cur,
		Memo: in.Memo, Status: string(transaction.PendingApproval), CreatedAt: now, ExpiresAt: &expires, MandateID: in.MandateID}
	if err := tx.write(ctx, "insert pending transaction", insertPending, row.ID, row.FromAgent, row.ToAgent, row.FromOrg,
		row.ToOrg, row.Action, row.Amount.String(), string(row.Currency), row.Memo, row.Status, row.CreatedAt, expires, row.MandateID); err != nil {
		return nil, err
	}
	t := row.transaction()
	_, err := appendEvent(ctx, tx, event.TransactionApprovalRequested, now, transaction.ApprovalRequestedEvent{Data: t.ToData(), MandateID: t.MandateID}, t.FromOrg)
	return t, err
}

// SetMaxPendingApprovals sets APPROVAL_MAX_PENDING: at most n (at least 1)
// transactions wait for approval per sending agent.
func (d *DB) SetMaxPendingApprovals(n int) { d.maxPending.Store(int64(max(n, 1))) }

// maxPendingApprovals is the bound SetMaxPendingApprovals set, or the default.
func (d *DB) maxPendingApprovals() int {
	if n := d.maxPending.Load(); n > 0 {
		return int(n)
	}
	return policy.DefaultMaxPending
}

// limitPending applies the bound on waiting transactions to d, the
// decision on an execute by sender: only a decision that would wait reads
// the sender's pending count (an index lookup). An execute holds the
// sender's row lock, so executes of one sender count one after another and
// the bound holds under any concurrency.
func (db *DB) limitPending(ctx context.Context, q bun.IDB, d policy.Decision, sender *agentRow) (policy.Decision, error) {
	if !d.Allowed || !d.RequiresApproval {
		return d, nil
	}
	rows, err := q.QueryContext(ctx, countPending, sender.ID)
	if err != nil {
		return d, fmt.Errorf("count pending transactions: %w", err)
	}
	defer rows.Close()
	var n int
	for rows.Next() {
		if err := rows.Scan(&n); err != nil {
			return d, fmt.Errorf("count pending transactions: %w", err)
		}
	}
	if err := rows.Err(); err != nil {
		return d, fmt.Errorf("count pending transactions: %w", err)
	}
	return policy.LimitPending(d, sender.ID, n, db.maxPendingApprovals()), nil
}

// countPending counts an agent's transactions waiting for approval
// (transactions_pending_sender).
const countPending = `SELECT count(*) FROM transactions WHERE from_agent = ?0 AND status = 'pending_approval'`

// insertPending stores a transaction pending approval, with the mandate it names.
const insertPending = `INSERT INTO transactions (id, from_agent, to_agent, from_org, to_org, action, amount, currency,
 memo, status, created_at, expires_at, mandate_id) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`

// Approve completes a pending transaction if the sender's policy and the
// mandate it names, every check but the approval threshold, allow it now,
// and only then charges the mandate. It locks the transaction, then both
// agents and the mandate as an execute does, so approvals and executes of
// one sender serialize and no limit or mandate budget is exceeded; a
// refusal changes nothing. The transaction is dated at its approval, when its
// money moves and its windows count it.
func (s *TransactionService) Approve(ctx context.Context, p auth.Principal, txID string) (*transaction.Transaction, error) {
	var out *transaction.Transaction
	err := s.db.inBatchTx(ctx, func(tx *txn) error {
		row, _, err := lockPending(ctx, tx, p, txID)
		if err != nil {
			return err
		}
		parties, err := lockAgents(ctx, tx, row.FromAgent, row.ToAgent)
		if err != nil {
			return err
		}
		sender, receiver := parties[row.FromAgent], parties[row.ToAgent]
		// The mandate it names is locked after the agents, as an execute
		// locks it, and checked and charged only now.
		ref, err := lockMandate(ctx, tx, sender.ID, row.MandateID)
		if err != nil {
			return err
		}
		// Pending when its lock was taken, so no sweep expires it now; the
		// checks and the money use the time the agents' and the mandate's
		// locks were taken, as an execute's do.
		now := s.db.Now()
		d, err := evaluatePolicy(ctx, tx, sender, receiver, row.Action, row.Amount, row.Currency, now, ref)
		if err != nil {
			return err
		}
		if !d.Allowed {
			return policyDenied(d)
		}
		row.Status, row.CreatedAt, row.ExpiresAt, row.DecidedAt, row.DecidedBy = string(transaction.Completed), now, nil, &now, &p.KeyID
		if err := tx.write(ctx, "mark transaction approved", decideSQL, row.ID, row.Status, row.CreatedAt, now, p.KeyID, nil); err != nil {
			return err
		}
		out = row.transaction()
		if err := s.settle(ctx, tx, out, sender, receiver, p, now, map[string]any{"approved_by": p.KeyID}); err != nil {
			return err
		}
		if err := chargeMandate(ctx, tx, ref, out.Amount); err != nil {
			return err
		}
		return trustExecuted(ctx, tx, sender, receiver, "transaction:"+out.ID, now)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Decline ends a pending transaction as declined with reason, and emits
// transaction.declined.
func (s *TransactionService) Decline(ctx context.Context, p auth.Principal, txID, reason string) (*transaction.Transaction, error) {
	if err := transaction.ValidateReason(reason); err != nil {
		return nil, err
	}
	var out *transaction.Transaction
	err := s.db.inTx(ctx, func(tx *txn) error {
		row, now, err := lockPending(ctx, tx, p, txID)
		if err != nil {
			return err
		}
		row.Status, row.ExpiresAt, row.DecidedAt, row.DecidedBy, row.Reason = string(transaction.Declined), nil, &now, &p.KeyID, &reason
		if err := tx.write(ctx, "mark transaction declined", decideSQL, row.ID, row.Status, row.CreatedAt, now, p.KeyID, reason); err != nil {
			return err
		}
		out = row.transaction()
		_, err = appendEvent(ctx, tx, event.TransactionDeclined, now, transaction.DeclinedEvent{Data: out.ToData()}, out.FromOrg)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// decideSQL records a decision on a pending transaction.
const decideSQL = `UPDATE transactions SET status = $2, created_at = $3, expires_at = NULL, decided_at = $4, decided_by = $5,
 reason = $6 WHERE id = $1`

// lockPending locks a transaction the caller's organization sent and that
// is still pending once its lock is held, and returns it with that moment.
// NotFound when the caller cannot see it; Forbidden when its organization
// only received it; Conflict when it is not pending, or its expiry has
// passed (the sweep marks it expired).
func lockPending(ctx context.Context, tx *txn, p auth.Principal, txID string) (*transactionRow, time.Time, error) {
	var row transactionRow
	// NO KEY UPDATE, as Reverse: a dispute citing it takes a key-share lock.
	err := tx.NewSelect().Model(&row).Where("id = ?", txID).
		Where(visibleTo, p.OrgID, p.OrgID).For("NO KEY UPDATE").Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, time.Time{}, txNotFound(txID)
	}
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("lock transaction: %w", err)
	}
	now := tx.d.Now()
	switch {
	case row.FromOrg != p.OrgID:
		return nil, now, failure.Errorf(failure.Forbidden, "only the sending organization may approve or decline transaction %q", txID)
	case row.Status != string(transaction.PendingApproval):
		return nil, now, failure.Errorf(failure.Conflict, "transaction %q is %s, not pending_approval", txID, row.Status)
	case !now.Before(*row.ExpiresAt):
		return nil, now, failure.Errorf(failure.Conflict, "transaction %q expired at %s", txID, event.FormatTime(*row.ExpiresAt))
	}
	return &row, now, nil
}

// ExpireBatch is how many transactions one statement of ExpireApprovals expires at most.
const ExpireBatch = 500

// ExpireApprovals marks every transaction still pending at its expiry
// expired and emits transaction.expired for each, the update and its events
// in one database transaction per batch. Replicas may run it at once: a row
// another sweep or a decision holds is skipped, and a row is expired only
// while pending, so each expires exactly once. It returns how many expired.
func (s *TransactionService) ExpireApprovals(ctx context.Context) (int, error) {
	total := 0
	for {
		var rows []transactionRow
		// The events are queued and go out together before the commit.
		err := s.db.inBatchTx(ctx, func(tx *txn) error {
			now := s.db.Now()
			if err := tx.NewRaw(expireSQL, now, ExpireBatch).Scan(ctx, &rows); err != nil {
				return fmt.Errorf("expire pending transactions: %w", err)
			}
			for i := range rows {
				t := rows[i].transaction()
				if _, err := appendEvent(ctx, tx, event.TransactionExpired, now, transaction.ExpiredEvent{Data: t.ToData()}, t.FromOrg); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return total, err
		}
		total += len(rows)
		if len(rows) < ExpireBatch {
			return total, nil
		}
	}
}

// expireSQL expires up to ?1 pending transactions due at ?0, skipping rows
// locked by a decision or another sweep (which decide them instead).
const expireSQL = `UPDATE transactions SET status = 'expired'
 WHERE id IN (SELECT id FROM transactions WHERE status = 'pending_approval' AND expires_at <= ?0
              ORDER BY expires_at LIMIT ?1 FOR NO KEY UPDATE SKIP LOCKED)
   AND status = 'pending_approval'
 RETURNING ` + txColumns

// utc converts an optional time read from the database to UTC.
func utc(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}
