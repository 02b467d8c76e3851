package db

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/schema"
)

// writeBatch gathers writes of one transaction whose results nothing reads
// (no RETURNING, no row counts), so that they reach Postgres in one round
// trip, one simple-protocol message of several statements, instead of one
// each. Postgres runs them in order and stops at the first error, which then
// fails the transaction. executeTransaction uses one: its fifteen statements
// take six round trips (bench/pgbench/execute.sql sends the same groups).
//
// A batch holds writes that no later statement of the transaction reads, so
// that reads may run before it is flushed.
type writeBatch struct {
	d    *DB
	sql  []byte
	n    int
	what []string
}

type batchKey struct{}

// batchSize is room for an execute's writes (about 5 KB) without regrowing.
const batchSize = 8 << 10

// withBatch returns ctx carrying a new batch: write queues on it instead of
// running each statement. The caller must flush it before committing.
func withBatch(ctx context.Context, d *DB) (context.Context, *writeBatch) {
	b := &writeBatch{d: d}
	return context.WithValue(ctx, batchKey{}, b), b
}

// statement is a bun query that can run alone or be written into a batch.
type statement interface {
	Exec(ctx context.Context, dest ...any) (sql.Result, error)
	AppendQuery(gen schema.QueryGen, b []byte) ([]byte, error)
}

// write runs q in the transaction, or queues it on ctx's batch; what names
// it in errors.
func write(ctx context.Context, q statement, what string) error {
	if b, ok := ctx.Value(batchKey{}).(*writeBatch); ok {
		if b.n == 0 {
			b.sql = make([]byte, 0, batchSize)
		} else {
			b.sql = append(b.sql, ";\n"...)
		}
		// Appended in place: no copy of each statement's text.
		sql, err := q.AppendQuery(b.d.bun.QueryGen(), b.sql)
		if err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		b.sql = sql
		b.n++
		b.what = append(b.what, what)
		return nil
	}
	if _, err := q.Exec(ctx); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

// flush sends the queued statements in one round trip.
func (b *writeBatch) flush(ctx context.Context, tx bun.Tx) error {
	if b.n == 0 {
		return nil
	}
	q, n, what := string(b.sql), b.n, b.what
	b.sql = nil
	b.n, b.what = 0, nil
	// No arguments: bun and the driver send the text as it is.
	if _, err := tx.ExecContext(ctx, q); err != nil {
		return fmt.Errorf("%s: %w", strings.Join(what, ", "), err)
	}
	b.d.statements.Add(int64(n - 1)) // the query hook counted the message once
	return nil
}
