package db

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/agenttrust/service/auth"
	"github.com/agenttrust/service/mandate"
)

// statusWhere is the SQL form of mandate.Mandate.StatusAt for a status
// filter; ? is the read's instant.
var statusWhere = map[mandate.Status]string{
	mandate.Revoked:   "revoked_at IS NOT NULL",
	mandate.Expired:   "revoked_at IS NULL AND expires_at < ?",
	mandate.Exhausted: "revoked_at IS NULL AND expires_at >= ? AND (spent >= budget OR uses >= max_uses)",
	mandate.Active:    "revoked_at IS NULL AND expires_at >= ? AND spent < budget AND (max_uses IS NULL OR uses < max_uses)",
}

// visibleMandates selects the mandates of orgID under f, with statuses as of now.
func visibleMandates(q bun.IDB, orgID string, f mandate.Filter, now time.Time) *bun.SelectQuery {
	sel := q.NewSelect().Model((*mandateRow)(nil)).Where("org_id = ?", orgID)
	if f.AgentID != nil {
		sel = sel.Where("agent_id = ?", *f.AgentID)
	}
	if f.Status != nil {
		if *f.Status == mandate.Revoked {
			sel = sel.Where(statusWhere[mandate.Revoked])
		} else {
			sel = sel.Where(statusWhere[*f.Status], now)
		}
	}
	return sel
}

// List lists a page of the caller's organization's mandates, newest first,
// by keyset on seq; a backward page is read oldest first from its cursor
// and put newest first.
func (s *MandateService) List(ctx context.Context, p auth.Principal, f mandate.Filter) (*mandate.Page, error) {
	if err := f.Validate(); err != nil {
		return nil, err
	}
	w := f.Window
	now := s.db.Now()
	cursors := s.db.cursors(p.OrgID, mandateList)
	q, err := seqWindow(visibleMandates(s.db.bun, p.OrgID, f, now), w, cursors)
	if err != nil {
		return nil, err
	}
	var rows []mandateRow
	if err := q.Scan(ctx, &rows); err != nil {
		return nil, fmt.Errorf("list mandates: %w", err)
	}
	rows, end := finishPage(rows, w, func(r mandateRow) string { return cursors.seq(r.Seq) })
	page := &mandate.Page{Mandates: make([]*mandate.Mandate, len(rows)), Cursors: end.cursors, EndCursor: end.endCursor,
		HasNextPage: end.hasNext, HasPreviousPage: end.hasPrevious}
	for i := range rows {
		page.Mandates[i] = rows[i].mandate(now)
	}
	return page, nil
}

// GetMany returns the caller's organization's mandates among ids.
func (s *MandateService) GetMany(ctx context.Context, p auth.Principal, ids []string) ([]*mandate.Mandate, error) {
	var rows []mandateRow
	if err := s.db.bun.NewSelect().Model(&rows).Where("id IN (?) AND org_id = ?", bun.In(ids), p.OrgID).Scan(ctx); err != nil {
		return nil, fmt.Errorf("get mandates by id: %w", err)
	}
	now := s.db.Now()
	out := make([]*mandate.Mandate, len(rows))
	for i := range rows {
		out[i] = rows[i].mandate(now)
	}
	return out, nil
}

// Count counts what List lists under the same filter.
func (s *MandateService) Count(ctx context.Context, p auth.Principal, f mandate.Filter) (int, error) {
	n, err := visibleMandates(s.db.bun, p.OrgID, f, s.db.Now()).Count(ctx)
	if err != nil {
		return 0, fmt.Errorf("count mandates: %w", err)
	}
	return n, nil
}
