package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/driver/pgdriver"

	"github.com/agenttrust/service/agent"
	"github.com/agenttrust/service/auth"
	"github.com/agenttrust/service/event"
	"github.com/agenttrust/service/failure"
	"github.com/agenttrust/service/id"
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
}

type disputeEvidenceRow struct {
	bun.BaseModel `bun:"table:dispute_evidence"`
	ReporterOrg   string `bun:"reporter_org,pk"`
	TransactionID string `bun:"transaction_id,pk"`
	DisputeID     string `bun:"dispute_id"`
}

func validateReport(in trust.ReportInput) error {
	var f failure.Fields
	if !id.Has(in.AgentID, id.Agent) {
		f.Add("input.agentId", "must be an agent id (agent_…)")
	}
	n := utf8.RuneCountInString(in.Reason)
	if strings.TrimSpace(in.Reason) == "" || n > trust.MaxReasonLength || !utf8.ValidString(in.Reason) {
		f.Add("input.reason", "must be 1 to %d characters and not blank (got %d)", trust.MaxReasonLength, n)
	}
	switch {
	case len(in.EvidenceIDs) == 0:
		f.Add("input.evidenceIds", "must list at least one transaction of the reported agent")
	case len(in.EvidenceIDs) > trust.MaxEvidence:
		f.Add("input.evidenceIds", "must list at most %d transactions", trust.MaxEvidence)
	}
	seen := map[string]bool{}
	for i, e := range in.EvidenceIDs {
		if seen[e] {
			f.Add("input.evidenceIds["+strconv.Itoa(i)+"]", "%q is listed twice", e)
		}
		seen[e] = true
	}
	return f.Err()
}

// Report files a dispute against any agent. Its evidence must be transactions
// visible to the reporter that involve the agent, none already under an open
// dispute from the reporter's organization. The dispute, the audit entry on
// the agent, its counters and the dispute.filed event commit together.
func (s *TrustService) Report(ctx context.Context, in trust.ReportInput) (*trust.Dispute, error) {
	p, err := auth.FromContext(ctx)
	if err != nil {
		return nil, err
	}
	if err := validateReport(in); err != nil {
		return nil, err
	}
	var out *trust.Dispute
	err = s.db.inTx(ctx, func(tx bun.Tx) error {
		var a agentRow
		err := tx.NewSelect().Model(&a).Where("id = ?", in.AgentID).For("UPDATE").Scan(ctx)
		if errors.Is(err, sql.ErrNoRows) {
			return agentNotFound(in.AgentID)
		}
		if err != nil {
			return fmt.Errorf("lock agent: %w", err)
		}
		if err := s.checkEvidence(ctx, tx, p.OrgID, in); err != nil {
			return err
		}
		now := s.db.Now()
		d := disputeRow{ID: id.New(id.Dispute), AgentID: a.ID, ReporterOrg: p.OrgID, Reason: in.Reason,
			EvidenceIDs: in.EvidenceIDs, Status: "open", CreatedAt: now}
		if _, err := tx.NewInsert().Model(&d).Exec(ctx); err != nil {
			return fmt.Errorf("insert dispute: %w", err)
		}
		ev := make([]disputeEvidenceRow, len(in.EvidenceIDs))
		for i, txID := range in.EvidenceIDs {
			ev[i] = disputeEvidenceRow{ReporterOrg: p.OrgID, TransactionID: txID, DisputeID: d.ID}
		}
		if _, err := tx.NewInsert().Model(&ev).Exec(ctx); err != nil {
			var pgErr pgdriver.Error
			if errors.As(err, &pgErr) && pgErr.Field('C') == "23505" {
				return failure.Errorf(failure.Conflict, "your organization already has an open dispute on one of these transactions")
			}
			return fmt.Errorf("insert dispute evidence: %w", err)
		}
		details := map[string]any{"dispute_id": d.ID, "reporter_org": p.OrgID, "reason": d.Reason, "evidence_ids": d.EvidenceIDs}
		if err := appendAudit(ctx, tx, &a, agent.AuditDisputeFiled, p.KeyID, now, details); err != nil {
			return err
		}
		if err := saveAuditHead(ctx, tx, &a); err != nil {
			return err
		}
		out = &trust.Dispute{ID: d.ID, AgentID: d.AgentID, ReporterOrg: d.ReporterOrg, Reason: d.Reason,
			EvidenceIDs: d.EvidenceIDs, CreatedAt: now}
		data := map[string]any{"id": d.ID, "dispute_id": d.ID, "agent_id": d.AgentID, "reporter_org_id": p.OrgID,
			"reason": d.Reason, "evidence_ids": d.EvidenceIDs, "created_at": event.FormatTime(now)}
		if _, err := appendEvent(ctx, tx, event.DisputeFiled, now, data, p.OrgID, a.OrgID); err != nil {
			return err
		}
		return applyTrust(ctx, tx, &a, trustDelta{Disputes: 1}, "dispute:"+d.ID, now)
	})
	return out, err
}

// checkEvidence names every evidence id that is not a transaction visible to
// orgID involving the agent, and refuses transactions already under an open
// dispute from orgID.
func (s *TrustService) checkEvidence(ctx context.Context, tx bun.Tx, orgID string, in trust.ReportInput) error {
	var found []string
	err := tx.NewSelect().Model((*transactionRow)(nil)).Column("id").
		Where("id IN (?)", bun.In(in.EvidenceIDs)).
		Where("(from_org = ? OR to_org = ?)", orgID, orgID).
		Where("(from_agent = ? OR to_agent = ?)", in.AgentID, in.AgentID).Scan(ctx, &found)
	if err != nil {
		return fmt.Errorf("check evidence: %w", err)
	}
	ok := map[string]bool{}
	for _, f := range found {
		ok[f] = true
	}
	var f failure.Fields
	for i, e := range in.EvidenceIDs {
		if !ok[e] {
			f.Add("input.evidenceIds["+strconv.Itoa(i)+"]", "%q is not a transaction of agent %s visible to your organization", e, in.AgentID)
		}
	}
	if err := f.Err(); err != nil {
		return err
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
