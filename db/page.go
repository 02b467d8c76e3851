package db

import (
	"slices"
	"strconv"
	"time"

	"github.com/uptrace/bun"

	"github.com/agenttrust/service/failure"
	"github.com/agenttrust/service/paging"
)

// checkLimit enforces the one page-size rule (paging.Check) in every list.
func checkLimit(limit int) error { return paging.Check(limit) }

// trimPage cuts the probe row a keyset query reads past the page (it asks
// for limit+1) and reports whether another page follows.
func trimPage[T any](rows []T, limit int) ([]T, bool) {
	if len(rows) > limit {
		return rows[:limit], true
	}
	return rows, false
}

// badCursor answers an `after` that no list of this service returned.
func badCursor() error {
	return failure.Invalid("after", "is not a cursor returned by this list: pass pageInfo.endCursor unchanged")
}

// Lists whose cursors are told apart: a cursor of one is refused by the
// others (listCursors).
const (
	agentList       = "agents"
	transactionList = "transactions"
	mandateList     = "mandates"
	disputeList     = "disputes"
	deliveryList    = "deliveries" // of the organization's webhook endpoints
)

// listCursors is the one cursor codec of a list as one organization sees
// it: paging.Cursors, signed under the server's key ring, so a cursor that
// was edited or forged, or written for another list or organization, is
// refused (badCursor).
type listCursors struct{ c paging.Cursors }

// cursors is the codec of list's cursors for org.
func (d *DB) cursors(org, list string) listCursors {
	return listCursors{paging.Cursors{Keys: d.keys, Org: org, List: list}}
}

// open reads a cursor of n keyset values.
func (lc listCursors) open(c string, n int) ([]string, error) {
	vals, ok := lc.c.Open(c, n)
	if !ok {
		return nil, badCursor()
	}
	return vals, nil
}

// seq pages a list ordered by a positive sequence (agents).
func (lc listCursors) seq(seq int64) string { return lc.c.Seal(strconv.FormatInt(seq, 10)) }

func (lc listCursors) parseSeq(c string) (int64, error) {
	vals, err := lc.open(c, 1)
	if err != nil {
		return 0, err
	}
	seq, err := strconv.ParseInt(vals[0], 10, 64)
	if err != nil || seq <= 0 {
		return 0, badCursor()
	}
	return seq, nil
}

// time pages a list ordered by creation time, then id (transactions).
func (lc listCursors) time(at time.Time, id string) string {
	return lc.c.Seal(strconv.FormatInt(at.UnixMicro(), 10), id)
}

func (lc listCursors) parseTime(c string) (time.Time, string, error) {
	vals, err := lc.open(c, 2)
	if err != nil {
		return time.Time{}, "", err
	}
	// Within Postgres' timestamptz range with room to spare: any cursor this
	// service wrote is, and an extreme one must not reach the query.
	us, err := strconv.ParseInt(vals[0], 10, 64)
	if err != nil || us < 0 || us > maxCursorMicros {
		return time.Time{}, "", badCursor()
	}
	return time.UnixMicro(us).UTC(), vals[1], nil
}

// maxCursorMicros is 9999-12-31T23:59:59Z in Unix microseconds.
const maxCursorMicros = 253402300799 * 1e6

// reverse puts a backward page's rows, read oldest first from its cursor,
// in the list's own order, newest first.
func reverse[T any](rows []T) {
	for i, j := 0, len(rows)-1; i < j; i, j = i+1, j-1 {
		rows[i], rows[j] = rows[j], rows[i]
	}
}

// cursorErr names the argument a bad cursor came in: before on a backward
// page, after (badCursor's) otherwise.
func cursorErr(err error, w paging.Window) error {
	if w.Backward {
		return failure.Invalid("before", "is not a cursor returned by this list: pass pageInfo.startCursor or an edge's cursor unchanged")
	}
	return err
}

// seqWindow narrows q, a list ordered newest first by its seq column, to w's
// page: the rows past w's cursor (read by lc) in the direction w reads (a backward page
// oldest first from its cursor), one more than the page to tell whether
// another follows.
func seqWindow(q *bun.SelectQuery, w paging.Window, lc listCursors) (*bun.SelectQuery, error) {
	cmp, order := "<", "seq DESC"
	if w.Backward {
		cmp, order = ">", "seq ASC"
	}
	if c := w.Cursor(); c != "" {
		seq, err := lc.parseSeq(c)
		if err != nil {
			return nil, cursorErr(err, w)
		}
		q = q.Where("seq "+cmp+" ?", seq)
	}
	return q.Order(order).Limit(w.Limit + 1), nil
}

// pageEnd is what every keyset page says besides its items: each item's
// cursor (sealed when read), the last one's, and whether rows follow and
// precede it.
type pageEnd struct {
	cursors              paging.RowCursors
	endCursor            string
	hasNext, hasPrevious bool
}

// finishPage makes rows, read by w's keyset query (limit+1 in the direction
// w reads), the page in the list's own order, with cursor giving each row's
// cursor.
func finishPage[T any](rows []T, w paging.Window, cursor func(T) string) ([]T, pageEnd) {
	rows, more := trimPage(rows, w.Limit)
	if w.Backward {
		reverse(rows)
	}
	var end pageEnd
	end.hasNext, end.hasPrevious = w.Flags(more)
	end.cursors = paging.NewRowCursors(len(rows), func(i int) string { return cursor(rows[i]) })
	if n := len(rows); n > 0 {
		end.endCursor = cursor(rows[n-1])
	}
	return rows, end
}

// fieldColumns maps each field of one of the API's types to the columns
// of the table holding it, for a page that reads only what its nodes
// select.
type fieldColumns []struct {
	field   string
	columns []string
}

// of is prefix and each column of always, then of each of fields (nil:
// every field's), each column once, in fc's order.
func (fc fieldColumns) of(fields []string, prefix string, always ...string) []string {
	cols := make([]string, 0, len(always)+len(fc))
	add := func(c string) {
		if c = prefix + c; !slices.Contains(cols, c) {
			cols = append(cols, c)
		}
	}
	for _, c := range always {
		add(c)
	}
	for _, f := range fc {
		if fields == nil || slices.Contains(fields, f.field) {
			for _, c := range f.columns {
				add(c)
			}
		}
	}
	return cols
}
