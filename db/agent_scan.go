package db

import (
	"database/sql"
	"fmt"

	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/agenttrust/service/agent"
	"github.com/agenttrust/service/money"
)

// agentColumns are the columns scanAgent reads, in its order.
const agentColumns = "seq, id, org_id, name, authorized_actions, spending_limit, daily_limit, currency, environment, status, fingerprint, created_at, updated_at"

// scanAgent reads one row of agentColumns straight into the domain type: a
// page of agents is the service's commonest read, and bun's reflective
// scanning into agentRow and the copy out of it cost more than the query.
func scanAgent(rows *sql.Rows) (*agent.Agent, int64, error) {
	var (
		a     agent.Agent
		seq   int64
		daily sql.Null[money.Amount]
	)
	err := rows.Scan(&seq, &a.ID, &a.OrgID, &a.Name, pgdialect.Array(&a.AuthorizedActions), &a.SpendingLimit, &daily,
		(*string)(&a.Currency), (*string)(&a.Environment), (*string)(&a.Status), &a.Fingerprint, &a.CreatedAt, &a.UpdatedAt)
	if err != nil {
		return nil, 0, fmt.Errorf("scan agent: %w", err)
	}
	if daily.Valid {
		a.DailyLimit = &daily.V
	}
	a.CreatedAt, a.UpdatedAt = a.CreatedAt.UTC(), a.UpdatedAt.UTC()
	return &a, seq, nil
}
