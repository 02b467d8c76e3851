package db

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/uptrace/bun"
)

// txn is a database transaction as the store's helpers take it: bun's
// transaction, for reads and for writes whose results it reads, and for the
// writes whose results nothing reads (write), pgx's batch they go out on.
type txn struct {
	bun.Tx
	d     *DB
	conn  *sql.Conn // the connection the transaction runs on
	batch *pgx.Batch
	what  []string // names of the queued writes, for errors
	queue bool     // writes wait for flush (inBatchTx)
}

// raw runs fn with the pgx connection the transaction runs on, for what only
// pgx does (its batches); nothing else may use the transaction meanwhile.
func (t *txn) raw(fn func(c *pgx.Conn) error) error {
	return t.conn.Raw(func(driverConn any) error { return fn(pgxConn(driverConn)) })
}

// write runs sql (pgx's $n parameters), a statement whose result nothing
// reads, on pgx's batch: queued until flush in a batch transaction, else
// sent at once as a batch of one; what names it in errors. A queued write
// runs before the transaction commits (flush), so nothing the transaction
// reads may depend on it.
func (t *txn) write(ctx context.Context, what, sql string, args ...any) error {
	t.batch.Queue(sql, args...)
	t.what = append(t.what, what)
	if t.queue {
		return nil
	}
	return t.flush(ctx)
}

// flush sends the queued writes to Postgres in one round trip (pgx's
// pipeline) on the transaction's connection. Postgres runs them in order
// and stops at the first error, which fails the transaction.
func (t *txn) flush(ctx context.Context) error {
	if t.batch.Len() == 0 {
		return nil
	}
	b, what := t.batch, t.what
	t.batch, t.what = &pgx.Batch{}, nil
	t.d.statements.Add(int64(len(what)))
	return t.raw(func(c *pgx.Conn) error {
		res := c.SendBatch(ctx, b)
		for _, w := range what {
			if _, err := res.Exec(); err != nil {
				res.Close()
				return fmt.Errorf("%s: %w", w, err)
			}
		}
		return res.Close()
	})
}

// inTx runs fn in one database transaction whose writes each run at once:
// everything fn writes, including the events that announce it, commits
// together or not at all.
func (d *DB) inTx(ctx context.Context, fn func(tx *txn) error) error { return d.runTx(ctx, false, fn) }

// inBatchTx is inTx with fn's result-less writes queued and sent together
// in one round trip once fn returns, before the commit.
func (d *DB) inBatchTx(ctx context.Context, fn func(tx *txn) error) error {
	return d.runTx(ctx, true, fn)
}

// runTx runs fn in a transaction on a connection of its own (txn.raw).
func (d *DB) runTx(ctx context.Context, batch bool, fn func(tx *txn) error) error {
	conn, err := d.bun.Conn(ctx)
	if err != nil {
		return fmt.Errorf("take a connection: %w", err)
	}
	defer conn.Close()
	return conn.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		t := &txn{Tx: tx, d: d, conn: conn.Conn, batch: &pgx.Batch{}, queue: batch}
		if err := fn(t); err != nil {
			return err
		}
		return t.flush(ctx)
	})
}
