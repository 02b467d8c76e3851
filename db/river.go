package db

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"
)

// migrateRiver applies River's own schema (its job queue tables), so the
// migrate step and test templates hold everything the service needs.
func migrateRiver(ctx context.Context, d *DB) ([]string, error) {
	m, err := rivermigrate.New(riverpgxv5.New(d.pool), nil)
	if err != nil {
		return nil, fmt.Errorf("migrate river: %w", err)
	}
	res, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil)
	if err != nil {
		return nil, fmt.Errorf("migrate river: %w", err)
	}
	out := make([]string, len(res.Versions))
	for i, v := range res.Versions {
		out[i] = fmt.Sprintf("river_%03d", v.Version)
	}
	return out, nil
}

// jobInserter queues River jobs inside the service's own transactions, so a
// job commits with the change that calls for it: riverpgxv5 on the pgx
// connection the transaction runs on (connTx). It never works jobs: the
// delivery workers do, on the same pool.
type jobInserter struct{ client *river.Client[pgx.Tx] }

func newJobInserter(d *DB) (*jobInserter, error) {
	// FetchCooldown here limits how often inserts notify the workers' queue:
	// every dispatch should wake them, since delivery latency hangs on it.
	c, err := river.NewClient(riverpgxv5.New(d.pool), &river.Config{FetchCooldown: time.Millisecond})
	if err != nil {
		return nil, fmt.Errorf("river insert client: %w", err)
	}
	return &jobInserter{client: c}, nil
}

func (j *jobInserter) insert(ctx context.Context, tx *txn, jobs []river.InsertManyParams) error {
	if len(jobs) == 0 {
		return nil
	}
	err := tx.raw(func(c *pgx.Conn) error {
		_, err := j.client.InsertManyTx(ctx, connTx{c}, jobs)
		return err
	})
	if err != nil {
		return fmt.Errorf("queue %d delivery jobs: %w", len(jobs), err)
	}
	return nil
}

// connTx is the pgx.Tx River inserts through: the connection of a
// transaction that database/sql began and ends, so River may run statements
// in it but neither nest, commit nor roll it back.
type connTx struct{ c *pgx.Conn }

var _ pgx.Tx = connTx{}

var errOwnedTx = errors.New("the transaction belongs to the service's database/sql transaction")

func (t connTx) Begin(context.Context) (pgx.Tx, error) { return nil, errOwnedTx }
func (t connTx) Commit(context.Context) error          { return errOwnedTx }
func (t connTx) Rollback(context.Context) error        { return errOwnedTx }
func (t connTx) LargeObjects() pgx.LargeObjects        { return pgx.LargeObjects{} }
func (t connTx) Conn() *pgx.Conn                       { return t.c }

func (t connTx) CopyFrom(ctx context.Context, table pgx.Identifier, cols []string, src pgx.CopyFromSource) (int64, error) {
	return t.c.CopyFrom(ctx, table, cols, src)
}

func (t connTx) SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults {
	return t.c.SendBatch(ctx, b)
}

func (t connTx) Prepare(ctx context.Context, name, sql string) (*pgconn.StatementDescription, error) {
	return t.c.Prepare(ctx, name, sql)
}

func (t connTx) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	return t.c.Exec(ctx, sql, args...)
}

func (t connTx) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	return t.c.Query(ctx, sql, args...)
}

func (t connTx) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	return t.c.QueryRow(ctx, sql, args...)
}
