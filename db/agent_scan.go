package db

import (
	"context"
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

// readAgentRows is agentsFor outside a transaction, on the read pool: the
// given agents with their stored trust assessment, by id.
func (d *DB) readAgentRows(ctx context.Context, ids ...string) (map[string]*agentRow, error) {
	rows, err := d.query(ctx, `SELECT a.seq, a.id, a.org_id, a.name, a.authorized_actions, a.spending_limit::text,
		a.daily_limit::text, a.currency, a.environment, a.status, a.fingerprint, a.audit_seq, a.audit_head,
		a.created_at, a.updated_at, tc.assessment
		FROM agents a JOIN trust_counters tc ON tc.agent_id = a.id WHERE a.id = ANY($1)`, ids)
	if err != nil {
		return nil, fmt.Errorf("read agents: %w", err)
	}
	defer rows.Close()
	out := make(map[string]*agentRow, len(ids))
	for rows.Next() {
		var (
			r     agentRow
			limit string
			daily *string
		)
		err := rows.Scan(&r.Seq, &r.ID, &r.OrgID, &r.Name, &r.AuthorizedActions, &limit, &daily, (*string)(&r.Currency),
			&r.Environment, &r.Status, &r.Fingerprint, &r.AuditSeq, &r.AuditHead, &r.CreatedAt, &r.UpdatedAt, &r.Assessment)
		if err != nil {
			return nil, fmt.Errorf("read agents: %w", err)
		}
		if r.SpendingLimit, r.DailyLimit, err = parseLimits(limit, daily); err != nil {
			return nil, fmt.Errorf("read agent %s: %w", r.ID, err)
		}
		out[r.ID] = &r
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read agents: %w", err)
	}
	return out, nil
}
