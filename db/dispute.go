package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/uptrace/bun"

	"github.com/agenttrust/service/agent"
	"github.com/agenttrust/service/auth"
	"github.com/agenttrust/service/event"
	"github.com/agenttrust/service/failure"
	"github.com/agenttrust/service/id"
	"github.com/agenttrust/service/transaction"
	"github.com/agenttrust/service/trust"
)

type disputeRow struct {
	bun.BaseModel `bun:"table:disputes"`
	ID            string    `bun:"id,pk"`
	AgentID       string    `bun:"agent_id"`
	ReporterOrg   string    `bun:"reporter_org"`
	Reason        string    `bun:"reason"`
	EvidenceIDs   []string  `bun:"evidence_ids,array"`
	Status        string    `bun:"status"`
	CreatedAt     time.Time `bun:"created_at"`
	AgentOrg      string    `bun:"agent_org"`
	WithdrawnAt   time.Time `bun:"withdrawn_at,nullzero"`
	Seq           int64     `bun:"seq,nullzero"`
	FiledByKey    string    `bun:"filed_by_key,nullzero"`
}

func (r *disputeRow) dispute() *trust.Dispute {
	return &trust.Dispute{ID: r.ID, AgentID: r.AgentID, ReporterOrg: r.ReporterOrg, Reason: r.Reason,
		EvidenceIDs: r.EvidenceIDs, Status: trust.DisputeStatus(r.Status), CreatedAt: r.CreatedAt.UTC(), AgentOrg: r.AgentOrg}
}

type disputeEvidenceRow struct {
	bun.BaseModel `bun:"table:dispute_evidence"`
	ReporterOrg   string `bun:"reporter_org,pk"`
	TransactionID string `bun:"transaction_id,pk"`
	DisputeID     string `bun:"dispute_id"`
}

// Report files a dispute against any agent. Its evidence must be transactions
// visible to the reporter that involve the agent, none already under an open
// dispute from the reporter's organization. The dispute, the audit entry on
// the agent, its counters and the dispute.filed event commit together.
func (s *TrustService) Report(ctx context.Context, p auth.Principal, in trust.ReportInput) (*trust.Dispute, error) {
	if err := in.Validate(); err != nil {
		return nil, err
	}
	var out *trust.Dispute
	err := s.db.inTx(ctx, func(tx *txn) error {
		parties, err := lockAgents(ctx, tx, in.AgentID)
		if err != nil {
			return err
		}
		a := parties[in.AgentID]
		if a == nil {
			return agentNotFound(in.AgentID)
		}
		if err := s.checkEvidence(ctx, tx, p, in); err != nil {
			return err
		}
		// A dispute from the agent's own organization counts for nothing, so
		// only another organization's needs its earliest open dispute.
		sameOrg := p.OrgID == a.OrgID
		var firstBefore time.Time
		if !sameOrg {
			if firstBefore, err = firstOpenDispute(ctx, tx, a.ID, p.OrgID); err != nil {
				return err
			}
		}
		now := s.db.Now().Truncate(time.Microsecond)
		d := disputeRow{ID: id.New(id.Dispute), AgentID: a.ID, ReporterOrg: p.OrgID, Reason: in.Reason,
			EvidenceIDs: in.EvidenceIDs, Status: string(trust.StatusOpen), CreatedAt: now, AgentOrg: a.OrgID,
			FiledByKey: p.KeyID}
		if err := insertDispute(ctx, tx, &d); err != nil {
			return err
		}
		details := map[string]any{"dispute_id": d.ID, "reporter_org": p.OrgID, "reason": d.Reason, "evidence_ids": d.EvidenceIDs}
		if err := s.db.recordAudit(ctx, tx, a, agent.AuditDisputeFiled, p, now, details); err != nil {
			return err
		}
		out = d.dispute()
		if _, err := appendEvent(ctx, tx, event.DisputeFiled, now, trust.DisputeFiledEvent{DisputeData: out.ToData()}, p.OrgID, a.OrgID); err != nil {
			return err
		}
		if sameOrg {
			return nil
		}
		firstAfter := firstBefore
		if firstAfter.IsZero() {
			firstAfter = now
		}
		act := trust.Action{Kind: trust.DisputeFiled, At: now, OrgFirstBefore: firstBefore, OrgFirstAfter: firstAfter}
		return applyTrust(ctx, tx, a, act, "dispute:"+d.ID)
	})
	return out, err
}

// checkEvidence names every evidence id that is not a transaction visible to
// the caller's organization involving the agent, refuses (Forbidden) an
// agent key's evidence none of its agents took part in (auth.MayCite), and
// refuses transactions already under an open dispute from the organization.
func (s *TrustService) checkEvidence(ctx context.Context, tx *txn, p auth.Principal, in trust.ReportInput) error {
	orgID := p.OrgID
	var found []transactionRow
	err := tx.NewSelect().Model(&found).Column("id", "from_agent", "to_agent", "status").
		Where("id IN (?)", bun.In(in.EvidenceIDs)).
		Where(visibleTo, orgID, orgID).
		Where("(from_agent = ? OR to_agent = ?)", in.AgentID, in.AgentID).Scan(ctx)
	if err != nil {
		return fmt.Errorf("check evidence: %w", err)
	}
	status := map[string]string{}
	for _, f := range found {
		status[f.ID] = f.Status
	}
	var f failure.Fields
	for i, e := range in.EvidenceIDs {
		switch st, ok := status[e]; {
		case !ok:
			f.Add("input.evidenceIds["+strconv.Itoa(i)+"]", "%q is not a transaction of agent %s visible to your organization", e, in.AgentID)
		case st != string(transaction.Completed) && st != string(transaction.Reversed):
			f.Add("input.evidenceIds["+strconv.Itoa(i)+"]", "%q is %s: only a transaction that moved money is evidence", e, st)
		}
	}
	if err := f.Err(); err != nil {
		return err
	}
	for _, t := range found {
		if !p.MayCite(t.FromAgent, t.ToAgent) {
			return auth.Forbid(p, fmt.Sprintf("reportAgent with evidence %s: none of its agents took part", t.ID))
		}
	}
	var open []string
	err = tx.NewSelect().TableExpr("dispute_evidence AS de").Column("de.transaction_id").
		Join("JOIN disputes AS d ON d.id = de.dispute_id").
		Where("de.reporter_org = ?", orgID).Where("de.transaction_id IN (?)", bun.In(in.EvidenceIDs)).
		Where("d.status = 'open'").Scan(ctx, &open)
	if err != nil {
		return fmt.Errorf("check open disputes: %w", err)
	}
	if len(open) > 0 {
		return failure.Errorf(failure.Conflict, "your organization already has an open dispute on %s", strings.Join(open, ", "))
	}
	return nil
}

// firstOpenDispute is the creation time of orgID's earliest open dispute
// against the agent (zero when there is none): what that organization's
// dispute weight counts from.
func firstOpenDispute(ctx context.Context, tx *txn, agentID, orgID string) (time.Time, error) {
	var first *time.Time
	err := tx.NewSelect().Model((*disputeRow)(nil)).ColumnExpr("min(created_at)").
		Where("agent_id = ? AND reporter_org = ? AND status = 'open'", agentID, orgID).Scan(ctx, &first)
	if err != nil {
		return time.Time{}, fmt.Errorf("find first open dispute: %w", err)
	}
	if first == nil {
		return time.Time{}, nil
	}
	return first.UTC(), nil
}

// Withdraw withdraws an open dispute filed by the caller's organization: it
// stops counting, its evidence is free for a new dispute, the reported
// agent's chain records it, dispute.withdrawn goes to both organizations and
// the agent is rescored, all in one database transaction.
func (s *TrustService) Withdraw(ctx context.Context, p auth.Principal, disputeID string) (*trust.Dispute, error) {
	var out *trust.Dispute
	err := s.db.inTx(ctx, func(tx *txn) error {
		d, err := lockWithdrawable(ctx, tx, p, disputeID)
		if err != nil {
			return err
		}
		parties, err := lockAgents(ctx, tx, d.AgentID)
		if err != nil {
			return err
		}
		a := parties[d.AgentID]
		sameOrg := p.OrgID == a.OrgID // counted for nothing when filed, so nothing to undo
		var firstBefore time.Time
		if !sameOrg {
			if firstBefore, err = firstOpenDispute(ctx, tx, a.ID, p.OrgID); err != nil {
				return err
			}
		}
		now := s.db.Now().Truncate(time.Microsecond)
		d.Status, d.WithdrawnAt = string(trust.StatusWithdrawn), now
		if _, err := tx.NewUpdate().Model(d).Column("status", "withdrawn_at").WherePK().Exec(ctx); err != nil {
			return fmt.Errorf("withdraw dispute: %w", err)
		}
		if _, err := tx.NewDelete().Model((*disputeEvidenceRow)(nil)).Where("dispute_id = ?", d.ID).Exec(ctx); err != nil {
			return fmt.Errorf("release dispute evidence: %w", err)
		}
		details := map[string]any{"dispute_id": d.ID, "reporter_org": p.OrgID}
		if err := s.db.recordAudit(ctx, tx, a, agent.AuditDisputeWithdrawn, p, now, details); err != nil {
			return err
		}
		out = d.dispute()
		if _, err := appendEvent(ctx, tx, event.DisputeWithdrawn, now, trust.DisputeWithdrawnEvent{DisputeData: out.ToData()}, p.OrgID, a.OrgID); err != nil {
			return err
		}
		if sameOrg {
			return nil
		}
		firstAfter, err := firstOpenDispute(ctx, tx, a.ID, p.OrgID)
		if err != nil {
			return err
		}
		act := trust.Action{Kind: trust.DisputeWithdrawn, At: now, OrgFirstBefore: firstBefore, OrgFirstAfter: firstAfter}
		return applyTrust(ctx, tx, a, act, "withdrawal:"+d.ID)
	})
	return out, err
}

// insertDispute inserts d and its evidence rows; evidence already under an
// open dispute of the reporter's organization is a Conflict.
func insertDispute(ctx context.Context, tx *txn, d *disputeRow) error {
	if _, err := tx.NewInsert().Model(d).Exec(ctx); err != nil {
		return fmt.Errorf("insert dispute: %w", err)
	}
	ev := make([]disputeEvidenceRow, len(d.EvidenceIDs))
	for i, txID := range d.EvidenceIDs {
		ev[i] = disputeEvidenceRow{ReporterOrg: d.ReporterOrg, TransactionID: txID, DisputeID: d.ID}
	}
	if _, err := tx.NewInsert().Model(&ev).Exec(ctx); err != nil {
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) && pgErr.Code == "23505" {
			return failure.Errorf(failure.Conflict, "your organization already has an open dispute on one of these transactions")
		}
		return fmt.Errorf("insert dispute evidence: %w", err)
	}
	return nil
}

// lockWithdrawable locks a dispute visible to p that p may withdraw:
// NotFound if not visible, Forbidden for the reported organization or a
// key that may not withdraw it, Conflict if already withdrawn.
func lockWithdrawable(ctx context.Context, tx *txn, p auth.Principal, disputeID string) (*disputeRow, error) {
	var d disputeRow
	err := tx.NewSelect().Model(&d).Where("id = ?", disputeID).
		Where("(reporter_org = ? OR agent_org = ?)", p.OrgID, p.OrgID).For("UPDATE").Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, disputeNotFound(disputeID)
	}
	if err != nil {
		return nil, fmt.Errorf("lock dispute: %w", err)
	}
	switch {
	case d.ReporterOrg != p.OrgID:
		return nil, failure.Errorf(failure.Forbidden, "only the reporting organization may withdraw dispute %q", disputeID)
	case !p.MayWithdraw(d.FiledByKey):
		return nil, auth.Forbid(p, fmt.Sprintf("withdrawDispute %s: another key filed it", disputeID))
	case d.Status != string(trust.StatusOpen):
		return nil, failure.Errorf(failure.Conflict, "dispute %q is already withdrawn", disputeID)
	}
	return &d, nil
}

func disputeNotFound(disputeID string) error {
	return failure.Errorf(failure.NotFound, "dispute %q not found", disputeID)
}
