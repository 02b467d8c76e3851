package db

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/riverqueue/river"
	"github.com/uptrace/bun"

	"github.com/agenttrust/service/auth"
	"github.com/agenttrust/service/event"
	"github.com/agenttrust/service/failure"
	"github.com/agenttrust/service/id"
	"github.com/agenttrust/service/keyring"
	"github.com/agenttrust/service/webhook"
)

type webhookRow struct {
	bun.BaseModel        `bun:"table:webhooks"`
	ID                   string     `bun:"id,pk"`
	OrgID                string     `bun:"org_id"`
	URL                  string     `bun:"url"`
	Events               []string   `bun:"events,array"`
	Active               bool       `bun:"active"`
	ConsecutiveFailures  int        `bun:"consecutive_failures"`
	SecretSealed         string     `bun:"secret_sealed"`
	PreviousSecretSealed *string    `bun:"previous_secret_sealed"`
	PreviousSecretUntil  *time.Time `bun:"previous_secret_until"`
	DisabledAt           *time.Time `bun:"disabled_at"`
	CreatedAt            time.Time  `bun:"created_at"`
	UpdatedAt            time.Time  `bun:"updated_at"`
	// Since is the pg_snapshot the registration took (see Register): the
	// endpoint receives the events of the transactions it does not see.
	Since string `bun:"since"`
}

func (r *webhookRow) endpoint() *webhook.Endpoint {
	return &webhook.Endpoint{ID: r.ID, OrgID: r.OrgID, URL: r.URL, Events: r.Events, Active: r.Active,
		ConsecutiveFailures: r.ConsecutiveFailures, CreatedAt: r.CreatedAt.UTC()}
}

// WebhookConfig tunes delivery; zero fields take the documented defaults.
type WebhookConfig struct {
	Schedule     webhook.Schedule // WEBHOOK_RETRY_SCHEDULE
	DisableAfter int              // WEBHOOK_DISABLE_AFTER
	Retention    time.Duration    // WEBHOOK_RETENTION
	// Backlog caps how many missed events a re-activated endpoint is sent.
	Backlog int
	// JobEvents is how many events one delivery job carries at most
	// (default webhook.JobEvents).
	JobEvents int
}

func (c *WebhookConfig) defaults() {
	if len(c.Schedule) == 0 {
		c.Schedule, _ = webhook.ParseSchedule(webhook.DefaultSchedule)
	}
	if c.DisableAfter <= 0 {
		c.DisableAfter = webhook.DefaultDisableAfter
	}
	if c.Retention <= 0 {
		c.Retention = webhook.DefaultRetention
	}
	if c.Backlog <= 0 {
		c.Backlog = 10000
	}
	if c.JobEvents <= 0 {
		c.JobEvents = webhook.JobEvents
	}
}

// WebhookService implements webhook.Service on Postgres, plus what the
// delivery workers and the dispatcher need.
type WebhookService struct {
	db     *DB
	keys   *keyring.Ring
	sender webhook.Sender
	jobs   *jobInserter
	cfg    WebhookConfig
}

var _ webhook.Service = (*WebhookService)(nil)

// NewWebhookService returns the webhook service; keys seal the secrets and
// sender verifies and tests endpoints.
func NewWebhookService(d *DB, keys *keyring.Ring, sender webhook.Sender, cfg WebhookConfig) (*WebhookService, error) {
	cfg.defaults()
	j, err := newJobInserter(d)
	if err != nil {
		return nil, err
	}
	return &WebhookService{db: d, keys: keys, sender: sender, jobs: j, cfg: cfg}, nil
}

// Config returns the delivery settings in force.
func (s *WebhookService) Config() WebhookConfig { return s.cfg }

func webhookNotFound(whID string) error {
	return failure.Errorf(failure.NotFound, "webhook %s not found", whID)
}

func (s *WebhookService) seal(whID, secret string) string {
	return s.keys.Seal([]byte(secret), []byte(whID))
}

// find loads one of orgID's endpoints; lock takes its row lock in tx.
func (s *WebhookService) find(ctx context.Context, q bun.IDB, orgID, whID string, lock bool) (*webhookRow, error) {
	var row webhookRow
	sel := q.NewSelect().Model(&row).Where("id = ?", whID).Where("org_id = ?", orgID)
	if lock {
		sel = sel.For("UPDATE")
	}
	if err := sel.Scan(ctx); errors.Is(err, sql.ErrNoRows) {
		return nil, webhookNotFound(whID)
	} else if err != nil {
		return nil, fmt.Errorf("find webhook: %w", err)
	}
	return &row, nil
}

// verify sends a signed webhook.verification to url and refuses it unless
// it answers 2xx. The refusal says how far the request got (the sender's
// Attempt.Err, which names nothing of this server's network) or the status
// the endpoint answered.
func (s *WebhookService) verify(ctx context.Context, whID, url, secret string) error {
	data, _ := json.Marshal(map[string]string{"webhook_id": whID, "url": url})
	a := s.sender.Send(ctx, url, []string{secret}, webhook.Outgoing{ID: id.New(id.Event), Type: webhook.TypeVerification, At: s.db.Now(), Data: data})
	switch {
	case a.Success():
		return nil
	case a.StatusCode == 0:
		return failure.Invalid("input.url", "the signed webhook.verification request failed: %s", a.Err)
	default:
		return failure.Invalid("input.url", "the endpoint did not answer 2xx to the signed webhook.verification request: it answered HTTP %d", a.StatusCode)
	}
}

// Register stores an endpoint once it answered a signed webhook.verification
// with 2xx; the answer carries the secret, the only time it is shown besides rotation.
func (s *WebhookService) Register(ctx context.Context, p auth.Principal, in webhook.RegisterInput) (*webhook.Endpoint, error) {
	if err := in.Validate(); err != nil {
		return nil, err
	}
	if err := s.checkRoom(ctx, s.db.bun, p.OrgID); err != nil {
		return nil, err
	}
	whID, secret := id.New(id.Webhook), webhook.NewSecret()
	if err := s.verify(ctx, whID, in.URL, secret); err != nil {
		return nil, err
	}
	now := s.db.Now()
	row := webhookRow{ID: whID, OrgID: p.OrgID, URL: in.URL, Events: in.Events, Active: true,
		SecretSealed: s.seal(whID, secret), CreatedAt: now, UpdatedAt: now}
	err := s.db.inTx(ctx, func(tx *txn) error {
		// The organization's row lock serializes registrations, so the cap
		// holds; NO KEY UPDATE leaves the key-share locks of foreign keys
		// (every event's event_orgs row takes one) free to pass.
		if _, err := tx.NewRaw("SELECT 1 FROM orgs WHERE id = ? FOR NO KEY UPDATE", p.OrgID).Exec(ctx); err != nil {
			return fmt.Errorf("lock organization: %w", err)
		}
		if err := s.checkRoom(ctx, tx, p.OrgID); err != nil {
			return err
		}
		return insertSince(ctx, tx, &row)
	})
	if err != nil {
		return nil, err
	}
	ep := row.endpoint()
	ep.Secret = &secret
	return ep, nil
}

// insertSince inserts an endpoint with the snapshot that divides the log
// at its registration's commit. A SHARE lock on events waits for every
// transaction that has appended events to finish, and keeps any other from
// appending until this one commits; the snapshot taken then sees exactly the
// events committed before the registration. The lock is held for the
// insert and the commit only, and waits at most registerLockTimeout for a
// long writer.
func insertSince(ctx context.Context, tx *txn, row *webhookRow) error {
	if _, err := tx.ExecContext(ctx, "SET LOCAL lock_timeout = "+registerLockTimeout); err != nil {
		return fmt.Errorf("bound the events lock: %w", err)
	}
	if _, err := tx.ExecContext(ctx, "LOCK TABLE events IN SHARE MODE"); err != nil {
		return fmt.Errorf("wait for event writers: %w", err)
	}
	if _, err := tx.NewInsert().Model(row).Value("since", "pg_current_snapshot()").Returning("since").Exec(ctx); err != nil {
		return fmt.Errorf("insert webhook: %w", err)
	}
	return nil
}

// registerLockTimeout bounds a registration's wait for the events lock.
const registerLockTimeout = "'5s'"

func (s *WebhookService) checkRoom(ctx context.Context, q bun.IDB, orgID string) error {
	n, err := q.NewSelect().Model((*webhookRow)(nil)).Where("org_id = ?", orgID).Count(ctx)
	if err != nil {
		return fmt.Errorf("count webhooks: %w", err)
	}
	if n >= webhook.MaxEndpoints {
		return failure.Invalid("input.url", "an organization may register at most %d webhook endpoints; delete one first", webhook.MaxEndpoints)
	}
	return nil
}

// List returns the organization's endpoints, oldest first.
func (s *WebhookService) List(ctx context.Context, p auth.Principal) ([]webhook.Endpoint, error) {
	var rows []webhookRow
	if err := s.db.bun.NewSelect().Model(&rows).Where("org_id = ?", p.OrgID).Order("created_at", "id").Scan(ctx); err != nil {
		return nil, fmt.Errorf("list webhooks: %w", err)
	}
	out := make([]webhook.Endpoint, len(rows))
	for i := range rows {
		out[i] = *rows[i].endpoint()
	}
	return out, nil
}

// AnyActive reports whether any organization has an active endpoint: with
// none, the dispatcher has no one to route events to.
func (s *WebhookService) AnyActive(ctx context.Context) (bool, error) {
	var any bool
	if err := s.db.bun.NewRaw(`SELECT EXISTS (SELECT 1 FROM webhooks WHERE active)`).Scan(ctx, &any); err != nil {
		return false, fmt.Errorf("look for active webhooks: %w", err)
	}
	return any, nil
}

// Get returns one of the organization's endpoints.
func (s *WebhookService) Get(ctx context.Context, p auth.Principal, whID string) (*webhook.Endpoint, error) {
	row, err := s.find(ctx, s.db.bun, p.OrgID, whID, false)
	if err != nil {
		return nil, err
	}
	return row.endpoint(), nil
}

// Update changes an endpoint. A new URL must answer a signed
// webhook.verification first. Re-activating resets consecutive_failures and
// queues the events the endpoint missed while inactive (within the retention).
func (s *WebhookService) Update(ctx context.Context, p auth.Principal, whID string, in webhook.UpdateInput) (*webhook.Endpoint, error) {
	if err := in.Validate(); err != nil {
		return nil, err
	}
	cur, err := s.find(ctx, s.db.bun, p.OrgID, whID, false)
	if err != nil {
		return nil, err
	}
	if in.URL != nil && *in.URL != cur.URL {
		secret, err := s.keys.Open(cur.SecretSealed, []byte(whID))
		if err != nil {
			return nil, fmt.Errorf("open webhook secret: %w", err)
		}
		if err := s.verify(ctx, whID, *in.URL, string(secret)); err != nil {
			return nil, err
		}
	}
	var out *webhook.Endpoint
	err = s.db.inTx(ctx, func(tx *txn) error {
		row, err := s.find(ctx, tx, p.OrgID, whID, true)
		if err != nil {
			return err
		}
		now := s.db.Now()
		if in.URL != nil {
			row.URL = *in.URL
		}
		if in.Events != nil {
			row.Events = in.Events
		}
		reactivated := in.Active != nil && *in.Active && !row.Active
		if in.Active != nil && !*in.Active && row.Active {
			row.DisabledAt = &now
		}
		if in.Active != nil {
			row.Active = *in.Active
		}
		if reactivated {
			row.ConsecutiveFailures = 0
		}
		row.UpdatedAt = now
		if _, err := tx.NewUpdate().Model(row).Column("url", "events", "active", "consecutive_failures", "disabled_at", "updated_at").WherePK().Exec(ctx); err != nil {
			return fmt.Errorf("update webhook: %w", err)
		}
		if reactivated {
			if err := s.queueBacklog(ctx, tx, row); err != nil {
				return err
			}
		}
		out = row.endpoint()
		return nil
	})
	return out, err
}

// queueBacklog queues, in tx, the events a re-activated endpoint missed:
// every event after the last one it received (or since it was disabled, if
// that is earlier), and older ones it was still failing on; none older than
// the retention or than the endpoint, and none it already received.
func (s *WebhookService) queueBacklog(ctx context.Context, tx *txn, row *webhookRow) error {
	floor := s.db.Now().Add(-s.cfg.Retention)
	from := s.db.Now()
	if row.DisabledAt != nil {
		from = *row.DisabledAt
	}
	var lastOK sql.NullTime
	err := tx.NewRaw(`SELECT max(e.created_at) FROM events e WHERE e.seq IN (`+deliveredSeqs+`)`, row.ID).Scan(ctx, &lastOK)
	if err != nil {
		return fmt.Errorf("find last delivered event: %w", err)
	}
	switch {
	case !lastOK.Valid:
		from = floor // never delivered anything: everything since it exists
	case lastOK.Time.Before(from):
		from = lastOK.Time
	}
	var evs []struct {
		Seq  int64  `bun:"seq"`
		Type string `bun:"type"`
	}
	err = tx.NewRaw(`SELECT e.seq, e.type FROM webhooks w, event_orgs eo JOIN events e ON e.seq = eo.event_seq
		WHERE w.id = ? AND eo.org_id = ? AND e.created_at >= ? AND NOT pg_visible_in_snapshot(e.xid, w.since)
		  AND (e.created_at >= ? OR e.seq IN (SELECT unnest(event_seqs) FROM webhook_attempt_batches WHERE webhook_id = ?))
		  AND e.seq NOT IN (`+deliveredSeqs+`)
		ORDER BY e.xid, e.seq LIMIT ?`,
		row.ID, row.OrgID, floor, from, row.ID, row.ID, s.cfg.Backlog).Scan(ctx, &evs)
	if err != nil {
		return fmt.Errorf("find missed events: %w", err)
	}
	var seqs []int64
	for _, e := range evs {
		if event.Matches(row.Events, e.Type) {
			seqs = append(seqs, e.Seq)
		}
	}
	return s.jobs.insert(ctx, tx, s.jobsFor(row.OrgID, row.ID, seqs))
}

// deliveredSeqs are the events endpoint ? received: those with a
// successful attempt.
const deliveredSeqs = `SELECT d.seq FROM webhook_attempt_batches b, unnest(b.event_seqs, b.success) AS d(seq, ok)
	WHERE b.webhook_id = ? AND d.ok`

// jobsFor returns the jobs that deliver the events numbered seqs (distinct,
// in log order) to one endpoint of orgID, JobEvents at a time.
func (s *WebhookService) jobsFor(orgID, whID string, seqs []int64) []river.InsertManyParams {
	var jobs []river.InsertManyParams
	for chunk := range slices.Chunk(seqs, s.cfg.JobEvents) {
		jobs = append(jobs, river.InsertManyParams{Args: webhook.DeliveryJob{OrgID: orgID, WebhookID: whID, Seqs: webhook.EncodeSeqs(chunk)},
			InsertOpts: &river.InsertOpts{MaxAttempts: s.cfg.Schedule.Attempts()}})
	}
	return jobs
}

// Delete removes an endpoint and its attempt records in one transaction;
// its queued jobs find it gone and stop. A job recording attempts holds a
// key-share lock on the endpoint's row, so the deletion waits for it and
// then deletes those records too.
func (s *WebhookService) Delete(ctx context.Context, p auth.Principal, whID string) error {
	return s.db.inTx(ctx, func(tx *txn) error {
		res, err := tx.NewDelete().Model((*webhookRow)(nil)).Where("id = ?", whID).Where("org_id = ?", p.OrgID).Exec(ctx)
		if err != nil {
			return fmt.Errorf("delete webhook: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return webhookNotFound(whID)
		}
		if _, err := tx.NewDelete().Table("webhook_attempt_batches").Where("webhook_id = ?", whID).Exec(ctx); err != nil {
			return fmt.Errorf("delete webhook deliveries: %w", err)
		}
		return nil
	})
}

// Test sends a signed webhook.test now and reports the answer; it records
// nothing and leaves consecutive_failures alone.
func (s *WebhookService) Test(ctx context.Context, p auth.Principal, whID string) (*webhook.TestResult, error) {
	row, err := s.find(ctx, s.db.bun, p.OrgID, whID, false)
	if err != nil {
		return nil, err
	}
	secrets, err := s.secrets(row)
	if err != nil {
		return nil, err
	}
	data, _ := json.Marshal(map[string]string{"webhook_id": whID})
	a := s.sender.Send(ctx, row.URL, secrets, webhook.Outgoing{ID: id.New(id.Event), Type: webhook.TypeTest, At: s.db.Now(), Data: data})
	return &webhook.TestResult{StatusCode: a.StatusCode, Success: a.Success()}, nil
}

// secrets opens the endpoint's signing secrets: the current one, then the
// previous one while the rotation overlap lasts.
func (s *WebhookService) secrets(row *webhookRow) ([]string, error) {
	cur, err := s.keys.Open(row.SecretSealed, []byte(row.ID))
	if err != nil {
		return nil, fmt.Errorf("open webhook secret: %w", err)
	}
	out := []string{string(cur)}
	if row.PreviousSecretSealed != nil && row.PreviousSecretUntil != nil && s.db.Now().Before(*row.PreviousSecretUntil) {
		prev, err := s.keys.Open(*row.PreviousSecretSealed, []byte(row.ID))
		if err != nil {
			return nil, fmt.Errorf("open previous webhook secret: %w", err)
		}
		out = append(out, string(prev))
	}
	return out, nil
}

// RotateSecret gives the endpoint a new secret; for webhook.RotationOverlap
// deliveries are signed under the old one as well.
func (s *WebhookService) RotateSecret(ctx context.Context, p auth.Principal, whID string) (*webhook.Endpoint, error) {
	secret := webhook.NewSecret()
	var out *webhook.Endpoint
	err := s.db.inTx(ctx, func(tx *txn) error {
		row, err := s.find(ctx, tx, p.OrgID, whID, true)
		if err != nil {
			return err
		}
		now := s.db.Now()
		until := now.Add(webhook.RotationOverlap)
		prev := row.SecretSealed
		row.PreviousSecretSealed, row.PreviousSecretUntil = &prev, &until
		row.SecretSealed, row.UpdatedAt = s.seal(whID, secret), now
		if _, err := tx.NewUpdate().Model(row).Column("secret_sealed", "previous_secret_sealed", "previous_secret_until", "updated_at").WherePK().Exec(ctx); err != nil {
			return fmt.Errorf("rotate webhook secret: %w", err)
		}
		out = row.endpoint()
		return nil
	})
	if err != nil {
		return nil, err
	}
	out.Secret = &secret
	return out, nil
}

// Redeliver queues one event again for one endpoint, whatever its filter.
// Errors: failure.NotFound for an endpoint or event the organization cannot see.
func (s *WebhookService) Redeliver(ctx context.Context, p auth.Principal, whID, eventID string) error {
	if _, err := s.find(ctx, s.db.bun, p.OrgID, whID, false); err != nil {
		return err
	}
	if !id.Has(eventID, id.Event) {
		return failure.Errorf(failure.NotFound, "event %s not found", eventID)
	}
	pos, err := s.db.EventPosition(ctx, p.OrgID, eventID)
	if err != nil {
		return err
	}
	return s.db.inTx(ctx, func(tx *txn) error {
		return s.jobs.insert(ctx, tx, s.jobsFor(p.OrgID, whID, []int64{pos.Seq}))
	})
}
