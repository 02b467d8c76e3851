package db

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverdatabasesql"
	"github.com/riverqueue/river/rivermigrate"
)

// migrateRiver applies River's own schema (its job queue tables), so the
// migrate step and test templates hold everything the service needs.
func migrateRiver(ctx context.Context, d *DB) ([]string, error) {
	m, err := rivermigrate.New(riverdatabasesql.New(d.bun.DB), nil)
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
// job commits with the change that calls for it: River's database/sql
// driver, on the *sql.Tx under the transaction's bun.Tx. It never works
// jobs: the delivery workers do, on the same pool.
type jobInserter struct{ client *river.Client[*sql.Tx] }

func newJobInserter(d *DB) (*jobInserter, error) {
	// FetchCooldown here limits how often inserts notify the workers' queue:
	// every dispatch should wake them, since delivery latency hangs on it.
	c, err := river.NewClient(riverdatabasesql.New(d.bun.DB), &river.Config{FetchCooldown: time.Millisecond})
	if err != nil {
		return nil, fmt.Errorf("river insert client: %w", err)
	}
	return &jobInserter{client: c}, nil
}

func (j *jobInserter) insert(ctx context.Context, tx *txn, jobs []river.InsertManyParams) error {
	if len(jobs) == 0 {
		return nil
	}
	if _, err := j.client.InsertManyTx(ctx, tx.Tx.Tx, jobs); err != nil {
		return fmt.Errorf("queue %d delivery jobs: %w", len(jobs), err)
	}
	return nil
}
