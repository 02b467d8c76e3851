package db

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/agenttrust/service/event"
	"github.com/agenttrust/service/id"
)

type eventRow struct {
	bun.BaseModel `bun:"table:events"`
	Seq           int64           `bun:"seq,pk,autoincrement"`
	ID            string          `bun:"id"`
	Type          string          `bun:"type"`
	OrgIDs        []string        `bun:"org_ids,array"`
	Data          json.RawMessage `bun:"data,type:jsonb"`
	CreatedAt     time.Time       `bun:"created_at"`
}

type eventOrgRow struct {
	bun.BaseModel `bun:"table:event_orgs"`
	OrgID         string `bun:"org_id,pk"`
	EventSeq      int64  `bun:"event_seq,pk"`
}

// EventChannel is the LISTEN/NOTIFY channel that announces new events. Its
// payload (the event's seq, or its id when the event was written in a
// batch) is informative only: listeners take a notification as a wake-up
// and read the log.
const EventChannel = "att_events"

// appendEvent writes ev to the durable log inside tx, so it commits with the
// change it announces, and notifies listeners at commit. In a batch
// (writeBatch) it is two statements, the event with its recipients and the
// notification; otherwise three, and the returned event has its Seq.
func appendEvent(ctx context.Context, tx bun.Tx, typ string, at time.Time, data any, orgIDs ...string) (event.Event, error) {
	ev, err := event.New(id.New(id.Event), typ, data, orgIDs...)
	if err != nil {
		return ev, fmt.Errorf("encode %s event: %w", typ, err)
	}
	ev.CreatedAt = at
	row := eventRow{ID: ev.ID, Type: ev.Type, OrgIDs: ev.OrgIDs, Data: ev.Data, CreatedAt: at}
	if _, ok := ctx.Value(batchKey{}).(*writeBatch); ok {
		// In a batch nothing can read the seq back: the recipients take it
		// from the insert in the same statement, and the notification
		// names the event by id (listeners only wake on it).
		q := tx.NewRaw(`WITH e AS (?) INSERT INTO event_orgs (org_id, event_seq) SELECT o, e.seq FROM e CROSS JOIN unnest(?::text[]) AS o`,
			insertEvent(tx, &row), pgdialect.Array(ev.OrgIDs))
		if err := write(ctx, q, "insert "+typ+" event"); err != nil {
			return ev, err
		}
		return ev, write(ctx, tx.NewRaw("NOTIFY "+EventChannel+", ?", ev.ID), "notify "+typ+" event")
	}
	if _, err := tx.NewInsert().Model(&row).Returning("seq").Exec(ctx); err != nil {
		return ev, fmt.Errorf("insert %s event: %w", typ, err)
	}
	ev.Seq = row.Seq
	orgs := make([]eventOrgRow, len(ev.OrgIDs))
	for i, o := range ev.OrgIDs {
		orgs[i] = eventOrgRow{OrgID: o, EventSeq: row.Seq}
	}
	if _, err := tx.NewInsert().Model(&orgs).Exec(ctx); err != nil {
		return ev, fmt.Errorf("insert %s event recipients: %w", typ, err)
	}
	if _, err := tx.ExecContext(ctx, "SELECT pg_notify(?, ?)", EventChannel, fmt.Sprint(row.Seq)); err != nil {
		return ev, fmt.Errorf("notify %s event: %w", typ, err)
	}
	return ev, nil
}

// insertEvent is tx.NewInsert().Model(r).Returning("seq") written out: the
// same statement text (TestWrittenOutStatements) without bun's per-query
// reflection.
func insertEvent(q bun.IDB, r *eventRow) *bun.RawQuery {
	return q.NewRaw(`INSERT INTO "events" ("seq", "id", "type", "org_ids", "data", "created_at") VALUES (DEFAULT, ?, ?, ?, ?, ?) RETURNING seq`,
		r.ID, r.Type, pgdialect.Array(r.OrgIDs), jsonb(r.Data), r.CreatedAt)
}

// appendEventTx is appendEvent for a transaction on a pgx pool (the webhook
// delivery runner's): the event, its recipients and the notification in one
// statement.
func (d *DB) appendEventTx(ctx context.Context, tx pgx.Tx, typ string, at time.Time, data any, orgIDs ...string) (event.Event, error) {
	ev, err := event.New(id.New(id.Event), typ, data, orgIDs...)
	if err != nil {
		return ev, fmt.Errorf("encode %s event: %w", typ, err)
	}
	ev.CreatedAt = at
	d.statements.Add(1)
	err = tx.QueryRow(ctx, `WITH e AS (INSERT INTO events (id, type, org_ids, data, created_at) VALUES ($1, $2, $3, $4, $5) RETURNING seq),
			o AS (INSERT INTO event_orgs (org_id, event_seq) SELECT unnest($3::text[]), seq FROM e)
		SELECT seq, pg_notify($6, seq::text) FROM e`, ev.ID, ev.Type, ev.OrgIDs, string(ev.Data), at, EventChannel).Scan(&ev.Seq, nil)
	if err != nil {
		return ev, fmt.Errorf("insert %s event: %w", typ, err)
	}
	return ev, nil
}

// Events lists an organization's events after seq, oldest first (for tests,
// replay and delivery).
func (d *DB) Events(ctx context.Context, orgID string, afterSeq int64, limit int) ([]event.Event, error) {
	var rows []eventRow
	err := d.bun.NewSelect().Model(&rows).
		Where("seq IN (SELECT event_seq FROM event_orgs WHERE org_id = ? AND event_seq > ? ORDER BY event_seq LIMIT ?)", orgID, afterSeq, limit).
		Order("seq").Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("list events: %w", err)
	}
	out := make([]event.Event, len(rows))
	for i, r := range rows {
		out[i] = event.Event{Seq: r.Seq, ID: r.ID, Type: r.Type, OrgIDs: r.OrgIDs, Data: r.Data, CreatedAt: r.CreatedAt}
	}
	return out, nil
}
