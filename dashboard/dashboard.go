// Package dashboard holds the shapes of the reads a dashboard draws from:
// the overview counts and the spend series, with the series' input rules.
package dashboard

import (
	"context"
	"time"

	"github.com/agenttrust/service/auth"
	"github.com/agenttrust/service/money"
	"github.com/agenttrust/service/policy"
)

// CountByKey is a count of something (a status, an assessment) by key.
type CountByKey struct {
	Key   string
	Count int
}

// Overview is the counts a dashboard's first screen shows for one organization.
type Overview struct {
	AgentsByStatus      []CountByKey
	AgentsByAssessment  []CountByKey
	TransactionsLast24h []CountByKey
	PendingApprovals    int
	OpenDisputes        int
	WebhooksFailing     int
	WebhooksDisabled    int
}

// SpendPoint is the completed outflow of one bucket [Start, Start+bucket).
type SpendPoint struct {
	Start  time.Time
	Amount money.Amount
	Count  int
}

// Service answers the dashboard's reads for the principal's organization.
type Service interface {
	// Overview counts the organization's agents, recent transactions,
	// pending approvals, open disputes and failing or disabled webhook
	// endpoints.
	Overview(ctx context.Context, p auth.Principal) (*Overview, error)
	// SpendSeries sums completed outflow per bucket. Errors: ValidationFailed
	// (q.Validate, or a currency other than the agent's), NotFound (an agent
	// of another organization).
	SpendSeries(ctx context.Context, p auth.Principal, q SeriesQuery) ([]SpendPoint, error)
	// PolicyUsage is how much of each limit of the agent's policy is used
	// now. Errors: NotFound (an agent of another organization).
	PolicyUsage(ctx context.Context, p auth.Principal, agentID string) (*policy.Usage, error)
}
