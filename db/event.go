package db

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/uptrace/bun"

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

// EventChannel is the LISTEN/NOTIFY channel that announces new events. Its
// payload (the event's seq) is informative only: listeners take a
// notification as a wake-up and read the log.
const EventChannel = "att_events"

// appendEvent writes ev to the durable log inside tx, so it commits with the
// change it announces, and notifies listeners at commit: one statement
// (insertEvent, pgx's text, as tx's batch sends it). Queued on tx's batch,
// the event has no Seq; otherwise it runs at once on tx's connection and
// has.
func appendEvent(ctx context.Context, tx *txn, typ string, at time.Time, data any, orgIDs ...string) (event.Event, error) {
	ev, err := event.New(id.New(id.Event), typ, data, orgIDs...)
	if err != nil {
		return ev, fmt.Errorf("encode %s event: %w", typ, err)
	}
	ev.CreatedAt = at
	args := []any{ev.ID, ev.Type, ev.OrgIDs, string(ev.Data), at, EventChannel}
	if tx.queue {
		return ev, tx.write(ctx, "insert "+typ+" event", insertEvent, args...)
	}
	tx.d.statements.Add(1)
	var notified any
	err = tx.raw(func(c *pgx.Conn) error { return c.QueryRow(ctx, insertEvent, args...).Scan(&ev.Seq, &notified) })
	if err != nil {
		return ev, fmt.Errorf("insert %s event: %w", typ, err)
	}
	return ev, nil
}

// insertEvent stores an event with its recipients and notifies
// EventChannel (the payload, the event's seq, is informative only).
const insertEvent = `WITH e AS (INSERT INTO events (id, type, org_ids, data, created_at) VALUES ($1, $2, $3, $4, $5) RETURNING seq),
 o AS (INSERT INTO event_orgs (org_id, event_seq) SELECT unnest($3::text[]), seq FROM e)
 SELECT seq, pg_notify($6, seq::text) FROM e`

// appendEventTx is appendEvent for a transaction on the pgx pool (the
// webhook delivery runner's); it returns the event with its Seq.
func (d *DB) appendEventTx(ctx context.Context, tx pgx.Tx, typ string, at time.Time, data any, orgIDs ...string) (event.Event, error) {
	ev, err := event.New(id.New(id.Event), typ, data, orgIDs...)
	if err != nil {
		return ev, fmt.Errorf("encode %s event: %w", typ, err)
	}
	ev.CreatedAt = at
	d.statements.Add(1)
	err = tx.QueryRow(ctx, insertEvent, ev.ID, ev.Type, ev.OrgIDs, string(ev.Data), at, EventChannel).Scan(&ev.Seq, nil)
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
