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
	"github.com/agenttrust/service/failure"
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

// DeliveryTarget loads what a delivery job needs, in one statement. Errors:
// failure.NotFound when the endpoint was deleted or the event is not
// addressed to its organization.
func (s *WebhookService) DeliveryTarget(ctx context.Context, whID, eventID string) (*webhook.Target, error) {
	var row struct {
		webhookRow
		EventID   *string         `bun:"event_id"`
		EventType string          `bun:"event_type"`
		Data      json.RawMessage `bun:"event_data"`
		EventAt   time.Time       `bun:"event_at"`
	}
	err := s.db.bun.NewRaw(`SELECT w.*, e.id AS event_id, e.type AS event_type, e.data AS event_data, e.created_at AS event_at
		FROM webhooks w LEFT JOIN events e ON e.id = ? AND w.org_id = ANY(e.org_ids)
		WHERE w.id = ?`, eventID, whID).Scan(ctx, &row)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, webhookNotFound(whID)
	} else if err != nil {
		return nil, fmt.Errorf("find delivery target: %w", err)
	}
	if row.EventID == nil {
		return nil, failure.Errorf(failure.NotFound, "event %s not found", eventID)
	}
	secrets, err := s.secrets(&row.webhookRow)
	if err != nil {
		return nil, err
	}
	return &webhook.Target{WebhookID: row.ID, OrgID: row.OrgID, URL: row.URL, Active: row.Active, Secrets: secrets,
		Message: webhook.Outgoing{ID: *row.EventID, Type: row.EventType, At: row.EventAt.UTC(), Data: row.Data}}, nil
}

// RecordAttempt stores one attempt and its effect on the endpoint in one
// transaction: a success resets consecutive_failures; a failure counts, and
// a 410 or the WEBHOOK_DISABLE_AFTER-th failure in a row disables the
// endpoint and appends webhook.disabled. It reports whether the endpoint is
// (now) inactive or gone, so the caller stops retrying. A success takes no
// row lock unless it has failures to reset, so deliveries to one endpoint
// do not queue up behind each other.
func (s *WebhookService) RecordAttempt(ctx context.Context, whID string, msg webhook.Outgoing, a webhook.Attempt) (inactive bool, err error) {
	err = s.db.inTx(ctx, func(tx bun.Tx) error {
		now := s.db.Now()
		d := deliveryRow{ID: id.New(id.Delivery), WebhookID: whID, EventID: msg.ID, EventType: msg.Type,
			Success: a.Success(), LatencyMs: int(a.Latency.Milliseconds()), CreatedAt: now}
		if a.StatusCode != 0 {
			d.StatusCode, d.ResponseBody = &a.StatusCode, &a.Body
		}
		if a.Err != "" {
			d.Error = &a.Err
		}
		// The attempt number counts this endpoint's earlier attempts at the
		// event; the insert finds no endpoint row when it was deleted.
		res, err := tx.NewRaw(`INSERT INTO webhook_deliveries (id, webhook_id, event_id, event_type, attempt, success, status_code, latency_ms, error, response_body, created_at)
			SELECT ?, w.id, ?, ?, 1 + (SELECT count(*) FROM webhook_deliveries p WHERE p.webhook_id = w.id AND p.event_id = ?), ?, ?, ?, ?, ?, ?
			FROM webhooks w WHERE w.id = ?`,
			d.ID, d.EventID, d.EventType, d.EventID, d.Success, d.StatusCode, d.LatencyMs, d.Error, d.ResponseBody, d.CreatedAt, whID).Exec(ctx)
		if err != nil {
			return fmt.Errorf("record attempt: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			inactive = true // deleted meanwhile
			return nil
		}
		if a.Success() {
			var active bool
			err := tx.NewRaw(`WITH reset AS (UPDATE webhooks SET consecutive_failures = 0 WHERE id = ? AND consecutive_failures <> 0)
				SELECT active FROM webhooks WHERE id = ?`, whID, whID).Scan(ctx, &active)
			if err != nil {
				return fmt.Errorf("reset failures: %w", err)
			}
			inactive = !active
			return nil
		}
		var row webhookRow
		err = tx.NewRaw(`UPDATE webhooks SET consecutive_failures = consecutive_failures + 1 WHERE id = ?
			RETURNING id, org_id, url, active, consecutive_failures`, whID).Scan(ctx, &row)
		if err != nil {
			return fmt.Errorf("count failure: %w", err)
		}
		reason := ""
		switch {
		case !row.Active:
		case a.Gone():
			reason = "the endpoint answered 410 Gone"
		case row.ConsecutiveFailures >= s.cfg.DisableAfter:
			reason = fmt.Sprintf("%d consecutive failed attempts", row.ConsecutiveFailures)
		}
		inactive = !row.Active || reason != ""
		if reason == "" {
			return nil
		}
		if _, err := tx.ExecContext(ctx, `UPDATE webhooks SET active = false, disabled_at = ?, updated_at = ? WHERE id = ?`, now, now, whID); err != nil {
			return fmt.Errorf("disable webhook: %w", err)
		}
		data := webhook.Disabled{WebhookID: row.ID, URL: row.URL, Reason: reason, ConsecutiveFailures: row.ConsecutiveFailures, LastStatusCode: d.StatusCode}
		_, err = appendEvent(ctx, tx, event.WebhookDisabled, now, data, row.OrgID)
		return err
	})
	return inactive, err
}

// DispatchWebhooks queues delivery jobs for the next batch of logged events
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
		evs, err := readEvents(ctx, tx, pos, batch)
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

// matchEndpoints returns one job per event and active endpoint of an
// organization it is addressed to whose filter matches and which existed
// when the event happened.
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
	var jobs []river.InsertManyParams
	for _, e := range evs {
		for _, o := range e.OrgIDs {
			for _, r := range byOrg[o] {
				if event.Matches(r.Events, e.Type) && !e.CreatedAt.Before(r.CreatedAt) {
					jobs = append(jobs, s.job(r.ID, e.ID))
				}
			}
		}
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
