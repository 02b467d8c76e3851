package db

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Connections of the read pool (pgx) and of the main pool (bun): 32 in all.
const (
	readConns = 8
	mainConns = 32 - readConns
)

// openReads opens the pgx pool the hottest reads use (the API key lookup on
// every request, the agents page). pgx reads rows in Postgres' binary format
// straight into Go values and prepares each statement once per connection:
// for these reads bun's driver, with its text parsing and reflective scanning,
// cost several times the CPU of the query itself. Writes, transactions and
// everything else stay on bun. The pool connects lazily.
func openReads(url string) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("parse database url: %w", err)
	}
	cfg.MaxConns = readConns + 10 // and River's (Pool), which had ten of its own
	cfg.MaxConnIdleTime = 5 * time.Minute
	cfg.ConnConfig.ConnectTimeout = 5 * time.Second
	cfg.ConnConfig.RuntimeParams["statement_timeout"] = strconv.FormatInt(StatementTimeout.Milliseconds(), 10)
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		return nil, fmt.Errorf("open read pool: %w", err)
	}
	return pool, nil
}

// query runs one read on the pgx pool, counted like bun's statements.
func (d *DB) query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	d.statements.Add(1)
	return d.reads.Query(ctx, sql, args...)
}

// queryRow is query for one row.
func (d *DB) queryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	d.statements.Add(1)
	return d.reads.QueryRow(ctx, sql, args...)
}
