package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/riverqueue/river"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/agenttrust/service/auth"
	"github.com/agenttrust/service/event"
	"github.com/agenttrust/service/paging"
	"github.com/agenttrust/service/webhook"
)

// Deliveries lists an endpoint's attempts, newest first, w.Limit (1..200)
// at a time after the cursor of the previous page, or backwards before a
// cursor: the endpoint's page of DeliveryPages, once the endpoint is found
// to be the caller's (NotFound otherwise).
func (s *WebhookService) Deliveries(ctx context.Context, p auth.Principal, whID string, w paging.Window) (*webhook.DeliveryPage, error) {
	if err := checkLimit(w.Limit); err != nil {
		return nil, err
	}
	if _, err := s.find(ctx, s.db.bun, p.OrgID, whID, false); err != nil {
		return nil, err
	}
	pages, err := s.DeliveryPages(ctx, p, []string{whID}, w)
	if err != nil {
		return nil, err
	}
	return pages[0], nil
}

// DeliveryPages reads the page w of each of the caller's endpoints whIDs
// (in that order; an endpoint not the caller's has an empty page) in one
// statement, whatever their number: a list of endpoints costs what one does.
// Attempts are stored by batch (RecordAttempts): each endpoint's page walks
// its batches' keys only as far as the batches that can hold the page (the
// primary key, first_at and n included, answers the walk alone), then
// unnests only those (pageAttempts, pageAttemptsBefore).
func (s *WebhookService) DeliveryPages(ctx context.Context, p auth.Principal, whIDs []string, w paging.Window) ([]*webhook.DeliveryPage, error) {
	if err := checkLimit(w.Limit); err != nil {
		return nil, err
	}
	// One endpoint's cursor repositions another's page of the same
	// organization harmlessly, so a list of endpoints shares one cursor list.
	cursors := s.db.cursors(p.OrgID, deliveryList)
	var cur *attemptKey
	if c := w.Cursor(); c != "" {
		at, dlvID, err := cursors.parseTime(c)
		if err != nil {
			return nil, cursorErr(err, w)
		}
		cur = &attemptKey{at: at, id: dlvID}
	}
	var all []ownedAttempt
	query, args := pageStatement(whIDs, p.OrgID, w, cur)
	if err := s.db.bun.NewRaw(query, args...).Scan(ctx, &all); err != nil {
		return nil, fmt.Errorf("list webhook deliveries: %w", err)
	}
	return attemptPages(all, whIDs, w, cursors), nil
}

// ownedAttempt is an attempt of DeliveryPages' statements with the id of
// its endpoint: not a table's row but one place of a batch's arrays
// (webhook_attempt_batches, unnested), so it is read as the domain's
// webhook.Delivery itself.
type ownedAttempt struct {
	WebhookID string
	webhook.Delivery
}

// pageStatement is DeliveryPages' statement and its arguments for the
// endpoints whIDs of orgID, the page w after (or before) cur.
func pageStatement(whIDs []string, orgID string, w paging.Window, cur *attemptKey) (string, []any) {
	if w.Backward {
		after, afterID := any(negInfinity), ""
		if cur != nil {
			after, afterID = cur.at, cur.id
		}
		return pageAttemptsBefore, []any{pgdialect.Array(whIDs), orgID, after, afterID, w.Limit + 1, BatchSpan.Seconds()}
	}
	// After a cursor the walk starts BatchSpan past it, where the batches
	// that may hold an attempt before it begin.
	from, before, beforeID := any(infinity), any(infinity), ""
	if cur != nil {
		from, before, beforeID = cur.at.Add(BatchSpan+time.Microsecond), cur.at, cur.id
	}
	return pageAttempts, []any{pgdialect.Array(whIDs), orgID, from, before, beforeID, w.Limit + 1}
}

// attemptPages are the pages of whIDs, in that order, from the attempts
// DeliveryPages read.
func attemptPages(all []ownedAttempt, whIDs []string, w paging.Window, cursors listCursors) []*webhook.DeliveryPage {
	lists := make(map[string][]webhook.Delivery, len(whIDs))
	for _, o := range all {
		o.CreatedAt = o.CreatedAt.UTC()
		lists[o.WebhookID] = append(lists[o.WebhookID], o.Delivery)
	}
	pages := make([]*webhook.DeliveryPage, len(whIDs))
	for i, whID := range whIDs {
		list, more := trimPage(lists[whID], w.Limit)
		if list == nil {
			list = []webhook.Delivery{}
		}
		if w.Backward {
			reverse(list)
		}
		pages[i] = deliveryPage(list, w, more, cursors)
	}
	return pages
}

// deliveryPage is list, newest first, as a page: NextCursor only when a
// forward page has more (the contract's endCursor of this list), a cursor
// for every attempt.
func deliveryPage(list []webhook.Delivery, w paging.Window, more bool, cursors listCursors) *webhook.DeliveryPage {
	cursor := func(i int) string { return cursors.time(list[i].CreatedAt, list[i].ID) }
	page := &webhook.DeliveryPage{Deliveries: list, Cursors: paging.NewRowCursors(len(list), cursor)}
	var hasNext bool
	hasNext, page.HasPreviousPage = w.Flags(more)
	if hasNext && len(list) > 0 {
		page.NextCursor = cursor(len(list) - 1)
	}
	return page
}

// attemptKey is a place in a list ordered by time, then id: an attempt's
// (a page's cursor) or a batch's (its newest attempt's time, its id).
type attemptKey struct {
	at time.Time
	id string
}

// infinity is a cursor past every attempt: the first page's; negInfinity
// is before every attempt: the last page's, read backwards.
var (
	infinity    = pgtype.Timestamptz{InfinityModifier: pgtype.Infinity, Valid: true}
	negInfinity = pgtype.Timestamptz{InfinityModifier: pgtype.NegativeInfinity, Valid: true}
)

// maxBatches stands for no bound on a walk that ran out of batches.
const maxBatches = "2147483647"

// DeliveryPages' statements (bun's ?n arguments), each one page for every endpoint among ?0 of
// organization ?1, as (endpoint, attempt) rows ordered by endpoint, then by
// the page's order.
//
// pageAttempts is the forward page: the ?5 newest attempts before (?3, ?4)
// of each endpoint. Its batches are walked newest first from key ?2 (with no id)
// among those that begin by ?3 (batches overlap in time when jobs run side
// by side); bound is the oldest attempt of the first batches that hold ?5
// attempts wholly before ?3, and no batch whose newest attempt is older can
// hold one of the page. The walk (the primary key, first_at and n included,
// answers it alone) stops at the first such batch, and only the batches
// before it are read and unnested, the same walk again with that many rows.
//
// pageAttemptsBefore is the backward page: the ?4 attempts after (?2, ?3),
// oldest first. Walking the batch keys from ?2 up, bound is the newest
// attempt of the first batches that hold ?4 attempts wholly after ?2; every
// attempt of the page is at most that old, so only batches whose newest
// attempt is within ?5 seconds (BatchSpan) of it are read.
const (
	pageAttempts = `SELECT w.id AS webhook_id, a.id, a.event_id, a.event_type, a.attempt, a.success, a.status_code, a.latency_ms,
			a.error, a.response_body, a.created_at
		FROM webhooks AS w CROSS JOIN LATERAL (
			SELECT coalesce((SELECT rn - 1 FROM (
				SELECT last_at, rn, max(bound) FILTER (WHERE held >= ?5) OVER (ORDER BY last_at DESC, id DESC) AS fixed
				FROM (
					SELECT last_at, id, row_number() OVER o AS rn,
						sum(n) FILTER (WHERE last_at < ?3) OVER o AS held,
						min(first_at) FILTER (WHERE last_at < ?3) OVER o AS bound
					FROM webhook_attempt_batches
					WHERE webhook_id = w.id AND (last_at, id) < (?2, '') AND first_at <= ?3
					WINDOW o AS (ORDER BY last_at DESC, id DESC)
				) AS k
			) AS k WHERE last_at < fixed LIMIT 1), ` + maxBatches + `) AS batches
		) AS walk CROSS JOIN LATERAL (
			SELECT r.* FROM (
				SELECT * FROM webhook_attempt_batches
				WHERE webhook_id = w.id AND (last_at, id) < (?2, '') AND first_at <= ?3
				ORDER BY last_at DESC, id DESC LIMIT walk.batches
			) AS b,
				unnest(b.ids, b.event_ids, b.event_types, b.attempts, b.success, b.status_codes, b.latencies_ms,
					b.errors, b.bodies, b.created_ats)
				AS r(id, event_id, event_type, attempt, success, status_code, latency_ms, error, response_body, created_at)
			WHERE (r.created_at, r.id) < (?3, ?4)
			ORDER BY r.created_at DESC, r.id DESC LIMIT ?5) AS a
		WHERE w.id = ANY(?0) AND w.org_id = ?1
		ORDER BY w.id, a.created_at DESC, a.id DESC`
	pageAttemptsBefore = `SELECT w.id AS webhook_id, a.id, a.event_id, a.event_type, a.attempt, a.success, a.status_code, a.latency_ms,
			a.error, a.response_body, a.created_at
		FROM webhooks AS w CROSS JOIN LATERAL (
			SELECT coalesce((SELECT last_at FROM (
				SELECT last_at, sum(CASE WHEN first_at > ?2 THEN n ELSE 0 END) OVER (ORDER BY last_at, id) AS held
				FROM webhook_attempt_batches WHERE webhook_id = w.id AND last_at >= ?2
			) AS k WHERE held >= ?4 LIMIT 1), 'infinity') + make_interval(secs => ?5) AS bound
		) AS walk CROSS JOIN LATERAL (
			SELECT r.* FROM webhook_attempt_batches AS b,
				unnest(b.ids, b.event_ids, b.event_types, b.attempts, b.success, b.status_codes, b.latencies_ms,
					b.errors, b.bodies, b.created_ats)
				AS r(id, event_id, event_type, attempt, success, status_code, latency_ms, error, response_body, created_at)
			WHERE b.webhook_id = w.id AND b.last_at >= ?2 AND b.last_at <= walk.bound
				AND (r.created_at, r.id) > (?2, ?3)
			ORDER BY r.created_at, r.id LIMIT ?4) AS a
		WHERE w.id = ANY(?0) AND w.org_id = ?1
		ORDER BY w.id, a.created_at, a.id`
)

// DeliveryBatch loads what a delivery job needs, in one round trip: the
// endpoint and, in log order, those of the job's events addressed to its
// organization that job jobID has not yet delivered there (a job worked
// before, retried or snoozed, sends only what is left). The events are
// those numbered seqs (ascending and distinct, as a job's compact form
// decodes). firstRun says the job was never worked before, so no attempt
// of it can be recorded and the statement skips looking for them. It reads
// on the pgx pool: the endpoint by one statement, its events by another,
// sent together (a join would repeat the endpoint's columns, its sealed
// secrets among them, on every event's row). Errors: failure.NotFound when
// the endpoint was deleted.
func (s *WebhookService) DeliveryBatch(ctx context.Context, whID string, seqs []int64, jobID int64, firstRun bool) (*webhook.Batch, error) {
	events, q := any(seqs), [2]string{batchFirstRun, batchRetry}
	if len(seqs) > 0 && seqs[len(seqs)-1]-seqs[0] == int64(len(seqs)-1) {
		q = [2]string{batchFirstRunRange, batchRetryRange}
	}
	// The look for delivered events is a subplan Postgres may run as a scan
	// of every job's records: only a job worked before needs it.
	stmt, args := q[0], []any{events, whID}
	if !firstRun {
		stmt, args = q[1], []any{events, whID, jobID}
	}
	s.db.statements.Add(2)
	var pb pgx.Batch
	pb.Queue(batchEndpoint, whID)
	pb.Queue(stmt, args...)
	res := s.db.pool.SendBatch(ctx, &pb)
	defer res.Close()
	var w webhookRow
	err := res.QueryRow().Scan(&w.ID, &w.OrgID, &w.URL, &w.Active, &w.ConsecutiveFailures, &w.SecretSealed,
		&w.PreviousSecretSealed, &w.PreviousSecretUntil)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return nil, webhookNotFound(whID)
	case err != nil:
		return nil, fmt.Errorf("load delivery batch: %w", err)
	}
	rows, err := res.Query()
	if err != nil {
		return nil, fmt.Errorf("load delivery batch: %w", err)
	}
	defer rows.Close()
	messages := make([]webhook.Outgoing, 0, len(seqs))
	for rows.Next() {
		var (
			m    webhook.Outgoing
			data []byte // not m.Data: pgx would scan a json.RawMessage through json.Unmarshal
			at   time.Time
		)
		if err := rows.Scan(&m.ID, &m.Seq, &m.Type, &data, &at); err != nil {
			return nil, fmt.Errorf("load delivery batch: %w", err)
		}
		m.Data, m.At = data, at.UTC()
		messages = append(messages, m)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("load delivery batch: %w", err)
	}
	secrets, err := s.secrets(&w)
	if err != nil {
		return nil, err
	}
	return &webhook.Batch{WebhookID: w.ID, OrgID: w.OrgID, URL: w.URL, Active: w.Active,
		ConsecutiveFailures: w.ConsecutiveFailures, Secrets: secrets, Messages: messages}, nil
}

// DeliveryBatch's statements: the endpoint; then its events by sequence
// number through the log's primary key (Range: when they are consecutive,
// as a job's are when one organization's events follow each other in the
// log, by one walk of the key from the first to the last instead of one
// lookup each), those addressed
// to the endpoint's organization (read once, as an InitPlan), and for a
// retried job without those it already delivered.
const (
	batchEndpoint = `SELECT id, org_id, url, active, consecutive_failures, secret_sealed,
		previous_secret_sealed, previous_secret_until FROM webhooks WHERE id = $1`
	batchSelect      = `SELECT e.id, e.seq, e.type, e.data, e.created_at FROM events e WHERE `
	batchEvents      = `e.seq = ANY($1::bigint[]) `
	batchEventsRange = `e.seq BETWEEN ($1::bigint[])[1] AND ($1::bigint[])[cardinality($1::bigint[])] `
	batchOrg         = `AND (SELECT w.org_id FROM webhooks w WHERE w.id = $2) = ANY(e.org_ids) `
	batchDelivered   = `AND e.seq NOT IN (SELECT d.seq FROM webhook_attempt_batches b, unnest(b.event_seqs, b.success) AS d(seq, ok)
			WHERE b.job_id = $3 AND b.webhook_id = $2 AND d.ok) `
	batchOrder         = `ORDER BY e.xid, e.seq`
	batchFirstRun      = batchSelect + batchEvents + batchOrg + batchOrder
	batchRetry         = batchSelect + batchEvents + batchOrg + batchDelivered + batchOrder
	batchFirstRunRange = batchSelect + batchEventsRange + batchOrg + batchOrder
	batchRetryRange    = batchSelect + batchEventsRange + batchOrg + batchDelivered + batchOrder
)

// DispatchWebhooks queues delivery jobs for the next batch of logged events
// (one job per endpoint and up to JobEvents of its events)
// and advances the durable dispatch cursor past them, in one transaction:
// a crash before commit leaves the cursor where it was, one after leaves the
// jobs queued. The cursor row's lock (SKIP LOCKED) lets one replica dispatch
// at a time; the others return 0 at once. It returns how many events it
// read, and when none, whether committed events wait for older running
// transactions to end before they can be read.
func (s *WebhookService) DispatchWebhooks(ctx context.Context, batch int) (n int, pending bool, err error) {
	err = s.db.inTx(ctx, func(tx *txn) error {
		var xid string
		var seq int64
		err := tx.QueryRowContext(ctx, `SELECT xid::text, seq FROM webhook_dispatch_cursor WHERE id = 1 FOR UPDATE SKIP LOCKED`).Scan(&xid, &seq)
		if errors.Is(err, sql.ErrNoRows) {
			return nil // another replica is dispatching
		}
		if err != nil {
			return fmt.Errorf("lock dispatch cursor: %w", err)
		}
		pos, err := position(xid, seq)
		if err != nil {
			return fmt.Errorf("dispatch cursor: %w", err)
		}
		// Routing needs each event's id, type, organizations and time, not
		// its data: the delivery job reads that when it sends.
		evs, err := s.db.readEventHeads(ctx, pos, batch)
		if err != nil {
			return err
		}
		if len(evs) == 0 {
			// Committed events that older running transactions still keep
			// unreadable: worth another look soon rather than at the next poll.
			err := tx.QueryRowContext(ctx, pendingEvents, xid, seq).Scan(&pending)
			if err != nil && !errors.Is(err, sql.ErrNoRows) {
				return fmt.Errorf("look for pending events: %w", err)
			}
			return nil
		}
		n = len(evs)
		jobs, err := s.matchEndpoints(ctx, tx, evs)
		if err != nil {
			return err
		}
		if err := s.jobs.insert(ctx, tx, jobs); err != nil {
			return err
		}
		last := evs[len(evs)-1].Position
		_, err = tx.ExecContext(ctx, `UPDATE webhook_dispatch_cursor SET xid = ?::xid8, seq = ? WHERE id = 1`,
			strconv.FormatUint(last.XID, 10), last.Seq)
		if err != nil {
			return fmt.Errorf("advance dispatch cursor: %w", err)
		}
		return nil
	})
	return n, pending, err
}

// pendingEvents finds whether any event lies after the cursor, readable or
// not. Ordered and limited, so that it reads the position index: written as
// EXISTS (which drops ORDER BY and LIMIT), Postgres planned a scan of the
// whole log whenever its statistics were older than the events, as they are
// after a burst, every time the dispatcher caught up.
const pendingEvents = `SELECT true FROM events WHERE (xid, seq) > (?::xid8, ?) ORDER BY xid, seq LIMIT 1`

// matchEndpoints returns, for each active endpoint, jobs of at most
// JobEvents events each, in log order: the events addressed to its
// organization that its filter matches and that committed after its
// registration did (those its registration's snapshot does not see).
func (s *WebhookService) matchEndpoints(ctx context.Context, tx *txn, evs []event.Event) ([]river.InsertManyParams, error) {
	orgSet := map[string]bool{}
	var orgs []string
	for _, e := range evs {
		for _, o := range e.OrgIDs {
			if !orgSet[o] {
				orgSet[o] = true
				orgs = append(orgs, o)
			}
		}
	}
	var rows []webhookRow
	if err := tx.NewSelect().Model(&rows).Column("id", "org_id", "events", "since").
		Where("org_id IN (?)", bun.In(orgs)).Where("active").Scan(ctx); err != nil {
		return nil, fmt.Errorf("find endpoints: %w", err)
	}
	byOrg := map[string][]webhookRow{}
	since := map[string]pgSnapshot{}
	for _, r := range rows {
		byOrg[r.OrgID] = append(byOrg[r.OrgID], r)
		snap, err := parseSnapshot(r.Since)
		if err != nil {
			return nil, fmt.Errorf("endpoint %s: %w", r.ID, err)
		}
		since[r.ID] = snap
	}
	var order []string
	matched := map[string][]int64{}
	orgOf := map[string]string{}
	for _, e := range evs {
		for _, o := range e.OrgIDs {
			for _, r := range byOrg[o] {
				if event.Matches(r.Events, e.Type) && !since[r.ID].sees(e.Position.XID) {
					if matched[r.ID] == nil {
						order = append(order, r.ID)
						orgOf[r.ID] = r.OrgID
					}
					matched[r.ID] = append(matched[r.ID], e.Position.Seq)
				}
			}
		}
	}
	var jobs []river.InsertManyParams
	for _, whID := range order {
		jobs = append(jobs, s.jobsFor(orgOf[whID], whID, matched[whID])...)
	}
	return jobs, nil
}

// PruneDeliveries deletes attempt records older than the retention, a batch
// at a time once its newest attempt is (so a record may outlive the
// retention by the time its batch spans, at most BatchSpan), each
// endpoint's through its primary key (webhook_id, last_at, id). It returns
// how many batches it deleted.
func (s *WebhookService) PruneDeliveries(ctx context.Context) (int64, error) {
	res, err := s.db.bun.NewRaw(`DELETE FROM webhook_attempt_batches b USING webhooks w
		WHERE b.webhook_id = w.id AND b.last_at < ?`, s.db.Now().Add(-s.cfg.Retention)).Exec(ctx)
	if err != nil {
		return 0, fmt.Errorf("prune webhook deliveries: %w", err)
	}
	return res.RowsAffected()
}
