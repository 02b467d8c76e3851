package db

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/uptrace/bun"

	"github.com/agenttrust/service/event"
)

// EventTx is a transaction held open by a test, to commit events out of order.
type EventTx struct {
	tx   *txn
	conn bun.Conn
	ctx  context.Context
}

// BeginEventTx opens a transaction and gives it a transaction id at once.
func (d *DB) BeginEventTx(ctx context.Context) (*EventTx, error) {
	conn, err := d.bun.Conn(ctx)
	if err != nil {
		return nil, err
	}
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		conn.Close()
		return nil, err
	}
	if _, err := tx.ExecContext(ctx, "SELECT pg_current_xact_id()"); err != nil {
		tx.Rollback()
		conn.Close()
		return nil, err
	}
	return &EventTx{tx: &txn{Tx: tx, d: d, conn: conn.Conn, batch: &pgx.Batch{}}, conn: conn, ctx: ctx}, nil
}

// Append writes one event for orgs inside the transaction.
func (e *EventTx) Append(typ string, orgs ...string) (event.Event, error) {
	return appendEvent(e.ctx, e.tx, typ, time.Now().UTC(), map[string]string{"k": "v"}, orgs...)
}

// Commit commits the transaction.
func (e *EventTx) Commit() error {
	defer e.conn.Close()
	return e.tx.Commit()
}

// Rollback aborts the transaction.
func (e *EventTx) Rollback() error {
	defer e.conn.Close()
	return e.tx.Rollback()
}
