package db

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/agenttrust/service/agent"
	"github.com/agenttrust/service/auth"
	"github.com/agenttrust/service/failure"
	"github.com/agenttrust/service/trust"
)

// TrustService implements trust.Service on Postgres.
type TrustService struct{ db *DB }

// NewTrustService returns the trust service.
func NewTrustService(d *DB) *TrustService { return &TrustService{db: d} }

var _ trust.Service = (*TrustService)(nil)

// Profiles reads any agents' counters in one statement and scores them at
// the current time: the counters decay on read, so the read is
// constant-time however long the history.
func (s *TrustService) Profiles(ctx context.Context, _ auth.Principal, agentIDs []string) (map[string]*trust.Profile, error) {
	rows := make([]agentRow, 0, len(agentIDs))
	if len(agentIDs) > 0 {
		err := s.db.bun.NewSelect().Model(&rows).Column("agent_row.id", "agent_row.status").ColumnExpr(scoreColumns).
			Join("JOIN trust_counters AS tc ON tc.agent_id = agent_row.id").Where("agent_row.id IN (?)", bun.In(agentIDs)).Scan(ctx)
		if err != nil {
			return nil, fmt.Errorf("read trust profiles: %w", err)
		}
	}
	now := s.db.Now()
	out := make(map[string]*trust.Profile, len(rows))
	profiles := make([]trust.Profile, len(rows)) // one allocation for every profile
	for i := range rows {
		r := &rows[i]
		profiles[i] = trust.NewProfile(r.ID, r.trustOf(), now, r.TC.UpdatedAt.UTC())
		out[r.ID] = &profiles[i]
	}
	return out, nil
}

// ListWithProfiles reads a page of the caller's agents, as AgentService.List
// does, and each one's counters by the same statement, scored at the
// current time: a dashboard's page with trust is one round trip.
func (s *TrustService) ListWithProfiles(ctx context.Context, p auth.Principal, f agent.ListFilter) (*agent.Page, []*trust.Profile, error) {
	return s.db.listAgents(ctx, p, f, true)
}

// Batch answers up to trust.MaxBatch ids in the order asked, in one statement.
func (s *TrustService) Batch(ctx context.Context, p auth.Principal, agentIDs []string) ([]trust.Summary, error) {
	if err := trust.ValidateBatch(agentIDs); err != nil {
		return nil, err
	}
	profiles, err := s.Profiles(ctx, p, agentIDs)
	if err != nil {
		return nil, err
	}
	out := make([]trust.Summary, len(agentIDs))
	var missing []string
	for i, agentID := range agentIDs {
		prof, ok := profiles[agentID]
		if !ok {
			missing = append(missing, agentID)
			continue
		}
		out[i] = trust.Summary{AgentID: agentID, Score: prof.Score, Assessment: prof.Assessment}
	}
	if len(missing) > 0 {
		fe := failure.Errorf(failure.NotFound, "agents not found: %s", strings.Join(missing, ", "))
		fe.Extensions = map[string]any{"missingIds": missing}
		return nil, fe
	}
	return out, nil
}

// History lists an agent's score snapshots newest first, at most
// trust.MaxHistory. Anyone may read any agent's history; a cause names its
// record (`transaction:tx_…`) only to the agent's own organization, and
// only its kind (`transaction`) to every other.
func (s *TrustService) History(ctx context.Context, p auth.Principal, agentID string, since *time.Time) ([]trust.Snapshot, error) {
	var rows []historyRow
	q := s.db.bun.NewSelect().Model(&rows).ColumnExpr("?TableAlias.*").
		// Not correlated, so Postgres runs it once (an InitPlan), not per snapshot.
		ColumnExpr("coalesce((SELECT org_id = ? FROM agents WHERE id = ?), false) AS own", p.OrgID, agentID).
		Where("agent_id = ?", agentID)
	if since != nil {
		q = q.Where("at >= ?", *since)
	}
	if err := q.Order("at DESC", "seq DESC").Limit(trust.MaxHistory).Scan(ctx); err != nil {
		return nil, fmt.Errorf("read trust history: %w", err)
	}
	if len(rows) == 0 { // every agent has its registration snapshot: is there such an agent?
		exists, err := s.db.bun.NewSelect().Model((*agentRow)(nil)).Where("id = ?", agentID).Exists(ctx)
		if err != nil {
			return nil, fmt.Errorf("look up agent: %w", err)
		}
		if !exists {
			return nil, agentNotFound(agentID)
		}
	}
	out := make([]trust.Snapshot, len(rows))
	for i, r := range rows {
		cause := r.Cause
		if cause != nil && !r.Own {
			kind, _, _ := strings.Cut(*cause, ":")
			cause = &kind
		}
		out[i] = trust.Snapshot{Timestamp: r.At.UTC(), Score: r.Score, Assessment: r.Assessment, Cause: cause}
	}
	return out, nil
}

// historyRow is a snapshot read with whether the caller owns its agent.
type historyRow struct {
	snapshotRow `bun:",extend"`
	Own         bool `bun:"own,scanonly"`
}

// Evaluate runs the very policy an execute runs, for one of the caller's
// agents, without locking or changing anything.
func (s *TrustService) Evaluate(ctx context.Context, p auth.Principal, in trust.EvaluateInput) (*trust.Evaluation, error) {
	cur, err := in.Validate()
	if err != nil {
		return nil, err
	}
	ids := []string{in.AgentID}
	if in.ToAgent != nil {
		ids = append(ids, *in.ToAgent)
	}
	agents, err := s.db.readParties(ctx, ids...)
	if err != nil {
		return nil, err
	}
	sender, receiver := agents[in.AgentID], (*agentRow)(nil)
	if sender == nil || sender.OrgID != p.OrgID {
		return nil, agentNotFound(in.AgentID)
	}
	if in.ToAgent != nil {
		if receiver = agents[*in.ToAgent]; receiver == nil {
			return nil, agentNotFound(*in.ToAgent)
		}
	}
	ref, err := readMandate(ctx, s.db.bun, in.AgentID, in.MandateID)
	if err != nil {
		return nil, err
	}
	d, err := evaluatePolicy(ctx, s.db.bun, sender, receiver, in.Action, in.Amount, cur, s.db.Now(), ref)
	if err != nil {
		return nil, err
	}
	if d, err = s.db.limitPending(ctx, s.db.bun, d, sender); err != nil {
		return nil, err
	}
	return &trust.Evaluation{Allowed: d.Allowed, Reason: d.Reason, ReasonCode: d.ReasonCode, RequiresApproval: d.RequiresApproval}, nil
}
