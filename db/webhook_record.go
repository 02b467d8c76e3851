package db

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/agenttrust/service/event"
	"github.com/agenttrust/service/id"
	"github.com/agenttrust/service/webhook"
)

// RecordAttempts stores a job's attempts at one endpoint and their effect on
// it: a success resets consecutive_failures, a failure counts (in the order
// the attempts ended, webhook.TallyAttempts), and a 410 or reaching
// WEBHOOK_DISABLE_AFTER disables the endpoint and appends webhook.disabled.
// It runs on the pgx pool. The attempts are
// stored as one batch, a row of webhook_attempt_batches (several when they
// span more than BatchSpan); each is numbered one past the records of its
// event at the endpoint that its statement sees (counted only when a batch
// of the endpoint overlaps the range of this one's events, which a job's
// first run usually finds none does). It reports whether the endpoint is
// (now) inactive or gone, so the caller stops. A batch that changes no
// count takes only a key-share lock on the endpoint's row, which no other
// delivery waits for and which keeps a concurrent deletion from missing its
// records.
//
// A batch whose attempts all succeeded (the usual case) can only reset the
// count and never disables: it is recorded by one statement. Any other
// batch takes a transaction of two statements, and two more when it
// disables the endpoint.
func (s *WebhookService) RecordAttempts(ctx context.Context, whID string, job webhook.JobRun, sent []webhook.Sent) (inactive bool, err error) {
	for _, batch := range spans(sent) {
		gone, err := s.recordBatch(ctx, whID, job, batch)
		if err != nil {
			return inactive, err
		}
		inactive = inactive || gone
	}
	return inactive, nil
}

// recordBatch records one batch of RecordAttempts.
func (s *WebhookService) recordBatch(ctx context.Context, whID string, job webhook.JobRun, sent []webhook.Sent) (inactive bool, err error) {
	if len(sent) == 0 {
		return false, nil
	}
	now := s.db.Now()
	tally, lastStatus := tallySent(sent)
	args := attemptArgs(whID, job, now, sent)
	if tally.Reset && tally.Failures == 0 {
		return s.recordSuccesses(ctx, args)
	}
	err = pgx.BeginFunc(ctx, s.db.pool, func(tx pgx.Tx) error {
		w, err := s.countFailures(ctx, tx, whID, tally)
		if err != nil {
			return err
		}
		if w == nil {
			inactive = true // deleted meanwhile
			return nil
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
		return s.disable(ctx, tx, w, webhook.Disabled{WebhookID: w.ID, URL: w.URL, Reason: reason,
			ConsecutiveFailures: w.ConsecutiveFailures, LastStatusCode: lastStatus}, now)
	})
	return inactive, err
}

// tallySent tallies a batch's attempts in the order they ended, and returns
// the status code of its last failure (nil when that failure had none).
func tallySent(sent []webhook.Sent) (webhook.Tally, *int) {
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
	return webhook.TallyAttempts(attempts), lastStatus
}

// recordSuccesses records a batch of successes by one statement
// (recordSuccesses), and reports whether the endpoint is inactive or gone.
func (s *WebhookService) recordSuccesses(ctx context.Context, args []any) (inactive bool, err error) {
	s.db.statements.Add(1)
	var active bool
	err = s.db.pool.QueryRow(ctx, recordSuccesses, args...).Scan(&active)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return true, nil // deleted meanwhile
	case err != nil:
		return false, fmt.Errorf("record attempts: %w", err)
	}
	return !active, nil
}

// countFailures sets the endpoint's count of consecutive failures after
// tally, or takes a key-share lock on its row when the count does not
// change; nil means the endpoint was deleted.
func (s *WebhookService) countFailures(ctx context.Context, tx pgx.Tx, whID string, tally webhook.Tally) (*webhookRow, error) {
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
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("count failures: %w", err)
	}
	return &w, nil
}

// disable disables the endpoint w and appends webhook.disabled, in tx.
func (s *WebhookService) disable(ctx context.Context, tx pgx.Tx, w *webhookRow, data webhook.Disabled, now time.Time) error {
	s.db.statements.Add(1)
	if _, err := tx.Exec(ctx, `UPDATE webhooks SET active = false, disabled_at = $1, updated_at = $1 WHERE id = $2`, now, w.ID); err != nil {
		return fmt.Errorf("disable webhook: %w", err)
	}
	_, err := s.db.appendEventTx(ctx, tx, event.WebhookDisabled, now, data, w.OrgID)
	return err
}

// attemptArgs are insertAttempts' arguments for a job's attempts: each
// record is dated when its attempt ended (now less the time since), so
// records list in the order attempts ended; an attempt without an HTTP
// answer has no status code and no response. The attempts' ids are one new
// id with their places in the batch appended (attemptID), so that the
// batch, whose id is its first attempt's, is found from any of them.
func attemptArgs(whID string, job webhook.JobRun, now time.Time, sent []webhook.Sent) []any {
	base := id.New(id.Delivery)
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
		ids[i], events[i], seqs[i], types[i], success[i] = attemptID(base, i), a.Message.ID, a.Message.Seq, a.Message.Type, a.Success()
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
	first, last := slices.MinFunc(at, time.Time.Compare), slices.MaxFunc(at, time.Time.Compare)
	return []any{whID, job.ID, ids, events, types, success, codes, latencies, errs, bodies, at, seqs,
		slices.Min(seqs), slices.Max(seqs), first, last, job.Attempt}
}

// BatchSpan bounds the time between a batch's oldest and newest attempt:
// RecordAttempts splits a longer run of attempts into several batches, so
// that a page of an endpoint's attempts after a cursor knows where its walk
// of the batches can start (a job's run lasts at most its JobTimeout, a
// minute by default, so a split is rare).
const BatchSpan = 10 * time.Minute

// spans splits attempts, in the order they ended, into runs whose ends lie
// at most BatchSpan apart.
func spans(sent []webhook.Sent) [][]webhook.Sent {
	var runs [][]webhook.Sent
	start, lo, hi := 0, time.Time{}, time.Time{}
	for i, a := range sent {
		if i > start && (a.Done.Sub(lo) > BatchSpan || hi.Sub(a.Done) > BatchSpan) {
			runs = append(runs, sent[start:i])
			start = i
		}
		if i == start || a.Done.Before(lo) {
			lo = a.Done
		}
		if i == start || a.Done.After(hi) {
			hi = a.Done
		}
	}
	return append(runs, sent[start:])
}

// mayHold are the endpoint's ($1) batches that may hold an attempt at one of
// this batch's events: those whose range of events overlaps the range
// $13..$14 of this batch's (its lowest and highest), but for the batches of
// the same run of the same job ($2, $17), whose events are others (a run
// sends each of its events once; its batches' ranges overlap, since
// attempts end out of order). Found by a walk of the
// webhook_attempt_batches_events index from $13, which holds every column
// the condition reads.
const mayHold = `b.webhook_id = $1 AND b.hi_seq >= $13 AND b.lo_seq <= $14 AND (b.job_id, b.run) IS DISTINCT FROM ($2::bigint, $17::int)`

// anyRecorded looks, once per statement, whether any batch mayHold.
const anyRecorded = `EXISTS (SELECT 1 FROM webhook_attempt_batches b WHERE ` + mayHold + `)`

// numbered numbers each attempt of the batch one past the endpoint's
// records of its event: the earlier attempts at the batch's events are
// counted together, in the batches that mayHold them.
const numbered = `(SELECT array_agg((coalesce(p.n, 0) + 1)::int ORDER BY r.i)
		FROM unnest($12::bigint[]) WITH ORDINALITY AS r(seq, i)
		LEFT JOIN (SELECT s.seq, count(*) AS n FROM webhook_attempt_batches b, unnest(b.event_seqs) AS s(seq)
			WHERE ` + mayHold + ` AND s.seq BETWEEN $13 AND $14
			GROUP BY s.seq) p ON p.seq = r.seq)`

// insertAttempts inserts attemptArgs' records as one batch, each numbered
// one past the records of its event at the endpoint: 1 without counting
// when no batch of the endpoint overlaps the range of this one's events (a
// job's first run, unless a redelivery or a re-activation's catch-up reached
// one of its events first).
const insertAttempts = `INSERT INTO webhook_attempt_batches (webhook_id, last_at, id, first_at, n, lo_seq, hi_seq, job_id, run,
		ids, event_ids, event_seqs, event_types, attempts, success, status_codes, latencies_ms, errors, bodies, created_ats)
	SELECT $1, $16::timestamptz, ($3::text[])[1], $15::timestamptz, cardinality($3::text[]), $13::bigint, $14::bigint, $2, $17,
		$3::text[], $4::text[], $12::bigint[], $5::text[],
		CASE WHEN ` + anyRecorded + ` THEN ` + numbered + ` ELSE array_fill(1, ARRAY[cardinality($3::text[])]) END,
		$6::bool[], $7::int[], $8::int[], $9::text[], $10::text[], $11::timestamptz[]`

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
