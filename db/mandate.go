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
	"github.com/agenttrust/service/event"
	"github.com/agenttrust/service/failure"
	"github.com/agenttrust/service/id"
	"github.com/agenttrust/service/mandate"
	"github.com/agenttrust/service/money"
	"github.com/agenttrust/service/policy"
)

type mandateRow struct {
	bun.BaseModel      `bun:"table:mandates"`
	Seq                int64          `bun:"seq,nullzero"`
	ID                 string         `bun:"id,pk"`
	OrgID              string         `bun:"org_id"`
	AgentID            string         `bun:"agent_id"`
	Description        string         `bun:"description"`
	Actions            []string       `bun:"actions,array"`
	CounterpartyAgents []string       `bun:"counterparty_agents,array"`
	CounterpartyOrgs   []string       `bun:"counterparty_orgs,array"`
	MaxPerTransaction  *money.Amount  `bun:"max_per_transaction"`
	Budget             money.Amount   `bun:"budget"`
	Currency           money.Currency `bun:"currency"`
	MaxUses            *int           `bun:"max_uses"`
	NotBefore          *time.Time     `bun:"not_before"`
	ExpiresAt          time.Time      `bun:"expires_at"`
	Spent              money.Amount   `bun:"spent"`
	Uses               int            `bun:"uses"`
	CreatedAt          time.Time      `bun:"created_at"`
	RevokedAt          *time.Time     `bun:"revoked_at"`
	RevokeReason       *string        `bun:"revoke_reason"`
}

// mandate converts the row, with its status as of now.
func (r *mandateRow) mandate(now time.Time) *mandate.Mandate {
	m := &mandate.Mandate{ID: r.ID, AgentID: r.AgentID, OrgID: r.OrgID, Description: r.Description,
		Actions: r.Actions, CounterpartyAgents: r.CounterpartyAgents, CounterpartyOrgs: r.CounterpartyOrgs,
		MaxPerTransaction: r.MaxPerTransaction, Budget: r.Budget, Currency: r.Currency, MaxUses: r.MaxUses,
		NotBefore: utc(r.NotBefore), ExpiresAt: r.ExpiresAt.UTC(), Spent: r.Spent, Uses: r.Uses,
		CreatedAt: r.CreatedAt.UTC(), RevokedAt: utc(r.RevokedAt), RevokeReason: r.RevokeReason}
	m.Status = m.StatusAt(now)
	return m
}

// MandateService implements mandate.Service on Postgres.
type MandateService struct{ db *DB }

// NewMandateService returns the mandate service.
func NewMandateService(d *DB) *MandateService { return &MandateService{db: d} }

var _ mandate.Service = (*MandateService)(nil)

func mandateNotFound(mandateID string) error {
	return failure.Errorf(failure.NotFound, "mandate %q not found", mandateID)
}

// Create grants a mandate under the agent's row lock: the row, the
// agent's mandate.created audit entry and the event commit together.
func (s *MandateService) Create(ctx context.Context, p auth.Principal, in mandate.CreateInput) (*mandate.Mandate, error) {
	if err := mandate.ValidateAgentID(in.AgentID); err != nil {
		return nil, err
	}
	var out *mandate.Mandate
	err := s.db.inTx(ctx, func(tx *txn) error {
		a, err := lockOwn(ctx, tx, p.OrgID, in.AgentID)
		if err != nil {
			return err
		}
		now := s.db.Now()
		if err := in.Validate(now, mandate.Grantee{AuthorizedActions: a.AuthorizedActions, Currency: a.Currency}); err != nil {
			return err
		}
		row := mandateRow{ID: id.New(id.Mandate), OrgID: a.OrgID, AgentID: a.ID, Description: in.Description,
			Actions: in.Actions, CounterpartyAgents: in.CounterpartyAgents, CounterpartyOrgs: in.CounterpartyOrgs,
			MaxPerTransaction: in.MaxPerTransaction, Budget: in.Budget, Currency: a.Currency, MaxUses: in.MaxUses,
			NotBefore: micros(in.NotBefore), ExpiresAt: in.ExpiresAt.UTC().Truncate(time.Microsecond), CreatedAt: now}
		if _, err := tx.NewInsert().Model(&row).ExcludeColumn("seq").Exec(ctx); err != nil {
			return fmt.Errorf("insert mandate: %w", err)
		}
		out = row.mandate(now)
		data := out.ToData()
		if err := s.db.recordAudit(ctx, tx, a, agent.AuditMandateCreated, p, now, data); err != nil {
			return err
		}
		_, err = appendEvent(ctx, tx, event.MandateCreated, now, mandate.CreatedEvent{Data: data}, a.OrgID)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// micros is t in UTC at Postgres' precision, so what Create returns is what a read returns.
func micros(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC().Truncate(time.Microsecond)
	return &u
}

// Revoke revokes a mandate under its agent's row lock and then its own, the
// order executes take them in: once it returns, every execute that locks
// the mandate sees it revoked. Revoking a revoked mandate writes nothing.
func (s *MandateService) Revoke(ctx context.Context, p auth.Principal, mandateID string, reason *string) (*mandate.Mandate, error) {
	if err := mandate.ValidateReason(reason); err != nil {
		return nil, err
	}
	var out *mandate.Mandate
	err := s.db.inTx(ctx, func(tx *txn) error {
		var owner mandateRow
		err := tx.NewSelect().Model(&owner).Column("agent_id").Where("id = ? AND org_id = ?", mandateID, p.OrgID).Scan(ctx)
		if errors.Is(err, sql.ErrNoRows) {
			return mandateNotFound(mandateID)
		}
		if err != nil {
			return fmt.Errorf("find mandate: %w", err)
		}
		a, err := lockOwn(ctx, tx, p.OrgID, owner.AgentID)
		if err != nil {
			return err
		}
		var row mandateRow
		if err := tx.NewSelect().Model(&row).Where("id = ?", mandateID).For("UPDATE").Scan(ctx); err != nil {
			return fmt.Errorf("lock mandate: %w", err)
		}
		now := s.db.Now()
		if row.RevokedAt != nil {
			out = row.mandate(now)
			return nil
		}
		row.RevokedAt, row.RevokeReason = &now, reason
		if _, err := tx.NewUpdate().Model(&row).Column("revoked_at", "revoke_reason").WherePK().Exec(ctx); err != nil {
			return fmt.Errorf("revoke mandate: %w", err)
		}
		out = row.mandate(now)
		details := map[string]any{"mandate_id": row.ID, "reason": reason, "spent": row.Spent.String(), "uses": row.Uses}
		if err := s.db.recordAudit(ctx, tx, a, agent.AuditMandateRevoked, p, now, details); err != nil {
			return err
		}
		_, err = appendEvent(ctx, tx, event.MandateRevoked, now, mandate.RevokedEvent{Data: out.ToData(), Reason: reason}, a.OrgID)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Get returns one mandate of the caller's organization.
func (s *MandateService) Get(ctx context.Context, p auth.Principal, mandateID string) (*mandate.Mandate, error) {
	var row mandateRow
	err := s.db.bun.NewSelect().Model(&row).Where("id = ? AND org_id = ?", mandateID, p.OrgID).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, mandateNotFound(mandateID)
	}
	if err != nil {
		return nil, fmt.Errorf("get mandate: %w", err)
	}
	return row.mandate(s.db.Now()), nil
}

// lockMandate locks the mandate an execute names, if it is the sender's,
// for the rest of the execute's transaction, so the spent and uses it
// checks are the last committed and stay so until it adds its own (the
// sender's row lock serializes its executes too; the mandate's own lock
// keeps its budget safe without relying on that). Nil when none is named;
// a ref without a mandate when it is not the sender's.
func lockMandate(ctx context.Context, tx *txn, senderID string, mandateID *string) (*policy.MandateRef, error) {
	return findMandate(ctx, tx, senderID, mandateID, "UPDATE")
}

// readMandate reads the mandate an evaluation names, like lockMandate but without locking.
func readMandate(ctx context.Context, q bun.IDB, senderID string, mandateID *string) (*policy.MandateRef, error) {
	return findMandate(ctx, q, senderID, mandateID, "")
}

func findMandate(ctx context.Context, q bun.IDB, senderID string, mandateID *string, lock string) (*policy.MandateRef, error) {
	if mandateID == nil {
		return nil, nil
	}
	var row mandateRow
	sel := q.NewSelect().Model(&row).Where("id = ? AND agent_id = ?", *mandateID, senderID)
	if lock != "" {
		sel = sel.For(lock)
	}
	err := sel.Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return &policy.MandateRef{ID: *mandateID}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read mandate: %w", err)
	}
	// The status is the policy's to judge at the execute's own instant.
	return &policy.MandateRef{ID: *mandateID, Mandate: row.mandate(time.Time{})}, nil
}

// chargeMandate counts a completed transaction toward the mandate it was made under.
func chargeMandate(ctx context.Context, tx *txn, ref *policy.MandateRef, amount money.Amount) error {
	if ref == nil {
		return nil
	}
	return tx.write(ctx, "charge mandate", chargeMandateSQL, amount.String(), ref.ID)
}

// chargeMandateSQL adds one use and its amount to a mandate.
const chargeMandateSQL = `UPDATE mandates SET spent = spent + $1, uses = uses + 1 WHERE id = $2`
