package db

import (
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/agenttrust/service/agent"
	"github.com/agenttrust/service/money"
)

// agentColumns are the columns scanAgent reads, in its order; amounts come
// as text, the exact form money.ParseAmount reads.
const agentColumns = "seq, id, org_id, name, authorized_actions, spending_limit::text, daily_limit::text, currency, environment, status, fingerprint, created_at, updated_at"

// scanAgent reads one row of agentColumns straight into the domain type: a
// page of agents is the service's commonest read, and bun's reflective
// scanning into agentRow and the copy out of it cost more than the query.
func scanAgent(rows pgx.Rows) (*agent.Agent, int64, error) {
	var (
		a     agent.Agent
		seq   int64
		limit string
		daily *string
	)
	err := rows.Scan(&seq, &a.ID, &a.OrgID, &a.Name, &a.AuthorizedActions, &limit, &daily,
		(*string)(&a.Currency), (*string)(&a.Environment), (*string)(&a.Status), &a.Fingerprint, &a.CreatedAt, &a.UpdatedAt)
	if err != nil {
		return nil, 0, fmt.Errorf("scan agent: %w", err)
	}
	if a.SpendingLimit, a.DailyLimit, err = parseLimits(limit, daily); err != nil {
		return nil, 0, fmt.Errorf("scan agent %s: %w", a.ID, err)
	}
	a.CreatedAt, a.UpdatedAt = a.CreatedAt.UTC(), a.UpdatedAt.UTC()
	return &a, seq, nil
}

func parseLimits(limit string, daily *string) (money.Amount, *money.Amount, error) {
	l, err := money.ParseAmount(limit)
	if err != nil {
		return money.Amount{}, nil, fmt.Errorf("spending_limit: %w", err)
	}
	if daily == nil {
		return l, nil, nil
	}
	d, err := money.ParseAmount(*daily)
	if err != nil {
		return money.Amount{}, nil, fmt.Errorf("daily_limit: %w", err)
	}
	return l, &d, nil
}
