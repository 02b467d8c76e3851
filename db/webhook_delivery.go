package db

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/riverqueue/river"
	"github.com/uptrace/bun"

	"github.com/agenttrust/service/auth"
	"github.com/agenttrust/service/event"
	"github.com/agenttrust/service/id"
	"github.com/agenttrust/service/webhook"
)

type deliveryRow struct {
	bun.BaseModel `bun:"table:webhook_deliveries"`
	ID            string    `bun:"id,pk"`
	WebhookID     string    `bun:"webhook_id"`
	EventID       string    `bun:"event_id"`
	EventType     string    `bun:"event_type"`
	Attempt       int       `bun:"attempt"`
	Success       bool      `bun:"success"`
	StatusCode    *int      `bun:"status_code"`
	LatencyMs     int       `bun:"latency_ms"`
	Error         *string   `bun:"error"`
	ResponseBody  *string   `bun:"response_body"`
	CreatedAt     time.Time `bun:"created_at"`
}

// Deliveries lists an endpoint's attempts, newest first, limit (1..200) at a
// time after the cursor of the previous page.
func (s *WebhookService) Deliveries(ctx context.Context, whID string, limit int, after string) (*webhook.DeliveryPage, error) {
	p, err := auth.FromContext(ctx)
	if err != nil {
		return nil, err
	}
	if err := checkLimit(limit); err != nil {
		return nil, err
	}
	if _, err := s.find(ctx, s.db.bun, p.OrgID, whID, false); err != nil {
		return nil, err
	}
	q := s.db.bun.NewSelect().Model((*deliveryRow)(nil)).Where("webhook_id = ?", whID).
		OrderExpr("created_at DESC, id DESC").Limit(limit + 1)
	if after != "" {
		at, dlvID, err := parseTimeCursor(after)
		if err != nil {
			return nil, err
		}
		q = q.Where("(created_at, id) < (?, ?)", at, dlvID)
	}
	var rows []deliveryRow
	if err := q.Scan(ctx, &rows); err != nil {
		return nil, fmt.Errorf("list webhook deliveries: %w", err)
	}
	rows, more := trimPage(rows, limit)
	page := &webhook.DeliveryPage{Deliveries: make([]webhook.Delivery, len(rows))}
	for i, r := range rows {
		page.Deliveries[i] = webhook.Delivery{ID: r.ID, EventID: r.EventID, EventType: r.EventType, Attempt: r.Attempt,
			Success: r.Success, StatusCode: r.StatusCode, LatencyMs: r.LatencyMs, Error: r.Error,
			ResponseBody: r.ResponseBody, CreatedAt: r.CreatedAt.UTC()}
	}
	if more {
		last := rows[len(rows)-1]
		page.NextCursor = timeCursor(last.CreatedAt, last.ID)
	}
	return page, nil
}

// DeliveryBatch loads what a delivery job needs, in one statement: the
// endpoint and, in log order, those of eventIDs addressed to its
// organization that job jobID has not yet delivered there (a job worked
// before, retried or snoozed, sends only what is left). firstRun says the
// job was never worked before, so no attempt of it can be recorded and the
// statement skips looking for them. Errors: failure.NotFound when the
// endpoint was deleted.
func (s *WebhookService) DeliveryBatch(ctx context.Context, whID string, eventIDs []string, jobID int64, firstRun bool) (*webhook.Batch, error) {
	var rows []struct {
		webhookRow
		EventID   *string         `bun:"event_id"`
		EventType string          `bun:"event_type"`
		Data      json.RawMessage `bun:"event_data"`
		EventAt   time.Time       `bun:"event_at"`
	}
	// The look for delivered events is a subplan Postgres may run as a scan
	// of every job's records: only a job worked before needs it.
	delivered, args := ``, []any{bun.In(eventIDs), whID}
	if !firstRun {
		delivered = `AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.webhook_id = w.id AND d.event_id = e.id AND d.job_id = ? AND d.success)`
		args = []any{bun.In(eventIDs), jobID, whID}
	}
	err := s.db.bun.NewRaw(`SELECT w.*, e.id AS event_id, e.type AS event_type, e.data AS event_data, e.created_at AS event_at
		FROM webhooks w LEFT JOIN events e ON e.id IN (?) AND w.org_id = ANY(e.org_ids) `+delivered+`
		WHERE w.id = ? ORDER BY e.xid, e.seq`, args...).Scan(ctx, &rows)
	if err != nil {
		return nil, fmt.Errorf("load delivery batch: %w", err)
	}
	if len(rows) == 0 {
		return nil, webhookNotFound(whID)
	}
	w := &rows[0].webhookRow
	secrets, err := s.secrets(w)
	if err != nil {
		return nil, err
	}
	b := &webhook.Batch{WebhookID: w.ID, OrgID: w.OrgID, URL: w.URL, Active: w.Active,
		ConsecutiveFailures: w.ConsecutiveFailures, Secrets: secrets}
	for _, r := range rows {
		if r.EventID != nil {
			b.Messages = append(b.Messages, webhook.Outgoing{ID: *r.EventID, Type: r.EventType, At: r.EventAt.UTC(), Data: r.Data})
		}
	}
	return b, nil
}

// attemptRecord is one attempt as RecordAttempts hands it to Postgres.
type attemptRecord struct {
	ID           string    `json:"id"`
	EventID      string    `json:"event_id"`
	EventType    string    `json:"event_type"`
	Success      bool      `json:"success"`
	StatusCode   *int      `json:"status_code"`
	LatencyMs    int       `json:"latency_ms"`
	Error        *string   `json:"error"`
	ResponseBody *string   `json:"response_body"`
	CreatedAt    time.Time `json:"created_at"`
}

// RecordAttempts stores a job's attempts at one endpoint and their effect on
// it in one transaction of three statements however many there are: a
// success resets consecutive_failures, a failure counts (in the order the
// attempts ended, webhook.TallyAttempts), and a 410 or reaching
// WEBHOOK_DISABLE_AFTER disables the endpoint and appends webhook.disabled.
// It reports whether the endpoint is (now) inactive or gone, so the caller
// stops. A batch that changes no count takes no row lock.
func (s *WebhookService) RecordAttempts(ctx context.Context, whID string, jobID int64, sent []webhook.Sent) (inactive bool, err error) {
	if len(sent) == 0 {
		return false, nil
	}
	now := s.db.Now()
	recs := make([]attemptRecord, len(sent))
	attempts := make([]webhook.Attempt, len(sent))
	var lastStatus *int
	for i, a := range sent {
		r := attemptRecord{ID: id.New(id.Delivery), EventID: a.Message.ID, EventType: a.Message.Type, Success: a.Success(),
			LatencyMs: int(a.Latency.Milliseconds()), CreatedAt: now.Add(-time.Since(a.Done))}
		if a.StatusCode != 0 {
			r.StatusCode, r.ResponseBody = &a.StatusCode, &a.Body
		}
		if a.Err != "" {
			r.Error = &a.Err
		}
		if !a.Success() {
			lastStatus = r.StatusCode
		}
		recs[i], attempts[i] = r, a.Attempt
	}
	batch, err := json.Marshal(recs)
	if err != nil {
		return false, fmt.Errorf("encode attempts: %w", err)
	}
	tally := webhook.TallyAttempts(attempts)
	err = s.db.inTx(ctx, func(tx bun.Tx) error {
		// An attempt's number counts this endpoint's earlier attempts at the
		// event; the insert finds no endpoint row when it was deleted.
		res, err := tx.NewRaw(`INSERT INTO webhook_deliveries (id, webhook_id, event_id, event_type, attempt, success, status_code, latency_ms, error, response_body, created_at, job_id)
			SELECT x.id, w.id, x.event_id, x.event_type,
			       1 + (SELECT count(*) FROM webhook_deliveries p WHERE p.webhook_id = w.id AND p.event_id = x.event_id),
			       x.success, x.status_code, x.latency_ms, x.error, x.response_body, x.created_at, ?
			FROM jsonb_to_recordset(?::jsonb) AS x(id text, event_id text, event_type text, success boolean, status_code integer,
			       latency_ms integer, error text, response_body text, created_at timestamptz)
			JOIN webhooks w ON w.id = ?`, jobID, string(batch), whID).Exec(ctx)
		if err != nil {
			return fmt.Errorf("record attempts: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			inactive = true // deleted meanwhile
			return nil
		}
		var row webhookRow
		err = tx.NewRaw(`WITH u AS (
				UPDATE webhooks SET consecutive_failures = CASE WHEN ? THEN ? ELSE consecutive_failures + ? END
				WHERE id = ? AND consecutive_failures <> CASE WHEN ? THEN ? ELSE consecutive_failures + ? END
				RETURNING id, org_id, url, active, consecutive_failures)
			SELECT * FROM u
			UNION ALL SELECT id, org_id, url, active, consecutive_failures FROM webhooks WHERE id = ? AND NOT EXISTS (SELECT 1 FROM u)`,
			tally.Reset, tally.Failures, tally.Failures, whID, tally.Reset, tally.Failures, tally.Failures, whID).Scan(ctx, &row)
		if err != nil {
			return fmt.Errorf("count failures: %w", err)
		}
		if !row.Active {
			inactive = true
			return nil
		}
		reason := webhook.DisableReason(tally, row.ConsecutiveFailures, s.cfg.DisableAfter)
		if reason == "" {
			return nil
		}
		inactive = true
		if _, err := tx.ExecContext(ctx, `UPDATE webhooks SET active = false, disabled_at = ?, updated_at = ? WHERE id = ?`, now, now, whID); err != nil {
			return fmt.Errorf("disable webhook: %w", err)
		}
		data := webhook.Disabled{WebhookID: row.ID, URL: row.URL, Reason: reason, ConsecutiveFailures: row.ConsecutiveFailures, LastStatusCode: lastStatus}
		_, err = appendEvent(ctx, tx, event.WebhookDisabled, now, data, row.OrgID)
		return err
	})
	return inactive, err
}

// DispatchWebhooks queues delivery jobs for the next batch of logged events
// (one job per endpoint and up to JobEvents of its events)
// and advances the durable dispatch cursor past them, in one transaction:
// a crash before commit leaves the cursor where it was, one after leaves the
// jobs queued. The cursor row's lock (SKIP LOCKED) lets one replica dispatch
// at a time; the others return 0 at once. It returns how many events it
// read, and when none, whether committed events wait for older running
// transactions to end before they can be read.
func (s *WebhookService) DispatchWebhooks(ctx context.Context, batch int) (n int, pending bool, err error) {
	err = s.db.inTx(ctx, func(tx bun.Tx) error {
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
		evs, err := readEventHeads(ctx, tx, pos, batch)
		if err != nil {
			return err
		}
		if len(evs) == 0 {
			// Committed events that older running transactions still keep
			// unreadable: worth another look soon rather than at the next poll.
			err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM events WHERE (xid, seq) > (?::xid8, ?))`, xid, seq).Scan(&pending)
			if err != nil {
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

// matchEndpoints returns, for each active endpoint, jobs of at most
// JobEvents events each, in log order: the events addressed to its
// organization that its filter matches and that happened once it existed.
func (s *WebhookService) matchEndpoints(ctx context.Context, tx bun.Tx, evs []event.Event) ([]river.InsertManyParams, error) {
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
	if err := tx.NewSelect().Model(&rows).Column("id", "org_id", "events", "created_at").
		Where("org_id IN (?)", bun.In(orgs)).Where("active").Scan(ctx); err != nil {
		return nil, fmt.Errorf("find endpoints: %w", err)
	}
	byOrg := map[string][]webhookRow{}
	for _, r := range rows {
		byOrg[r.OrgID] = append(byOrg[r.OrgID], r)
	}
	var order []string
	matched := map[string][]string{}
	for _, e := range evs {
		for _, o := range e.OrgIDs {
			for _, r := range byOrg[o] {
				if event.Matches(r.Events, e.Type) && !e.CreatedAt.Before(r.CreatedAt) {
					if matched[r.ID] == nil {
						order = append(order, r.ID)
					}
					matched[r.ID] = append(matched[r.ID], e.ID)
				}
			}
		}
	}
	var jobs []river.InsertManyParams
	for _, whID := range order {
		jobs = append(jobs, s.jobsFor(whID, matched[whID])...)
	}
	return jobs, nil
}

// PruneDeliveries deletes attempt records older than the retention.
func (s *WebhookService) PruneDeliveries(ctx context.Context) (int64, error) {
	res, err := s.db.bun.NewDelete().Model((*deliveryRow)(nil)).Where("created_at < ?", s.db.Now().Add(-s.cfg.Retention)).Exec(ctx)
	if err != nil {
		return 0, fmt.Errorf("prune webhook deliveries: %w", err)
	}
	return res.RowsAffected()
}
