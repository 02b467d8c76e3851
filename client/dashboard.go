package client

import (
	"context"
	"time"

	"github.com/shopspring/decimal"
)

// LimitUsage is what one spend limit of an agent's policy has used now.
type LimitUsage struct {
	Window    LimitWindow     `json:"window"`
	Mode      WindowMode      `json:"mode"`
	Actions   []string        `json:"actions"`   // nil: every action
	Limit     decimal.Decimal `json:"limit"`     // after the trust tier that applies now
	Used      decimal.Decimal `json:"used"`      // completed outflow the window counts now
	Remaining decimal.Decimal `json:"remaining"` // Limit − Used, never below zero
	ResetsAt  *time.Time      `json:"resetsAt"`  // calendar windows: when the window ends
	FreesUpAt *time.Time      `json:"freesUpAt"` // rolling windows: when the oldest counted outflow leaves
}

// VelocityUsage is what one velocity limit has counted now.
type VelocityUsage struct {
	WindowSeconds int      `json:"windowSeconds"`
	Actions       []string `json:"actions"`
	MaxCount      int      `json:"maxCount"`
	Count         int      `json:"count"`
}

// PolicyUsage is how much of each limit of an agent's policy is used now,
// one entry per limit in the policy's order.
type PolicyUsage struct {
	SpendLimits    []LimitUsage    `json:"spendLimits"`
	VelocityLimits []VelocityUsage `json:"velocityLimits"`
}

const usageFields = `spendLimits { window mode actions limit used remaining resetsAt freesUpAt }
 velocityLimits { windowSeconds actions maxCount count }`

// PolicyUsage returns how much of each limit of the agent's policy is used
// at this moment, as the policy check counts it; a *NotFoundError for an
// unknown agent, a *ForbiddenError for an agent key's other agents.
func (s *AgentsService) PolicyUsage(ctx context.Context, agentID string) (*PolicyUsage, error) {
	var a struct {
		PolicyUsage PolicyUsage `json:"policyUsage"`
	}
	err := s.c.graphql(ctx, "agents.policyUsage", safe,
		`query($id: ID!) { agent(id: $id) { policyUsage { `+usageFields+` } } }`, map[string]any{"id": agentID}, "agent", &a)
	return ptrOrNil(&a.PolicyUsage, err)
}

// DashboardService reads what a dashboard draws: spend series and the overview counts.
type DashboardService struct{ c *Client }

// SpendBucket is the size of a spend series' buckets: whole UTC hours or days.
type SpendBucket string

// Bucket sizes.
const (
	BucketHour SpendBucket = "HOUR"
	BucketDay  SpendBucket = "DAY"
)

// SpendSeriesParams selects a spend series: one agent's (AgentID), or the
// organization's in Currency; buckets from the one holding Since to the one
// holding the moment before Until, at most 2,000.
type SpendSeriesParams struct {
	AgentID  string // "": every agent of the organization in Currency
	Currency string // required without AgentID
	Bucket   SpendBucket
	Since    time.Time
	Until    time.Time
	Action   string // "": every action
}

// SpendPoint is the completed outflow of one bucket [Start, Start+bucket).
type SpendPoint struct {
	Start  time.Time       `json:"start"`
	Amount decimal.Decimal `json:"amount"`
	Count  int             `json:"count"`
}

// SpendSeries returns completed outflow per bucket, every bucket present
// (zeros included). Bad parameters are a *ValidationError naming each.
func (s *DashboardService) SpendSeries(ctx context.Context, p SpendSeriesParams) ([]SpendPoint, error) {
	vars := map[string]any{"bucket": p.Bucket, "since": p.Since, "until": p.Until,
		"agent": nilIfEmpty(p.AgentID), "cur": nilIfEmpty(p.Currency), "action": nilIfEmpty(p.Action)}
	var out []SpendPoint
	err := s.c.graphql(ctx, "dashboard.spendSeries", safe,
		`query($agent: ID, $cur: String, $bucket: SpendBucket!, $since: Time!, $until: Time!, $action: String) {
 spendSeries(agentId: $agent, currency: $cur, bucket: $bucket, since: $since, until: $until, action: $action) { start amount count } }`,
		vars, "spendSeries", &out)
	return out, err
}

// Count is a count by key.
type Count struct {
	Key   string `json:"key"`
	Count int    `json:"count"`
}

// Overview is the counts a dashboard's first screen shows (admin and read-only keys).
type Overview struct {
	AgentsByStatus      []Count `json:"agentsByStatus"`      // active, suspended
	AgentsByAssessment  []Count `json:"agentsByAssessment"`  // Verified, Moderate, High Risk
	TransactionsLast24h []Count `json:"transactionsLast24h"` // every TransactionStatus
	PendingApprovals    int     `json:"pendingApprovals"`
	OpenDisputes        int     `json:"openDisputes"`
	WebhooksFailing     int     `json:"webhooksFailing"`
	WebhooksDisabled    int     `json:"webhooksDisabled"`
}

// Overview returns the organization's overview counts.
func (s *DashboardService) Overview(ctx context.Context) (*Overview, error) {
	var o Overview
	err := s.c.graphql(ctx, "dashboard.overview", safe,
		`{ overview { agentsByStatus { key count } agentsByAssessment { key count } transactionsLast24h { key count }
 pendingApprovals openDisputes webhooksFailing webhooksDisabled } }`, nil, "overview", &o)
	return ptrOrNil(&o, err)
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}
