package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/agenttrust/service/agent"
	"github.com/agenttrust/service/auth"
	"github.com/agenttrust/service/dashboard"
	"github.com/agenttrust/service/failure"
	"github.com/agenttrust/service/money"
	"github.com/agenttrust/service/policy"
	"github.com/agenttrust/service/transaction"
	"github.com/agenttrust/service/trust"
)

// DashboardService answers the dashboard's reads: the overview counts, spend
// series and policy usage. It changes nothing.
type DashboardService struct{ db *DB }

// NewDashboardService returns the dashboard service.
func NewDashboardService(d *DB) *DashboardService { return &DashboardService{db: d} }

var _ dashboard.Service = (*DashboardService)(nil)

// PolicyUsage reads the agent with its counters and the outflow its policy
// counts, as evaluateTrust does, and reports each limit's use at now.
func (s *DashboardService) PolicyUsage(ctx context.Context, p auth.Principal, agentID string) (*policy.Usage, error) {
	agents, err := s.db.readParties(ctx, agentID)
	if err != nil {
		return nil, err
	}
	a := agents[agentID]
	if a == nil || a.OrgID != p.OrgID {
		return nil, agentNotFound(agentID)
	}
	now := s.db.Now()
	in := policy.Input{Sender: party(a, now), Now: now}
	if in.Outflow, err = spendHistory(ctx, s.db.bun, in.Sender, now, false); err != nil {
		return nil, err
	}
	u := policy.UsageAt(in)
	return &u, nil
}

// SpendSeries sums the hourly or daily outflow buckets per bucket of q: one
// agent's, or every agent's of the organization in q's currency.
func (s *DashboardService) SpendSeries(ctx context.Context, p auth.Principal, q dashboard.SeriesQuery) ([]dashboard.SpendPoint, error) {
	if err := q.Validate(); err != nil {
		return nil, err
	}
	var cur money.Currency
	if q.Currency != nil {
		cur, _ = money.ParseCurrency(*q.Currency) // Validate checked it
	}
	if q.AgentID != nil {
		var own struct {
			Currency money.Currency `bun:"currency"`
		}
		err := s.db.bun.NewSelect().Table("agents").Column("currency").
			Where("id = ? AND org_id = ?", *q.AgentID, p.OrgID).Scan(ctx, &own)
		if errors.Is(err, sql.ErrNoRows) {
			return nil, agentNotFound(*q.AgentID)
		}
		if err != nil {
			return nil, fmt.Errorf("read agent: %w", err)
		}
		if q.Currency != nil && cur != own.Currency {
			return nil, failure.Invalid("currency", "agent %s transacts in %s, not %s", *q.AgentID, own.Currency, cur)
		}
		cur = own.Currency
	}
	var sums []dashboard.SpendPoint
	last := q.First().Add(time.Duration(q.Buckets()) * q.Bucket.Step())
	query := hourSeriesSQL
	if q.Bucket == dashboard.Day {
		query = daySeriesSQL
	}
	err := s.db.bun.NewRaw(query, money.MaxAmount, p.OrgID, string(cur), q.AgentID, q.First(), last, q.Action).Scan(ctx, &sums)
	if err != nil {
		return nil, fmt.Errorf("read spend series: %w", err)
	}
	return q.Fill(sums), nil
}

// hourSeriesSQL and daySeriesSQL sum the hourly or daily outflow buckets
// per bucket (seriesSQL).
var hourSeriesSQL, daySeriesSQL = seriesSQL("agent_outflow_hours", "hour"), seriesSQL("agent_outflow_days", "day")

// seriesSQL sums the buckets of table (keyed by column) per bucket, capped
// at ?0, of the agents of organization ?1 in currency ?2 (only agent ?3
// unless NULL), in [?4, ?5), of action ?6 unless NULL. Each agent's buckets
// are an index range scan of its own (OFFSET 0 keeps the planner from
// scanning every organization's buckets instead), so the cost follows the
// organization's agents and the buckets asked for, never the transactions
// they hold.
func seriesSQL(table, column string) string {
	return strings.NewReplacer("TABLE", table, "BUCKET", column).Replace(`
SELECT b.BUCKET AS start, least(sum(b.amount), ?0::numeric) AS amount, sum(b.count)::int AS count
  FROM agents AS a, LATERAL (
       SELECT BUCKET, amount, count FROM TABLE
        WHERE agent_id = a.id AND BUCKET >= ?4 AND BUCKET < ?5 AND (?6::text IS NULL OR action = ?6)
       OFFSET 0) AS b
 WHERE a.org_id = ?1 AND a.currency = ?2 AND (?3::text IS NULL OR a.id = ?3)
 GROUP BY b.BUCKET`)
}

// Overview counts the organization's agents (by status, and by assessment
// at now computed from their counters as every trust read does), its
// transactions of the last 24 hours by status, and its pending approvals,
// open disputes and failing or disabled webhook endpoints: three statements,
// none of which reads more than the organization's agents, its last day's
// transactions, or its open disputes and endpoints.
func (s *DashboardService) Overview(ctx context.Context, p auth.Principal) (*dashboard.Overview, error) {
	now := s.db.Now()
	o := &dashboard.Overview{}
	var err error
	if o.AgentsByStatus, o.AgentsByAssessment, err = s.agentCounts(ctx, p.OrgID, now); err != nil {
		return nil, err
	}
	var byStatus []dashboard.CountByKey
	if err := s.db.bun.NewRaw(recentTransactionsSQL, p.OrgID, now.Add(-24*time.Hour)).Scan(ctx, &byStatus); err != nil {
		return nil, fmt.Errorf("count recent transactions: %w", err)
	}
	o.TransactionsLast24h = withZeros(byStatus, transaction.Completed, transaction.Reversed,
		transaction.PendingApproval, transaction.Declined, transaction.Expired)
	err = s.db.bun.NewRaw(openItemsSQL, p.OrgID).Scan(ctx, &o.PendingApprovals, &o.OpenDisputes, &o.WebhooksFailing, &o.WebhooksDisabled)
	if err != nil {
		return nil, fmt.Errorf("count open items: %w", err)
	}
	return o, nil
}

// agentCounts reads every agent's status and trust counters of org in one
// statement and counts them by status and by assessment at now.
func (s *DashboardService) agentCounts(ctx context.Context, orgID string, now time.Time) (byStatus, byAssessment []dashboard.CountByKey, err error) {
	var rows []agentRow
	err = s.db.bun.NewSelect().Model(&rows).Column("agent_row.status").ColumnExpr(scoreColumns).
		Join("JOIN trust_counters AS tc ON tc.agent_id = agent_row.id").Where("agent_row.org_id = ?", orgID).Scan(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("count agents: %w", err)
	}
	statuses := map[string]int{}
	assessments := map[string]int{}
	for _, r := range rows {
		statuses[r.Status]++
		assessments[trust.Compute(r.trustOf(), now).Assessment]++
	}
	return counted(statuses, string(agent.Active), string(agent.Suspended)),
		counted(assessments, trust.Verified, trust.Moderate, trust.HighRisk), nil
}

// recentTransactionsSQL counts by status the transactions created since ?1
// that organization ?0 sent, and those it received that its side may see
// (completed or reversed); a transaction between two of its own agents
// counts once.
const recentTransactionsSQL = `
SELECT status AS key, count(*)::int AS count FROM (
  SELECT status FROM transactions WHERE from_org = ?0 AND created_at >= ?1
  UNION ALL
  SELECT status FROM transactions
   WHERE to_org = ?0 AND from_org <> ?0 AND created_at >= ?1 AND status IN ('completed', 'reversed')
) AS t GROUP BY status`

// openItemsSQL counts organization ?0's pending approvals, open disputes
// (filed by it or against its agents) and failing and disabled endpoints,
// each from an index of the open items alone.
const openItemsSQL = `
SELECT (SELECT count(*) FROM transactions WHERE from_org = ?0 AND status = 'pending_approval')::int,
       (SELECT count(*) FROM disputes WHERE status = 'open' AND (reporter_org = ?0 OR agent_org = ?0))::int,
       (SELECT count(*) FROM webhooks WHERE org_id = ?0 AND active AND consecutive_failures > 0)::int,
       (SELECT count(*) FROM webhooks WHERE org_id = ?0 AND NOT active)::int`

// counted lists counts in the order of keys, zeros included.
func counted(counts map[string]int, keys ...string) []dashboard.CountByKey {
	out := make([]dashboard.CountByKey, len(keys))
	for i, k := range keys {
		out[i] = dashboard.CountByKey{Key: k, Count: counts[k]}
	}
	return out
}

// withZeros lists the counts read for each status in order, zeros included.
func withZeros(read []dashboard.CountByKey, statuses ...transaction.Status) []dashboard.CountByKey {
	counts := make(map[string]int, len(read))
	for _, c := range read {
		counts[c.Key] = c.Count
	}
	keys := make([]string, len(statuses))
	for i, st := range statuses {
		keys[i] = string(st)
	}
	return counted(counts, keys...)
}
