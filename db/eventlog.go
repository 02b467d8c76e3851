package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/agenttrust/service/event"
	"github.com/agenttrust/service/failure"
)

// The log is read in (xid, seq) order and only below the current snapshot's
// xmin: every transaction older than xmin has committed or aborted, and every
// transaction that can still commit an event has an xid at or above xmin, so
// its events sort after everything a reader has returned. This is what makes
// tailing the log gap-free even though seq is taken at insert, not at commit.
const stableEvents = `e.xid < pg_snapshot_xmin(pg_current_snapshot())`

const eventColumns = `e.seq, e.xid::text AS xid, e.id, e.type, e.org_ids, e.data, e.created_at`

// ReadEvents returns up to limit events of every organization after pos, in
// log order, among those no running transaction can precede.
func (d *DB) ReadEvents(ctx context.Context, after event.Position, limit int) ([]event.Event, error) {
	var rows []logRow
	err := d.bun.NewRaw(logQuery, strconv.FormatUint(after.XID, 10), after.Seq, limit).Scan(ctx, &rows)
	if err != nil {
		return nil, fmt.Errorf("read events: %w", err)
	}
	return logEvents(rows)
}

// logQuery is ReadEvents' statement: the log after a position, in order.
const logQuery = `SELECT ` + eventColumns + ` FROM events e
	WHERE (e.xid, e.seq) > (?::xid8, ?) AND ` + stableEvents + `
	ORDER BY e.xid, e.seq LIMIT ?`

// readEventHeads reads up to limit events after `after`, as ReadEvents
// does but without their data, for the webhook dispatcher, which only
// routes them. It reads on the pgx pool, in Postgres' binary format, in a
// read-only transaction of its own under indexOrderOnly. The dispatcher holds its cursor's lock in
// its own transaction meanwhile, but the read needs nothing of that
// transaction's: events do not change, and which of them are stable is for
// the read's own snapshot to say.
func (d *DB) readEventHeads(ctx context.Context, after event.Position, limit int) ([]event.Event, error) {
	var out []event.Event
	err := pgx.BeginTxFunc(ctx, d.pool, pgx.TxOptions{AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		d.statements.Add(2)
		var b pgx.Batch
		b.Queue(indexOrderOnly)
		b.Queue(eventHeadsQuery, strconv.FormatUint(after.XID, 10), after.Seq, limit)
		res := tx.SendBatch(ctx, &b)
		defer res.Close()
		if _, err := res.Exec(); err != nil {
			return err
		}
		rows, err := res.Query()
		if err != nil {
			return err
		}
		out, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (e event.Event, err error) {
			var xid string
			if err := row.Scan(&e.Seq, &xid, &e.ID, &e.Type, &e.OrgIDs, &e.CreatedAt); err != nil {
				return e, err
			}
			e.CreatedAt = e.CreatedAt.UTC()
			e.Position, err = position(xid, e.Seq)
			return e, err
		})
		if err != nil {
			return err
		}
		return res.Close()
	})
	if err != nil {
		return nil, fmt.Errorf("read event heads: %w", err)
	}
	return out, nil
}

// eventHeadsQuery is readEventHeads' statement: logQuery's, without the
// events' data.
const eventHeadsQuery = `SELECT e.seq, e.xid::text, e.id, e.type, e.org_ids, e.created_at FROM events e
	WHERE (e.xid, e.seq) > ($1::text::xid8, $2) AND ` + stableEvents + `
	ORDER BY e.xid, e.seq LIMIT $3`

// indexOrderOnly makes the dispatcher's read of the log take its events in
// the position index's order instead of collecting every event after the
// cursor and sorting them: after a burst, statistics older than the burst
// make Postgres expect far fewer events than there are, and it then planned
// a bitmap scan of all of them and a sort for each pass. The settings last
// until the end of the read's transaction.
const indexOrderOnly = `SELECT set_config('enable_bitmapscan', 'off', true), set_config('enable_seqscan', 'off', true)`

// ReadOrgEvents is ReadEvents for the events addressed to one organization.
func (d *DB) ReadOrgEvents(ctx context.Context, orgID string, after event.Position, limit int) ([]event.Event, error) {
	var rows []logRow
	err := d.bun.NewRaw(`SELECT `+eventColumns+` FROM event_orgs eo JOIN events e ON e.seq = eo.event_seq
		WHERE eo.org_id = ? AND (e.xid, e.seq) > (?::xid8, ?) AND `+stableEvents+`
		ORDER BY e.xid, e.seq LIMIT ?`, orgID, strconv.FormatUint(after.XID, 10), after.Seq, limit).Scan(ctx, &rows)
	if err != nil {
		return nil, fmt.Errorf("read organization events: %w", err)
	}
	return logEvents(rows)
}

// CountOrgEvents counts the committed events addressed to orgID after a
// position, stopping at limit (all), and how many of those have one of types
// (matching; every one when types is empty): the length of a replay and what
// it sends, read without the events' data. It counts events the log readers
// do not hand out yet (below the oldest running transaction) too: they reach
// the subscriber all the same.
func (d *DB) CountOrgEvents(ctx context.Context, orgID string, after event.Position, types []string, limit int) (all, matching int, err error) {
	err = d.bun.QueryRowContext(ctx, `SELECT count(*), count(*) FILTER (WHERE r.type = ANY(?::text[]))
		FROM (SELECT e.type FROM event_orgs eo JOIN events e ON e.seq = eo.event_seq
		WHERE eo.org_id = ? AND (e.xid, e.seq) > (?::xid8, ?) LIMIT ?) r`,
		pgdialect.Array(append([]string{}, types...)), orgID, strconv.FormatUint(after.XID, 10), after.Seq, limit).Scan(&all, &matching)
	if err != nil {
		return 0, 0, fmt.Errorf("count organization events: %w", err)
	}
	if len(types) == 0 {
		matching = all
	}
	return all, matching, nil
}

// EventHead returns the position of the last event a reader can see now (the
// zero Position for an empty log): a live reader that starts there misses
// nothing committed afterwards.
func (d *DB) EventHead(ctx context.Context) (event.Position, error) {
	var xid string
	var seq int64
	err := d.bun.QueryRowContext(ctx, `SELECT e.xid::text, e.seq FROM events e WHERE `+stableEvents+`
		ORDER BY e.xid DESC, e.seq DESC LIMIT 1`).Scan(&xid, &seq)
	if errors.Is(err, sql.ErrNoRows) {
		return event.Position{}, nil
	}
	if err != nil {
		return event.Position{}, fmt.Errorf("read event head: %w", err)
	}
	pos, err := position(xid, seq)
	if err != nil {
		return event.Position{}, fmt.Errorf("read event head: %w", err)
	}
	return pos, nil
}

// EventPosition returns the position of event id if it is addressed to
// orgID. Errors: failure.NotFound when there is no such event for orgID.
func (d *DB) EventPosition(ctx context.Context, orgID, eventID string) (event.Position, error) {
	var xid string
	var seq int64
	err := d.bun.QueryRowContext(ctx, `SELECT e.xid::text, e.seq FROM events e
		JOIN event_orgs eo ON eo.event_seq = e.seq AND eo.org_id = ?
		WHERE e.id = ?`, orgID, eventID).Scan(&xid, &seq)
	if errors.Is(err, sql.ErrNoRows) {
		return event.Position{}, failure.Errorf(failure.NotFound, "event %s not found", eventID)
	}
	if err != nil {
		return event.Position{}, fmt.Errorf("find event: %w", err)
	}
	pos, err := position(xid, seq)
	if err != nil {
		return event.Position{}, fmt.Errorf("find event: %w", err)
	}
	return pos, nil
}

// position builds a Position from an xid8 read as text and a seq.
func position(xid string, seq int64) (event.Position, error) {
	x, err := strconv.ParseUint(xid, 10, 64)
	if err != nil {
		return event.Position{}, fmt.Errorf("xid %q: %w", xid, err)
	}
	return event.Position{XID: x, Seq: seq}, nil
}

// logRow is an event as the log readers select it.
type logRow struct {
	Seq       int64     `bun:"seq"`
	XID       string    `bun:"xid"`
	ID        string    `bun:"id"`
	Type      string    `bun:"type"`
	OrgIDs    []string  `bun:"org_ids,array"`
	Data      []byte    `bun:"data"`
	CreatedAt time.Time `bun:"created_at"`
}

func logEvents(rows []logRow) ([]event.Event, error) {
	out := make([]event.Event, len(rows))
	for i, r := range rows {
		pos, err := position(r.XID, r.Seq)
		if err != nil {
			return nil, fmt.Errorf("read events: %w", err)
		}
		out[i] = event.Event{Seq: r.Seq, Position: pos, ID: r.ID, Type: r.Type,
			OrgIDs: r.OrgIDs, Data: r.Data, CreatedAt: r.CreatedAt.UTC()}
	}
	return out, nil
}
