// Package db is the only package that talks to Postgres (through bun): row
// models, embedded migrations, and the services that own every database
// transaction boundary.
package db

import (
	"context"
	"database/sql"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/driver/pgdriver"

	"github.com/agenttrust/service/keyring"
)

// DB is a connection pool to the service's database.
type DB struct {
	bun        *bun.DB
	reads      *pgxpool.Pool
	statements atomic.Int64
	migrated   atomic.Bool
	keys       *keyring.Ring
	listener   eventListener
	// Now is the clock; tests may replace it before use.
	Now func() time.Time
}

// Open connects to the Postgres at url and checks it answers.
func Open(ctx context.Context, url string) (*DB, error) {
	// Reads may legitimately wait on a row lock (executes from one agent
	// queue up), so only dialing and writing are kept short; requests are
	// bounded by their contexts.
	connector := pgdriver.NewConnector(pgdriver.WithDSN(url), pgdriver.WithDialTimeout(5*time.Second),
		pgdriver.WithWriteTimeout(5*time.Second), pgdriver.WithReadTimeout(2*time.Minute),
		pgdriver.WithConnParams(map[string]any{"statement_timeout": StatementTimeout.Milliseconds()}))
	sqldb := sql.OpenDB(connector)
	sqldb.SetMaxOpenConns(mainConns)
	sqldb.SetMaxIdleConns(mainConns)
	sqldb.SetConnMaxIdleTime(5 * time.Minute)
	reads, err := openReads(url)
	if err != nil {
		sqldb.Close()
		return nil, err
	}
	d := &DB{bun: bun.NewDB(sqldb, pgdialect.New()), reads: reads, Now: func() time.Time { return time.Now().UTC() },
		keys: randomRing()}
	d.bun.AddQueryHook(counter{d})
	pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := sqldb.PingContext(pctx); err != nil {
		d.Close()
		return nil, fmt.Errorf("connect to postgres: %w", err)
	}
	return d, nil
}

// StatementTimeout is Postgres' statement_timeout on every connection of the
// pool: no single statement (a count, an export batch, a lock wait) runs
// longer, whatever a request asks. A migration that needs longer sets its
// own with SET LOCAL.
const StatementTimeout = 15 * time.Second

// Setting reads a Postgres run-time setting of a pooled connection (SHOW name).
func (d *DB) Setting(ctx context.Context, name string) (string, error) {
	var v string
	if err := d.bun.QueryRowContext(ctx, "SELECT current_setting(?)", name).Scan(&v); err != nil {
		return "", fmt.Errorf("read setting %s: %w", name, err)
	}
	return v, nil
}

// Pool is the process's pgx pool, for River and the statements that need pgx.
func (d *DB) Pool() *pgxpool.Pool { return d.reads }

// Close closes both pools.
func (d *DB) Close() error {
	d.reads.Close()
	return d.bun.Close()
}

// Stats reports connection pool figures for metrics: both pools together.
func (d *DB) Stats() sql.DBStats {
	st, r := d.bun.DB.Stats(), d.reads.Stat()
	st.MaxOpenConnections += int(r.MaxConns())
	st.OpenConnections += int(r.TotalConns())
	st.InUse += int(r.AcquiredConns())
	st.Idle += int(r.IdleConns())
	st.WaitCount += r.EmptyAcquireCount()
	st.WaitDuration += r.EmptyAcquireWaitTime()
	return st
}

// Statements counts SQL statements run since Open; tests use it to prove
// that a request runs a constant number of them.
func (d *DB) Statements() int64 { return d.statements.Load() }

// Ping checks the database answers within ctx.
func (d *DB) Ping(ctx context.Context) error { return d.bun.PingContext(ctx) }

// counter is a bun query hook that counts statements.
type counter struct{ d *DB }

func (c counter) BeforeQuery(ctx context.Context, _ *bun.QueryEvent) context.Context { return ctx }
func (c counter) AfterQuery(_ context.Context, _ *bun.QueryEvent)                    { c.d.statements.Add(1) }

// inTx runs fn in one database transaction: everything fn writes, including
// the events that announce it, commits together or not at all.
func (d *DB) inTx(ctx context.Context, fn func(tx bun.Tx) error) error {
	return d.bun.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error { return fn(tx) })
}
