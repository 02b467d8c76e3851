package db

import (
	"context"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
)

// RecordPlan seeds endpoint whID (of organization orgID) with records of
// records events, a hundred to a batch, all made by run 1 of job 2, then
// runs the insert that records a batch (insertAttempts) of 100 attempts of
// run 1 of job jobID at events from..from+99 on its
// generic plan, as a prepared statement ends up, and returns the plan with
// the rows each node handled (EXPLAIN ANALYZE).
func (d *DB) RecordPlan(ctx context.Context, orgID, whID string, records, from int, jobID int64) (string, error) {
	arr := func(f func(i int) string) string {
		xs := make([]string, 100)
		for i := range xs {
			xs[i] = f(from + i)
		}
		return `'{` + strings.Join(xs, ",") + `}'`
	}
	n := strconv.Itoa
	args := strings.Join([]string{
		`'` + whID + `'`, strconv.FormatInt(jobID, 10),
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
		n(from), n(from + 99), `'2026-11-23T10:00:00Z'`, `'2026-11-23T10:00:00Z'`, `1`,
	}, ", ")
	conn, err := d.pool.Acquire(ctx)
	if err != nil {
		return "", err
	}
	defer conn.Release()
	var plan []string
	err = pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		for _, q := range []string{
			`INSERT INTO webhooks (id, org_id, url, events, secret_sealed, created_at, updated_at)
				VALUES ('` + whID + `', '` + orgID + `', 'https://example.com/', '{*}', 'x', now(), now())`,
			`INSERT INTO webhook_attempt_batches (webhook_id, last_at, id, first_at, n, lo_seq, hi_seq, job_id, run, ids, event_ids,
					event_seqs, event_types, attempts, success, status_codes, latencies_ms, errors, bodies, created_ats)
				SELECT '` + whID + `', now(), 'dlv_' || b, now(), 100, b * 100 + 1, b * 100 + 100, 2, 1,
					array_agg('dlv_' || g), array_agg('evt_' || g), array_agg(g), array_agg('agent.registered'::text),
					array_agg(1), array_agg(true), array_agg(204), array_agg(1), array_agg(NULL::text), array_agg(''::text), array_agg(now())
				FROM (SELECT g, (g - 1) / 100 AS b FROM generate_series(1, ` + n(records) + `) g) s GROUP BY b`,
			`SET LOCAL plan_cache_mode = force_generic_plan`,
			`PREPARE records_plan AS ` + insertAttempts,
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
// dispatcher's read of the log from its start, as readEventHeads does (a
// batch of batch, under its planner settings), and returns its plan with the
// rows each node handled (EXPLAIN ANALYZE).
func (d *DB) DispatchReadPlan(ctx context.Context, events, batch int) (string, error) {
	if err := d.logBurst(ctx, "burst", events); err != nil {
		return "", err
	}
	var plan []string
	err := pgx.BeginFunc(ctx, d.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, indexOrderOnly); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, `EXPLAIN ANALYZE `+eventHeadsQuery, "0", 0, batch)
		if err != nil {
			return err
		}
		plan, err = pgx.CollectRows(rows, pgx.RowTo[string])
		return err
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
