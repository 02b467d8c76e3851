package db

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/agenttrust/service/agent"
	"github.com/agenttrust/service/auth"
	"github.com/agenttrust/service/event"
	"github.com/agenttrust/service/id"
	"github.com/agenttrust/service/transaction"
	"github.com/agenttrust/service/trust"
	"github.com/agenttrust/service/webhook"
)

// The reads of node(id:) and nodes(ids:): each reads, in one statement,
// those of the ids that name a row the caller's own query of that type would
// answer; the others are simply absent from the answer, in no order.

// GetMany returns the caller's agents among ids.
func (s *AgentService) GetMany(ctx context.Context, p auth.Principal, ids []string) ([]*agent.Agent, error) {
	rows := make([]agentRow, 0, len(ids))
	if len(ids) > 0 {
		err := s.db.bun.NewSelect().Model(&rows).Where("org_id = ?", p.OrgID).Where("id IN (?)", bun.In(ids)).Scan(ctx)
		if err != nil {
			return nil, fmt.Errorf("get agents by id: %w", err)
		}
	}
	return agentsOf(rows), nil
}

// GetMany returns the transactions among ids visible to the caller (visibleTo).
func (s *TransactionService) GetMany(ctx context.Context, p auth.Principal, ids []string) ([]*transaction.Transaction, error) {
	var rows []transactionRow
	err := s.db.bun.NewSelect().Model(&rows).Where("id IN (?)", bun.In(ids)).
		Where(visibleTo, p.OrgID, p.OrgID).Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("get transactions by id: %w", err)
	}
	out := make([]*transaction.Transaction, len(rows))
	for i := range rows {
		out[i] = rows[i].transaction()
	}
	return out, nil
}

// DisputesByID returns the disputes among ids filed by or against the
// caller's organization.
func (s *TrustService) DisputesByID(ctx context.Context, p auth.Principal, ids []string) ([]*trust.Dispute, error) {
	var rows []disputeRow
	err := s.db.bun.NewSelect().Model(&rows).Where("id IN (?)", bun.In(ids)).
		Where("(reporter_org = ? OR agent_org = ?)", p.OrgID, p.OrgID).Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("get disputes by id: %w", err)
	}
	out := make([]*trust.Dispute, len(rows))
	for i := range rows {
		out[i] = rows[i].dispute()
	}
	return out, nil
}

// GetMany returns the caller's endpoints among ids (without secrets).
func (s *WebhookService) GetMany(ctx context.Context, p auth.Principal, ids []string) ([]webhook.Endpoint, error) {
	var rows []webhookRow
	err := s.db.bun.NewSelect().Model(&rows).Where("id IN (?)", bun.In(ids)).Where("org_id = ?", p.OrgID).Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("get webhooks by id: %w", err)
	}
	out := make([]webhook.Endpoint, len(rows))
	for i := range rows {
		out[i] = *rows[i].endpoint()
	}
	return out, nil
}

// DeliveriesByID returns the attempts among ids made to the caller's
// endpoints. Attempts are stored by batch; the index on the batches'
// attempt ids finds the few that hold any of them, whatever the history.
func (s *WebhookService) DeliveriesByID(ctx context.Context, p auth.Principal, ids []string) ([]webhook.Delivery, error) {
	batches := make([]string, len(ids))
	for i, dlvID := range ids {
		batches[i] = batchOf(dlvID)
	}
	var out []webhook.Delivery
	if err := s.db.bun.NewRaw(attemptsByID, p.OrgID, pgdialect.Array(ids), pgdialect.Array(batches)).Scan(ctx, &out); err != nil {
		return nil, fmt.Errorf("get webhook deliveries by id: %w", err)
	}
	for i := range out {
		out[i].CreatedAt = out[i].CreatedAt.UTC()
	}
	return out, nil
}

// attemptsByID reads the attempts ?1 of organization ?0's endpoints from
// their batches, whose ids are ?2 (batchOf each), found by
// webhook_attempt_batches_id: only those batches are unnested.
const attemptsByID = `SELECT r.id, r.event_id, r.event_type, r.attempt, r.success, r.status_code, r.latency_ms,
		r.error, r.response_body, r.created_at
	FROM webhook_attempt_batches AS b JOIN webhooks AS w ON w.id = b.webhook_id AND w.org_id = ?0,
		unnest(b.ids, b.event_ids, b.event_types, b.attempts, b.success, b.status_codes, b.latencies_ms,
			b.errors, b.bodies, b.created_ats)
		AS r(id, event_id, event_type, attempt, success, status_code, latency_ms, error, response_body, created_at)
	WHERE b.id = ANY(?2::text[]) AND r.id = ANY(?1::text[])`

// attemptID is the id of the attempt at place i of the batch whose attempts'
// ids start with base.
func attemptID(base string, i int) string { return base + "_" + strconv.Itoa(i) }

// batchOf is the id of the batch holding attempt dlvID: the attempt's id
// with its place 0 (attemptID), or, for an id without a place, the id itself.
func batchOf(dlvID string) string {
	i := strings.LastIndexByte(dlvID, '_')
	if i < len(id.Delivery) || i == len(dlvID)-1 || strings.Trim(dlvID[i+1:], "0123456789") != "" {
		return dlvID
	}
	return attemptID(dlvID[:i], 0)
}

// KeysByID describes the keys among ids of p's organization, read by
// their primary key (node and nodes; admin keys only, the caller's check).
func (s *OrgService) KeysByID(ctx context.Context, p auth.Principal, ids []string) ([]auth.KeyInfo, error) {
	var rows []apiKeyRow
	if err := s.db.bun.NewSelect().Model(&rows).Column(keyColumns...).
		Where("id IN (?)", bun.In(ids)).Where("org_id = ?", p.OrgID).Scan(ctx); err != nil {
		return nil, fmt.Errorf("get api keys by id: %w", err)
	}
	keys := make([]auth.KeyInfo, len(rows))
	for i, r := range rows {
		keys[i] = r.info()
	}
	return keys, nil
}

// EventsByID returns the events among ids that concern orgID's
// organization, the events its live stream and its webhooks carry.
func (d *DB) EventsByID(ctx context.Context, p auth.Principal, ids []string) ([]event.Event, error) {
	var rows []eventRow
	err := d.bun.NewSelect().Model(&rows).Where("id IN (?)", bun.In(ids)).
		Where("EXISTS (SELECT 1 FROM event_orgs AS eo WHERE eo.event_seq = ?TableAlias.seq AND eo.org_id = ?)", p.OrgID).Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("get events by id: %w", err)
	}
	out := make([]event.Event, len(rows))
	for i, r := range rows {
		out[i] = event.Event{Seq: r.Seq, ID: r.ID, Type: r.Type, OrgIDs: r.OrgIDs, Data: r.Data, CreatedAt: r.CreatedAt.UTC()}
	}
	return out, nil
}
