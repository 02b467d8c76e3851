package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/uptrace/bun"

	"github.com/agenttrust/service/auth"
	"github.com/agenttrust/service/trust"
)

// Dispute returns one dispute filed by or against the caller's organization.
func (s *TrustService) Dispute(ctx context.Context, p auth.Principal, disputeID string) (*trust.Dispute, error) {
	var d disputeRow
	err := s.db.bun.NewSelect().Model(&d).Where("id = ?", disputeID).
		Where("(reporter_org = ? OR agent_org = ?)", p.OrgID, p.OrgID).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, disputeNotFound(disputeID)
	}
	if err != nil {
		return nil, fmt.Errorf("get dispute: %w", err)
	}
	return d.dispute(), nil
}

// disputeColumns are the disputes columns holding each field of the API's
// Dispute (trust.DisputeFilter.Fields); agent_org, no field's, is read
// when every field is.
var disputeColumns = fieldColumns{
	{"agentId", []string{"agent_id"}}, {"reporterOrgId", []string{"reporter_org"}}, {"reason", []string{"reason"}},
	{"evidenceIds", []string{"evidence_ids"}}, {"status", []string{"status"}}, {"createdAt", []string{"created_at"}},
	{"", []string{"agent_org"}},
}

// visibleDisputes selects the disputes filed by or against orgID under f.
func visibleDisputes(q bun.IDB, orgID string, f trust.DisputeFilter) *bun.SelectQuery {
	sel := q.NewSelect().Model((*disputeRow)(nil)).Where("(reporter_org = ? OR agent_org = ?)", orgID, orgID)
	if f.AgentID != nil {
		sel = sel.Where("agent_id = ?", *f.AgentID)
	}
	if f.Status != nil {
		sel = sel.Where("status = ?", string(*f.Status))
	}
	return sel
}

// Disputes lists a page of the disputes filed by or against the caller's
// organization, newest first, by keyset on seq; a backward page is read
// oldest first from its cursor and put newest first.
func (s *TrustService) Disputes(ctx context.Context, p auth.Principal, f trust.DisputeFilter) (*trust.DisputePage, error) {
	if err := f.Validate(); err != nil {
		return nil, err
	}
	w := f.Window
	cursors := s.db.cursors(p.OrgID, disputeList)
	q := visibleDisputes(s.db.bun, p.OrgID, f).Column(disputeColumns.of(f.Fields, "", "seq", "id")...)
	q, err := seqWindow(q, w, cursors)
	if err != nil {
		return nil, err
	}
	var rows []disputeRow
	if err := q.Scan(ctx, &rows); err != nil {
		return nil, fmt.Errorf("list disputes: %w", err)
	}
	rows, end := finishPage(rows, w, func(r disputeRow) string { return cursors.seq(r.Seq) })
	page := &trust.DisputePage{Disputes: make([]*trust.Dispute, len(rows)), Cursors: end.cursors, EndCursor: end.endCursor,
		HasNextPage: end.hasNext, HasPreviousPage: end.hasPrevious}
	for i := range rows {
		page.Disputes[i] = rows[i].dispute()
	}
	return page, nil
}

// CountDisputes counts what Disputes lists under the same filter.
func (s *TrustService) CountDisputes(ctx context.Context, p auth.Principal, f trust.DisputeFilter) (int, error) {
	n, err := visibleDisputes(s.db.bun, p.OrgID, f).Count(ctx)
	if err != nil {
		return 0, fmt.Errorf("count disputes: %w", err)
	}
	return n, nil
}
