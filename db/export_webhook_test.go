package db

import (
	"context"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/uptrace/bun"
)

// CountAttemptsPlan seeds endpoint whID (of organization orgID) with records
// of records events, then runs the count of earlier attempts that numbers
// each record (priorAttempts) for the first 100 of them on its generic plan,
// as a prepared statement ends up, and returns the plan with the rows each
// node handled (EXPLAIN ANALYZE).
func (d *DB) CountAttemptsPlan(ctx context.Context, orgID, whID string, records int) (string, error) {
	ids := make([]string, 100)
	for i := range ids {
		ids[i] = strconv.Itoa(i + 1)
	}
	return d.recordsPlan(ctx, orgID, whID, records,
		`SELECT r.event_seq, `+priorAttempts+` FROM unnest($2::bigint[]) AS r(event_seq)`,
		`'`+whID+`', '{`+strings.Join(ids, ",")+`}'`)
}

// RecordPlan seeds endpoint whID as CountAttemptsPlan does, then runs the
// insert that records a batch (insertAttempts) for 100 attempts at events
// from..from+99 and returns its plan.
func (d *DB) RecordPlan(ctx context.Context, orgID, whID string, records, from int) (string, error) {
	arr := func(f func(i int) string) string {
		xs := make([]string, 100)
		for i := range xs {
			xs[i] = f(from + i)
		}
		return `'{` + strings.Join(xs, ",") + `}'`
	}
	n := strconv.Itoa
	return d.recordsPlan(ctx, orgID, whID, records, insertAttempts, strings.Join([]string{
		`'` + whID + `'`, `1`,
		arr(func(i int) string { return "dlv_new_" + n(i) }),
		arr(func(i int) string { return "evt_" + n(i) }),
		arr(func(int) string { return "agent.registered" }),
		arr(func(int) string { return "true" }),
		arr(func(int) string { return "204" }),
		arr(func(int) string { return "3" }),
		arr(func(int) string { return "NULL" }),
		arr(func(int) string { return "ok" }),
		arr(func(int) string { return "2026-11-23T10:00:00Z" }),
		arr(n),
		n(from), n(from + 99),
	}, ", "))
}

// recordsPlan seeds endpoint whID with records of records events and
// returns the plan of query, prepared and run with args on its generic plan.
func (d *DB) recordsPlan(ctx context.Context, orgID, whID string, records int, query, args string) (string, error) {
	conn, err := d.reads.Acquire(ctx)
	if err != nil {
		return "", err
	}
	defer conn.Release()
	var plan []string
	err = pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		for _, q := range []string{
			`INSERT INTO webhooks (id, org_id, url, events, secret_sealed, created_at, updated_at)
				VALUES ('` + whID + `', '` + orgID + `', 'https://example.com/', '{*}', 'x', now(), now())`,
			`INSERT INTO webhook_deliveries (id, webhook_id, event_id, event_seq, event_type, attempt, success, latency_ms, created_at, job_id)
				SELECT 'dlv_' || g, '` + whID + `', 'evt_' || g, g, 'agent.registered', 1, true, 1, now(), 1 FROM generate_series(1, ` + strconv.Itoa(records) + `) g`,
			`SET LOCAL plan_cache_mode = force_generic_plan`,
			`PREPARE records_plan AS ` + query,
		} {
			if _, err := tx.Exec(ctx, q); err != nil {
				return err
			}
		}
		rows, err := tx.Query(ctx, `EXPLAIN ANALYZE EXECUTE records_plan(`+args+`)`, pgx.QueryExecModeSimpleProtocol)
		if err != nil {
			return err
		}
		plan, err = pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `DEALLOCATE records_plan`)
		return err
	})
	return strings.Join(plan, "\n"), err
}

// PendingEventsPlan logs events events in one statement (so the table's
// statistics are older than them, as after a burst), then runs the
// dispatcher's look for events after the last of them and returns its plan
// with the rows each node handled (EXPLAIN ANALYZE).
func (d *DB) PendingEventsPlan(ctx context.Context, events int) (string, error) {
	if err := d.logBurst(ctx, "pending", events); err != nil {
		return "", err
	}
	var xid string
	var seq int64
	if err := d.bun.QueryRowContext(ctx, `SELECT xid::text, seq FROM events ORDER BY xid DESC, seq DESC LIMIT 1`).Scan(&xid, &seq); err != nil {
		return "", err
	}
	var plan []string
	if err := d.bun.NewRaw(`EXPLAIN ANALYZE `+pendingEvents, xid, seq).Scan(ctx, &plan); err != nil {
		return "", err
	}
	return strings.Join(plan, "\n"), nil
}

// DispatchReadPlan logs events events in one statement (so the table's
// statistics are older than them, as after a burst), then runs the
// dispatcher's read of the log from its start, as DispatchWebhooks does (a
// batch of batch, under its planner settings), and returns its plan with the
// rows each node handled (EXPLAIN ANALYZE).
func (d *DB) DispatchReadPlan(ctx context.Context, events, batch int) (string, error) {
	if err := d.logBurst(ctx, "burst", events); err != nil {
		return "", err
	}
	var plan []string
	err := d.inTx(ctx, func(tx bun.Tx) error {
		if _, err := tx.ExecContext(ctx, indexOrderOnly); err != nil {
			return err
		}
		return tx.NewRaw(`EXPLAIN ANALYZE `+logQuery(eventHeadColumns), "0", 0, batch).Scan(ctx, &plan)
	})
	return strings.Join(plan, "\n"), err
}

// logBurst logs n events in one statement, so that the table's statistics
// are older than them, as after a burst; name tells their ids apart.
func (d *DB) logBurst(ctx context.Context, name string, n int) error {
	_, err := d.bun.ExecContext(ctx, `INSERT INTO events (id, type, org_ids, data)
		SELECT 'evt_' || ? || g, 'agent.registered', ARRAY['org_' || ?], '{}' FROM generate_series(1, ?) g`, name, name, n)
	return err
}
