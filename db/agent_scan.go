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
	if a.SpendingLimit, err = money.ParseAmount(limit); err != nil {
		return nil, 0, fmt.Errorf("scan agent %s: spending_limit: %w", a.ID, err)
	}
	if daily != nil {
		d, err := money.ParseAmount(*daily)
		if err != nil {
			return nil, 0, fmt.Errorf("scan agent %s: daily_limit: %w", a.ID, err)
		}
		a.DailyLimit = &d
	}
	a.CreatedAt, a.UpdatedAt = a.CreatedAt.UTC(), a.UpdatedAt.UTC()
	return &a, seq, nil
}
