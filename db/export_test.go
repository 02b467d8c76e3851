package db

import (
	"context"
	"time"

	"github.com/agenttrust/service/event"
)

// EventTx is a transaction held open by a test, to commit events out of order.
type EventTx struct {
	tx  *txn
	ctx context.Context
}

// BeginEventTx opens a transaction and gives it a transaction id at once.
func (d *DB) BeginEventTx(ctx context.Context) (*EventTx, error) {
	tx, err := d.bun.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	if _, err := tx.ExecContext(ctx, "SELECT pg_current_xact_id()"); err != nil {
		tx.Rollback()
		return nil, err
	}
	return &EventTx{tx: &txn{Tx: tx, d: d}, ctx: ctx}, nil
}

// Append writes one event for orgs inside the transaction.
func (e *EventTx) Append(typ string, orgs ...string) (event.Event, error) {
	return appendEvent(e.ctx, e.tx, typ, time.Now().UTC(), map[string]string{"k": "v"}, orgs...)
}

// Commit commits the transaction.
func (e *EventTx) Commit() error { return e.tx.Commit() }

// Rollback aborts the transaction.
func (e *EventTx) Rollback() error { return e.tx.Rollback() }
