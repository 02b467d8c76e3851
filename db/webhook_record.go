package db

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/agenttrust/service/event"
	"github.com/agenttrust/service/id"
	"github.com/agenttrust/service/webhook"
)

// RecordAttempts stores a job's attempts at one endpoint and their effect on
// it: a success resets consecutive_failures, a failure counts (in the order
// the attempts ended, webhook.TallyAttempts), and a 410 or reaching
// WEBHOOK_DISABLE_AFTER disables the endpoint and appends webhook.disabled.
// It runs on pool, the delivery runner's own pgx pool; each attempt is
// numbered one past the records of its event at the endpoint that its
// statement sees (counted only when the endpoint has records in the range
// of the batch's events, which a job's first run usually finds it has
// not). It reports whether the endpoint is (now) inactive or gone, so the
// caller stops. A batch that changes no count takes only a key-share lock
// on the endpoint's row, which no other delivery waits for and which keeps
// a concurrent deletion from missing its records.
//
// A batch whose attempts all succeeded (the usual case) can only reset the
// count and never disables: it is recorded by one statement. It runs while
// the job holds the process's turn at the database, so its time bounds how
// fast the process delivers. Any other batch takes a transaction of two
// statements, and two more when it disables the endpoint.
func (s *WebhookService) RecordAttempts(ctx context.Context, pool *pgxpool.Pool, whID string, jobID int64, sent []webhook.Sent) (inactive bool, err error) {
	if len(sent) == 0 {
		return false, nil
	}
	now := s.db.Now()
	attempts := make([]webhook.Attempt, len(sent))
	var lastStatus *int
	for i, a := range sent {
		if !a.Success() {
			lastStatus = nil
			if a.StatusCode != 0 {
				lastStatus = &sent[i].StatusCode
			}
		}
		attempts[i] = a.Attempt
	}
	tally := webhook.TallyAttempts(attempts)
	args := attemptArgs(whID, jobID, now, sent)
	if tally.Reset && tally.Failures == 0 {
		s.db.statements.Add(1)
		var active bool
		err := pool.QueryRow(ctx, recordSuccesses, args...).Scan(&active)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			return true, nil // deleted meanwhile
		case err != nil:
			return false, fmt.Errorf("record attempts: %w", err)
		}
		return !active, nil
	}
	err = pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		// The endpoint first: its new count, or a key-share lock when the
		// count does not change; no row means it was deleted.
		var w webhookRow
		s.db.statements.Add(1)
		err := tx.QueryRow(ctx, `WITH u AS (
				UPDATE webhooks SET consecutive_failures = CASE WHEN $2 THEN $3 ELSE consecutive_failures + $3 END
				WHERE id = $1 AND consecutive_failures <> CASE WHEN $2 THEN $3 ELSE consecutive_failures + $3 END
				RETURNING id, org_id, url, active, consecutive_failures)
			SELECT * FROM u
			UNION ALL SELECT * FROM (SELECT id, org_id, url, active, consecutive_failures FROM webhooks WHERE id = $1 FOR KEY SHARE) k
			WHERE NOT EXISTS (SELECT 1 FROM u)`, whID, tally.Reset, tally.Failures).
			Scan(&w.ID, &w.OrgID, &w.URL, &w.Active, &w.ConsecutiveFailures)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			inactive = true // deleted meanwhile
			return nil
		case err != nil:
			return fmt.Errorf("count failures: %w", err)
		}
		s.db.statements.Add(1)
		if _, err := tx.Exec(ctx, insertAttempts, args...); err != nil {
			return fmt.Errorf("record attempts: %w", err)
		}
		if !w.Active {
			inactive = true
			return nil
		}
		reason := webhook.DisableReason(tally, w.ConsecutiveFailures, s.cfg.DisableAfter)
		if reason == "" {
			return nil
		}
		inactive = true
		s.db.statements.Add(1)
		if _, err := tx.Exec(ctx, `UPDATE webhooks SET active = false, disabled_at = $1, updated_at = $1 WHERE id = $2`, now, whID); err != nil {
			return fmt.Errorf("disable webhook: %w", err)
		}
		data := webhook.Disabled{WebhookID: w.ID, URL: w.URL, Reason: reason, ConsecutiveFailures: w.ConsecutiveFailures, LastStatusCode: lastStatus}
		_, err = s.db.appendEventTx(ctx, tx, event.WebhookDisabled, now, data, w.OrgID)
		return err
	})
	return inactive, err
}

// attemptArgs are insertAttempts' arguments for a job's attempts: each
// record is dated when its attempt ended (now less the time since), so
// records list in the order attempts ended; an attempt without an HTTP
// answer has no status code and no response.
func attemptArgs(whID string, jobID int64, now time.Time, sent []webhook.Sent) []any {
	n := len(sent)
	var (
		ids, events, types = make([]string, n), make([]string, n), make([]string, n)
		seqs               = make([]int64, n)
		success            = make([]bool, n)
		codes              = make([]*int32, n)
		latencies          = make([]int32, n)
		errs, bodies       = make([]*string, n), make([]*string, n)
		at                 = make([]time.Time, n)
	)
	for i, a := range sent {
		ids[i], events[i], seqs[i], types[i], success[i] = id.New(id.Delivery), a.Message.ID, a.Message.Seq, a.Message.Type, a.Success()
		latencies[i] = int32(min(a.Latency.Milliseconds(), math.MaxInt32))
		if a.StatusCode != 0 {
			code := int32(a.StatusCode)
			codes[i], bodies[i] = &code, &sent[i].Body
		}
		if a.Err != "" {
			errs[i] = &sent[i].Err
		}
		at[i] = now.Add(-time.Since(a.Done))
	}
	return []any{whID, jobID, ids, events, types, success, codes, latencies, errs, bodies, at, seqs, slices.Min(seqs), slices.Max(seqs)}
}

// priorAttempts counts the records of event r.event_seq at endpoint $1 by
// one probe of webhook_deliveries_event_seq. Written as event_id = ANY(...)
// beside webhook_id = $1 for the whole batch, Postgres planned a scan of all
// the endpoint's records, filtered by event, on a table without statistics:
// each record cost time in proportion to the records before it (7 ms for 100
// events against 5,000 records; 0.7 ms this way).
const priorAttempts = `(SELECT count(*) FROM webhook_deliveries d WHERE d.webhook_id = $1 AND d.event_seq = r.event_seq)`

// anyRecorded looks whether endpoint $1 has a record of an event numbered
// $13 to $14 (the batch's lowest and highest): one probe of
// webhook_deliveries_event_seq, run once per statement.
const anyRecorded = `(SELECT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.webhook_id = $1 AND d.event_seq BETWEEN $13 AND $14))`

// insertAttempts inserts attemptArgs' records, each numbered one past the
// records of its event at the endpoint: 1 without counting them when the
// endpoint has no record in the range of the batch's events (a job's first
// run, unless a redelivery or a re-activation's catch-up reached one of its
// events first), which spares a probe per record, a tenth of its cost.
const insertAttempts = `INSERT INTO webhook_deliveries (id, webhook_id, event_id, event_seq, event_type, attempt, success,
		status_code, latency_ms, error, response_body, created_at, job_id)
	SELECT r.id, $1, r.event_id, r.event_seq, r.event_type,
		CASE WHEN ` + anyRecorded + ` THEN ` + priorAttempts + ` + 1 ELSE 1 END, r.success,
		r.status_code, r.latency_ms, r.error, r.response_body, r.created_at, $2
	FROM unnest($3::text[], $4::text[], $5::text[], $6::bool[], $7::int[], $8::int[], $9::text[], $10::text[], $11::timestamptz[], $12::bigint[])
		AS r(id, event_id, event_type, success, status_code, latency_ms, error, response_body, created_at, event_seq)`

// recordSuccesses resets the endpoint's count of failures (or, when it is
// already 0, takes the key-share lock that keeps a concurrent deletion from
// missing the records) and inserts the records (insertAttempts); nothing
// when the endpoint was deleted.
const recordSuccesses = `WITH u AS (
		UPDATE webhooks SET consecutive_failures = 0 WHERE id = $1 AND consecutive_failures <> 0 RETURNING active),
	w AS (
		SELECT active FROM u
		UNION ALL SELECT active FROM (SELECT active FROM webhooks WHERE id = $1 FOR KEY SHARE) k WHERE NOT EXISTS (SELECT 1 FROM u)),
	ins AS (` + insertAttempts + `
		WHERE EXISTS (SELECT 1 FROM w))
	SELECT active FROM w`
