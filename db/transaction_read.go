package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/agenttrust/service/auth"
	"github.com/agenttrust/service/transaction"
)

// visibleTo is the condition that organization ? (given twice) may see a
// transactions row: it sent it, or it received it and the transaction
// completed (a reversed one completed first). A transaction pending
// approval, declined or expired is the sender's organization's alone, so a
// sender cannot fill another organization's views with requests it cannot act on.
const visibleTo = "(from_org = ? OR (to_org = ? AND status IN ('completed', 'reversed')))"

const txColumns = "id, from_agent, to_agent, from_org, to_org, action, amount, currency, memo, status, reversal_of, reversed_by, reason, created_at, expires_at, decided_at, decided_by, mandate_id"

// transactionColumns are the transactions columns holding each field of
// the API's Transaction (transaction.ListFilter.Fields); from_org and
// to_org, no field's, are read when every field is.
var transactionColumns = fieldColumns{
	{"fromAgent", []string{"from_agent"}}, {"toAgent", []string{"to_agent"}}, {"", []string{"from_org", "to_org"}},
	{"action", []string{"action"}}, {"amount", []string{"amount"}}, {"currency", []string{"currency"}},
	{"memo", []string{"memo"}}, {"status", []string{"status"}}, {"reversalOf", []string{"reversal_of"}},
	{"reversedBy", []string{"reversed_by"}}, {"reason", []string{"reason"}}, {"expiresAt", []string{"expires_at"}},
	{"decidedAt", []string{"decided_at"}}, {"decidedBy", []string{"decided_by"}}, {"mandateId", []string{"mandate_id"}},
}

// Get returns a transaction visible to the caller (visibleTo).
func (s *TransactionService) Get(ctx context.Context, p auth.Principal, txID string) (*transaction.Transaction, error) {
	var row transactionRow
	err := s.db.bun.NewSelect().Model(&row).Where("id = ?", txID).Where(visibleTo, p.OrgID, p.OrgID).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, txNotFound(txID)
	}
	if err != nil {
		return nil, fmt.Errorf("get transaction: %w", err)
	}
	return row.transaction(), nil
}

// visible reads columns of the caller-visible set (visibleTo) as two disjoint
// branches (sent by the caller's agents; received, completed and not sent by
// them), so each branch walks its own index in order and Postgres merges them
// without sorting the history.
func visible(columns, orgID string, agentID *string, where string, whereArgs []any, order string, limit int) (string, []any) {
	var branches [2]string
	var args []any
	for i, b := range [2]struct{ cond string }{
		{"from_org = ?"},
		{"to_org = ? AND from_org <> ? AND status IN ('completed', 'reversed')"},
	} {
		cond := b.cond
		bargs := []any{orgID}
		if i == 1 {
			bargs = append(bargs, orgID)
		}
		if agentID != nil {
			cond += " AND (from_agent = ? OR to_agent = ?)"
			bargs = append(bargs, *agentID, *agentID)
		}
		if where != "" {
			cond += " AND " + where
			bargs = append(bargs, whereArgs...)
		}
		q := "SELECT " + columns + " FROM transactions WHERE " + cond + " ORDER BY " + order
		if limit > 0 {
			q += " LIMIT " + strconv.Itoa(limit)
		}
		branches[i] = "(" + q + ")"
		args = append(args, bargs...)
	}
	q := "SELECT * FROM (" + branches[0] + " UNION ALL " + branches[1] + ") t ORDER BY " + order
	if limit > 0 {
		q += " LIMIT " + strconv.Itoa(limit)
	}
	return q, args
}

// List returns a page of visible transactions, newest first, by keyset on
// (created_at, id); a backward page is read oldest first from its cursor
// and put newest first.
func (s *TransactionService) List(ctx context.Context, p auth.Principal, f transaction.ListFilter) (*transaction.Page, error) {
	if err := checkLimit(f.Limit); err != nil {
		return nil, err
	}
	w := f.Window
	var conds []string
	var args []any
	if f.Status != nil {
		conds, args = append(conds, "status = ?"), append(args, string(*f.Status))
	}
	cmp, order := "<", "created_at DESC, id DESC"
	if w.Backward {
		cmp, order = ">", "created_at, id"
	}
	if c := w.Cursor(); c != "" {
		at, lastID, err := s.db.cursors(p.OrgID, transactionList).parseTime(c)
		if err != nil {
			return nil, cursorErr(err, w)
		}
		conds, args = append(conds, "(created_at, id) "+cmp+" (?, ?)"), append(args, at, lastID)
	}
	cols := strings.Join(transactionColumns.of(f.Fields, "", "id", "created_at"), ", ")
	q, qargs := visible(cols, p.OrgID, f.AgentID, strings.Join(conds, " AND "), args, order, f.Limit+1)
	var rows []transactionRow
	if err := s.db.bun.NewRaw(q, qargs...).Scan(ctx, &rows); err != nil {
		return nil, fmt.Errorf("list transactions: %w", err)
	}
	cursors := s.db.cursors(p.OrgID, transactionList)
	rows, end := finishPage(rows, w, func(r transactionRow) string { return cursors.time(r.CreatedAt, r.ID) })
	page := &transaction.Page{Transactions: make([]*transaction.Transaction, len(rows)), Cursors: end.cursors,
		EndCursor: end.endCursor, HasNextPage: end.hasNext, HasPreviousPage: end.hasPrevious}
	for i := range rows {
		page.Transactions[i] = rows[i].transaction()
	}
	return page, nil
}

// Count counts visible transactions under the filter (a full count: it is
// computed only when totalCount is asked for).
func (s *TransactionService) Count(ctx context.Context, p auth.Principal, f transaction.ListFilter) (int, error) {
	q := s.db.bun.NewSelect().Model((*transactionRow)(nil)).Where(visibleTo, p.OrgID, p.OrgID)
	if f.AgentID != nil {
		q = q.Where("(from_agent = ? OR to_agent = ?)", *f.AgentID, *f.AgentID)
	}
	if f.Status != nil {
		q = q.Where("status = ?", string(*f.Status))
	}
	n, err := q.Count(ctx)
	if err != nil {
		return 0, fmt.Errorf("count transactions: %w", err)
	}
	return n, nil
}

// Export reads the caller's visible transactions created in r, oldest
// first, by keyset on (created_at, id) in batches of transaction.ExportBatch,
// each its own statement: a slow reader holds no connection and no snapshot
// between batches, and a row committed while the export runs is included
// when its position is still ahead.
func (s *TransactionService) Export(ctx context.Context, p auth.Principal, r transaction.ExportRange, each func([]*transaction.Transaction) error) error {
	if err := r.Validate(); err != nil {
		return err
	}
	var conds []string
	var args []any
	if r.Since != nil {
		conds, args = append(conds, "created_at >= ?"), append(args, *r.Since)
	}
	if r.Until != nil {
		conds, args = append(conds, "created_at < ?"), append(args, *r.Until)
	}
	batch := make([]*transaction.Transaction, 0, transaction.ExportBatch)
	where := strings.Join(conds, " AND ")
	keyset := 0 // the arguments of the keyset condition, at the end of args once the first batch is read
	for {
		q, qargs := visible(txColumns, p.OrgID, nil, where, args, "created_at, id", transaction.ExportBatch)
		var rows []transactionRow
		if err := s.db.bun.NewRaw(q, qargs...).Scan(ctx, &rows); err != nil && !errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("read export batch: %w", err)
		}
		if len(rows) == 0 {
			return nil
		}
		batch = batch[:0]
		for i := range rows {
			batch = append(batch, rows[i].transaction())
		}
		if err := each(batch); err != nil {
			return err
		}
		if len(rows) < transaction.ExportBatch {
			return nil
		}
		last := rows[len(rows)-1]
		where = strings.Join(append(slices.Clip(conds), "(created_at, id) > (?, ?)"), " AND ")
		args = append(slices.Clip(args[:len(args)-keyset]), last.CreatedAt, last.ID)
		keyset = 2
	}
}
