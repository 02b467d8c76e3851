package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/agenttrust/service/auth"
	"github.com/agenttrust/service/failure"
	"github.com/agenttrust/service/transaction"
)

const txColumns = "id, from_agent, to_agent, from_org, to_org, action, amount, currency, memo, status, reversal_of, reversed_by, reason, created_at"

// Get returns a transaction one of whose parties belongs to the caller.
func (s *TransactionService) Get(ctx context.Context, txID string) (*transaction.Transaction, error) {
	p, err := auth.FromContext(ctx)
	if err != nil {
		return nil, err
	}
	var row transactionRow
	err = s.db.bun.NewSelect().Model(&row).Where("id = ?", txID).
		Where("(from_org = ? OR to_org = ?)", p.OrgID, p.OrgID).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, txNotFound(txID)
	}
	if err != nil {
		return nil, fmt.Errorf("get transaction: %w", err)
	}
	return row.transaction(), nil
}

// visible builds the caller-visible set as two disjoint branches (sent by
// the caller's agents; received and not sent by them), so each branch walks
// its own index in order and Postgres merges them without sorting the history.
func visible(orgID string, agentID *string, where string, whereArgs []any, order string, limit int) (string, []any) {
	var branches [2]string
	var args []any
	for i, b := range [2]struct{ cond string }{
		{"from_org = ?"},
		{"to_org = ? AND from_org <> ?"},
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
		q := "SELECT " + txColumns + " FROM transactions WHERE " + cond + " ORDER BY " + order
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
func (s *TransactionService) List(ctx context.Context, f transaction.ListFilter) (*transaction.Page, error) {
	p, err := auth.FromContext(ctx)
	if err != nil {
		return nil, err
	}
	if err := checkLimit(f.Limit); err != nil {
		return nil, err
	}
	w := window(f.Limit, f.After, f.Before, f.Backward)
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
		at, lastID, err := parseTimeCursor(c)
		if err != nil {
			return nil, cursorErr(err, w)
		}
		conds, args = append(conds, "(created_at, id) "+cmp+" (?, ?)"), append(args, at, lastID)
	}
	q, qargs := visible(p.OrgID, f.AgentID, strings.Join(conds, " AND "), args, order, f.Limit+1)
	var rows []transactionRow
	if err := s.db.bun.NewRaw(q, qargs...).Scan(ctx, &rows); err != nil {
		return nil, fmt.Errorf("list transactions: %w", err)
	}
	rows, more := trimPage(rows, f.Limit)
	if w.Backward {
		reverse(rows)
	}
	page := &transaction.Page{Transactions: make([]*transaction.Transaction, len(rows)), Cursors: make([]string, len(rows))}
	page.HasNextPage, page.HasPreviousPage = w.Flags(more)
	for i := range rows {
		page.Transactions[i] = rows[i].transaction()
		page.Cursors[i] = timeCursor(rows[i].CreatedAt, rows[i].ID)
	}
	if n := len(rows); n > 0 {
		page.EndCursor = page.Cursors[n-1]
	}
	return page, nil
}

// Count counts visible transactions under the filter (a full count: it is
// computed only when totalCount is asked for).
func (s *TransactionService) Count(ctx context.Context, f transaction.ListFilter) (int, error) {
	p, err := auth.FromContext(ctx)
	if err != nil {
		return 0, err
	}
	q := s.db.bun.NewSelect().Model((*transactionRow)(nil)).Where("(from_org = ? OR to_org = ?)", p.OrgID, p.OrgID)
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

// exportBatch is how many rows one FETCH reads from the export cursor.
const exportBatch = 1000

// Export encodes the caller's visible transactions created in [since, until),
// oldest first, reading them in batches from a server-side cursor inside one
// read-only snapshot. More than transaction.MaxExportRows is refused.
func (s *TransactionService) Export(ctx context.Context, format transaction.Format, since, until *time.Time) (*transaction.Export, error) {
	p, err := auth.FromContext(ctx)
	if err != nil {
		return nil, err
	}
	if err := (transaction.ExportRange{Since: since, Until: until}).Validate(); err != nil {
		return nil, err
	}
	enc, err := transaction.NewEncoder(format)
	if err != nil {
		return nil, failure.Invalid("format", "must be csv or json")
	}
	var conds []string
	var args []any
	if since != nil {
		conds, args = append(conds, "created_at >= ?"), append(args, *since)
	}
	if until != nil {
		conds, args = append(conds, "created_at < ?"), append(args, *until)
	}
	q, qargs := visible(p.OrgID, nil, strings.Join(conds, " AND "), args, "created_at, id", 0)
	opts := &sql.TxOptions{ReadOnly: true, Isolation: sql.LevelRepeatableRead}
	err = s.db.bun.RunInTx(ctx, opts, func(ctx context.Context, tx bun.Tx) error {
		var n int
		if err := tx.NewRaw("SELECT count(*) FROM (SELECT 1 FROM ("+q+") c LIMIT ?) x", append(qargs, transaction.MaxExportRows+1)...).Scan(ctx, &n); err != nil {
			return fmt.Errorf("count export: %w", err)
		}
		if n > transaction.MaxExportRows {
			return transaction.ExportTooLarge()
		}
		if _, err := tx.NewRaw("DECLARE export_cursor NO SCROLL CURSOR FOR "+q, qargs...).Exec(ctx); err != nil {
			return fmt.Errorf("open export cursor: %w", err)
		}
		for {
			var rows []transactionRow
			if err := tx.NewRaw("FETCH ? FROM export_cursor", exportBatch).Scan(ctx, &rows); err != nil && !errors.Is(err, sql.ErrNoRows) {
				return fmt.Errorf("fetch export batch: %w", err)
			}
			for i := range rows {
				if err := enc.Write(rows[i].transaction()); err != nil {
					return err
				}
			}
			if len(rows) < exportBatch {
				return nil
			}
		}
	})
	if err != nil {
		return nil, err
	}
	return enc.Finish()
}
