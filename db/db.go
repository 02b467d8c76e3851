// Package db is the only package that talks to Postgres: row models,
// embedded migrations, and the services that own every database transaction
// boundary. A process opens one pgx pool; bun runs over it through pgx's
// database/sql adapter for every model and statement (River's job inserts
// join bun's transactions through River's database/sql driver), and pgx
// itself serves only what bun cannot: the listener, batches and pipelines.
package db

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/agenttrust/service/auth"
	"github.com/agenttrust/service/keyring"
)

// DB is the process's connection pool to the service's database.
type DB struct {
	pool       *pgxpool.Pool
	bun        *bun.DB
	statements atomic.Int64
	migrated   atomic.Bool
	keys       *keyring.Ring
	listener   eventListener
	keyCache   keyCache
	// revocations are told of every revoked key (OnKeyRevoked).
	revocations revocations
	// maxKeysPerOrg bounds an organization's unrevoked API keys (IssueKey).
	maxKeysPerOrg int
	// stop ends the listener; done is closed when it has.
	stop      context.CancelFunc
	done      chan struct{}
	closeOnce sync.Once
	closeErr  error
	// Now is the clock; tests may replace it before use.
	Now func() time.Time
	// maxPending is APPROVAL_MAX_PENDING (SetMaxPendingApprovals); 0 is
	// policy.DefaultMaxPending.
	maxPending atomic.Int64
	// bulkhead bounds the connections one organization's requests hold.
	bulkhead bulkhead
}

// DefaultMaxConns is the pool's size when Open is given no other: three
// serving replicas at it, with their ExtraConns, a fourth starting during a
// rolling deploy and an operator's session or command fit within Postgres'
// default max_connections (100) less its superuser_reserved_connections (3)
// (docs/scaling.md, Connections).
const DefaultMaxConns = 20

// ExtraConns are the connections a serving process holds beside its pool:
// its listener (listen.go) and River's notifier, which River takes from the
// pool and keeps outside its count. A process never holds more than its
// pool's size plus ExtraConns.
const ExtraConns = 2

// MaxConnsLimit is the largest pool Open accepts: more connections than this
// cost Postgres more than they serve.
const MaxConnsLimit = 1000

// Option configures Open.
type Option func(*options)

// options are what Open's Options set.
type options struct {
	pool          *pgxpool.Config
	maxKeysPerOrg int
}

// WithMaxConns sets the pool's size: every user of the database (bun, River,
// the pgx batches) shares these connections. n must be 1 to MaxConnsLimit.
func WithMaxConns(n int) Option {
	return func(o *options) { o.pool.MaxConns = int32(n) }
}

// WithMaxKeysPerOrg sets how many unrevoked API keys an organization may
// hold (IssueKey); n must be at least 1. The default is
// auth.DefaultMaxKeysPerOrg.
func WithMaxKeysPerOrg(n int) Option {
	return func(o *options) { o.maxKeysPerOrg = n }
}

// Open connects to the Postgres at url, checks it answers, and starts the
// process's listener (ListenEvents, key revocations).
func Open(ctx context.Context, url string, opts ...Option) (*DB, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("parse database url: %w", err)
	}
	cfg.MaxConns = DefaultMaxConns
	o := options{pool: cfg, maxKeysPerOrg: auth.DefaultMaxKeysPerOrg}
	for _, opt := range opts {
		opt(&o)
	}
	if cfg.MaxConns < 1 || cfg.MaxConns > MaxConnsLimit {
		return nil, fmt.Errorf("database pool size %d: must be 1 to %d", cfg.MaxConns, MaxConnsLimit)
	}
	if o.maxKeysPerOrg < 1 {
		return nil, fmt.Errorf("API keys per organization %d: must be at least 1", o.maxKeysPerOrg)
	}
	cfg.MaxConnIdleTime = 5 * time.Minute
	cfg.ConnConfig.ConnectTimeout = 5 * time.Second
	cfg.ConnConfig.RuntimeParams["statement_timeout"] = strconv.FormatInt(StatementTimeout.Milliseconds(), 10)
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("open database pool: %w", err)
	}
	d := &DB{pool: pool, Now: func() time.Time { return time.Now().UTC() }, keys: randomRing(), maxKeysPerOrg: o.maxKeysPerOrg}
	sqldb := sql.OpenDB(simpleConnector{Connector: stdlib.GetPoolConnector(pool), enter: d.enter})
	// Idle connections belong to the pgx pool, not to database/sql: held
	// here, they would starve River's workers and the pgx batches.
	sqldb.SetMaxIdleConns(0)
	d.bun = bun.NewDB(sqldb, pgdialect.New())
	d.bun.AddQueryHook(counter{d})
	pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := pool.Ping(pctx); err != nil {
		d.bun.Close()
		pool.Close()
		return nil, fmt.Errorf("connect to postgres: %w", err)
	}
	d.startListener(pctx)
	return d, nil
}

// StatementTimeout is Postgres' statement_timeout on every connection of the
// pool: no single statement (a count, an export batch, a lock wait) runs
// longer, whatever a request asks. A migration that needs longer sets its
// own with SET LOCAL.
const StatementTimeout = 15 * time.Second

// Pool is the process's pgx pool, for River and anything else that needs
// pgx itself; it is closed by Close.
func (d *DB) Pool() *pgxpool.Pool { return d.pool }

// Setting reads a Postgres run-time setting of a pooled connection (SHOW name).
func (d *DB) Setting(ctx context.Context, name string) (string, error) {
	var v string
	if err := d.bun.QueryRowContext(ctx, "SELECT current_setting(?)", name).Scan(&v); err != nil {
		return "", fmt.Errorf("read setting %s: %w", name, err)
	}
	return v, nil
}

// Close stops the listener and closes the pool; closing again does nothing.
func (d *DB) Close() error {
	d.closeOnce.Do(func() {
		d.stop()
		<-d.done
		d.closeErr = d.bun.Close()
		d.pool.Close()
	})
	return d.closeErr
}

// Stats reports the pool's figures for metrics.
func (d *DB) Stats() sql.DBStats {
	r := d.pool.Stat()
	return sql.DBStats{MaxOpenConnections: int(r.MaxConns()), OpenConnections: int(r.TotalConns()),
		InUse: int(r.AcquiredConns()), Idle: int(r.IdleConns()), WaitCount: r.EmptyAcquireCount(),
		WaitDuration: r.EmptyAcquireWaitTime()}
}

// Statements counts SQL statements run since Open; tests use it to prove
// that a request runs a constant number of them.
func (d *DB) Statements() int64 { return d.statements.Load() }

// Ping checks the database answers within ctx.
func (d *DB) Ping(ctx context.Context) error { return d.pool.Ping(ctx) }

// counter is a bun query hook that counts statements.
type counter struct{ d *DB }

func (c counter) BeforeQuery(ctx context.Context, _ *bun.QueryEvent) context.Context { return ctx }
func (c counter) AfterQuery(_ context.Context, _ *bun.QueryEvent)                    { c.d.statements.Add(1) }
