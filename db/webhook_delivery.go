package db

import (
	"context"
	"database/sql"
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

// DeliveryTarget loads what a delivery job needs. Errors: failure.NotFound
// when the endpoint was deleted or the event is not addressed to its organization.
func (s *WebhookService) DeliveryTarget(ctx context.Context, whID, eventID string) (*webhook.Target, error) {
	var row webhookRow
	if err := s.db.bun.NewSelect().Model(&row).Where("id = ?", whID).Scan(ctx); errors.Is(err, sql.ErrNoRows) {
		return nil, webhookNotFound(whID)
	} else if err != nil {
		return nil, fmt.Errorf("find webhook: %w", err)
	}
	var ev eventRow
	err := s.db.bun.NewSelect().Model(&ev).Where("id = ?", eventID).Where("? = ANY(org_ids)", row.OrgID).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, failure.Errorf(failure.NotFound, "event %s not found", eventID)
	} else if err != nil {
		return nil, fmt.Errorf("find event: %w", err)
	}
	secrets, err := s.secrets(&row)
	if err != nil {
		return nil, err
	}
	return &webhook.Target{WebhookID: row.ID, OrgID: row.OrgID, URL: row.URL, Active: row.Active, Secrets: secrets,
		Message: webhook.Outgoing{ID: ev.ID, Type: ev.Type, At: ev.CreatedAt, Data: ev.Data}}, nil
}

// RecordAttempt stores one attempt and its effect on the endpoint in one
// transaction: a success resets consecutive_failures; a failure counts, and
// a 410 or the WEBHOOK_DISABLE_AFTER-th failure in a row disables the
// endpoint and appends webhook.disabled. It reports whether the endpoint is
// (now) inactive, so the caller stops retrying.
func (s *WebhookService) RecordAttempt(ctx context.Context, whID string, msg webhook.Outgoing, a webhook.Attempt) (inactive bool, err error) {
	err = s.db.inTx(ctx, func(tx bun.Tx) error {
		var row webhookRow
		if err := tx.NewSelect().Model(&row).Where("id = ?", whID).For("UPDATE").Scan(ctx); errors.Is(err, sql.ErrNoRows) {
			inactive = true // deleted meanwhile: nothing to record
			return nil
		} else if err != nil {
			return fmt.Errorf("lock webhook: %w", err)
		}
		n, err := tx.NewSelect().Model((*deliveryRow)(nil)).Where("webhook_id = ?", whID).Where("event_id = ?", msg.ID).Count(ctx)
		if err != nil {
			return fmt.Errorf("count attempts: %w", err)
		}
		now := s.db.Now()
		d := deliveryRow{ID: id.New(id.Delivery), WebhookID: whID, EventID: msg.ID, EventType: msg.Type, Attempt: n + 1,
			Success: a.Success(), LatencyMs: int(a.Latency.Milliseconds()), CreatedAt: now}
		if a.StatusCode != 0 {
			d.StatusCode = &a.StatusCode
		}
		if a.Err != "" {
			d.Error = &a.Err
		}
		if a.StatusCode != 0 {
			d.ResponseBody = &a.Body
		}
		if _, err := tx.NewInsert().Model(&d).Exec(ctx); err != nil {
			return fmt.Errorf("record attempt: %w", err)
		}
		if a.Success() {
			if row.ConsecutiveFailures != 0 {
				row.ConsecutiveFailures = 0
				_, err = tx.NewUpdate().Model(&row).Column("consecutive_failures").WherePK().Exec(ctx)
			}
			inactive = !row.Active
			return err
		}
		row.ConsecutiveFailures++
		reason := ""
		switch {
		case !row.Active:
		case a.Gone():
			reason = "the endpoint answered 410 Gone"
		case row.ConsecutiveFailures >= s.cfg.DisableAfter:
			reason = fmt.Sprintf("%d consecutive failed attempts", row.ConsecutiveFailures)
		}
		cols := []string{"consecutive_failures"}
		if reason != "" {
			row.Active, row.DisabledAt, row.UpdatedAt = false, &now, now
			cols = append(cols, "active", "disabled_at", "updated_at")
		}
		if _, err := tx.NewUpdate().Model(&row).Column(cols...).WherePK().Exec(ctx); err != nil {
			return fmt.Errorf("count failure: %w", err)
		}
		inactive = !row.Active
		if reason == "" {
			return nil
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
// at a time; the others return 0 at once. It returns how many events it read.
func (s *WebhookService) DispatchWebhooks(ctx context.Context, batch int) (int, error) {
	var n int
	err := s.db.inTx(ctx, func(tx bun.Tx) error {
		var xid string
		var seq int64
		err := tx.QueryRowContext(ctx, `SELECT xid::text, seq FROM webhook_dispatch_cursor WHERE id = 1 FOR UPDATE SKIP LOCKED`).Scan(&xid, &seq)
		if errors.Is(err, sql.ErrNoRows) {
			return nil // another replica is dispatching
		}
		if err != nil {
			return fmt.Errorf("lock dispatch cursor: %w", err)
		}
		x, err := strconv.ParseUint(xid, 10, 64)
		if err != nil {
			return fmt.Errorf("dispatch cursor: xid %q: %w", xid, err)
		}
		evs, err := readEvents(ctx, tx, event.Position{XID: x, Seq: seq}, batch)
		if err != nil || len(evs) == 0 {
			return err
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
	return n, err
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
				if webhook.Matches(r.Events, e.Type) && !e.CreatedAt.Before(r.CreatedAt) {
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
