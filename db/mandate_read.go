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
func (s *MandateService) List(ctx context.Context, f mandate.Filter) (*mandate.Page, error) {
	p, err := auth.FromContext(ctx)
	if err != nil {
		return nil, err
	}
	if err := f.Validate(); err != nil {
		return nil, err
	}
	w := window(f.Limit, f.After, f.Before, f.Backward)
	cmp, order := "<", "seq DESC"
	if w.Backward {
		cmp, order = ">", "seq ASC"
	}
	now := s.db.Now()
	q := visibleMandates(s.db.bun, p.OrgID, f, now)
	if c := w.Cursor(); c != "" {
		seq, err := parseSeqCursor(c)
		if err != nil {
			return nil, cursorErr(err, w)
		}
		q = q.Where("seq "+cmp+" ?", seq)
	}
	var rows []mandateRow
	if err := q.Order(order).Limit(f.Limit+1).Scan(ctx, &rows); err != nil {
		return nil, fmt.Errorf("list mandates: %w", err)
	}
	rows, more := trimPage(rows, f.Limit)
	if w.Backward {
		reverse(rows)
	}
	page := &mandate.Page{Mandates: make([]*mandate.Mandate, len(rows)), Cursors: make([]string, len(rows))}
	page.HasNextPage, page.HasPreviousPage = w.Flags(more)
	for i := range rows {
		page.Mandates[i] = rows[i].mandate(now)
		page.Cursors[i] = seqCursor(rows[i].Seq)
	}
	if len(rows) > 0 {
		page.EndCursor = page.Cursors[len(rows)-1]
	}
	return page, nil
}

// GetMany returns the caller's organization's mandates among ids.
func (s *MandateService) GetMany(ctx context.Context, ids []string) ([]*mandate.Mandate, error) {
	p, err := auth.FromContext(ctx)
	if err != nil {
		return nil, err
	}
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
func (s *MandateService) Count(ctx context.Context, f mandate.Filter) (int, error) {
	p, err := auth.FromContext(ctx)
	if err != nil {
		return 0, err
	}
	n, err := visibleMandates(s.db.bun, p.OrgID, f, s.db.Now()).Count(ctx)
	if err != nil {
		return 0, fmt.Errorf("count mandates: %w", err)
	}
	return n, nil
}
