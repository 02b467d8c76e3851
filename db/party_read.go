package db

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
)

// partyColumns are what the policy reads of an agent and its trust counters
// (party, agentRow.assessment), in scanParty's order; amounts come as text,
// the exact form money.ParseAmount reads.
const partyColumns = `a.id, a.org_id, a.authorized_actions, a.spending_limit::text, a.daily_limit::text, a.currency,
 a.environment, a.status, tc.evidence_at, tc.completed, tc.failures, tc.limit_refusals, tc.reversals, tc.disputing_orgs,
 tc.open_disputes, tc.counterparty_orgs, tc.first_external_at, tc.score, tc.assessment, tc.updated_at`

// partySQL reads up to two agents with their counters. It is one text for
// any number of ids, so pgx prepares it once per connection.
var partySQL = `SELECT ` + strings.Join(strings.Fields(partyColumns), " ") +
	` FROM agents AS a JOIN trust_counters AS tc ON tc.agent_id = a.id WHERE a.id = ANY($1::text[])`

// readParties reads the agents an evaluation names, with their counters,
// on the pgx read pool: what agentsFor reads for the policy, without the
// columns it does not use, in Postgres' binary format and from a prepared
// statement. evaluateTrust runs it on every call; bun's text parsing and
// reflective scanning cost it more CPU than the rest of the request.
// It takes no lock: an execute reads its parties with lockParties.
func (d *DB) readParties(ctx context.Context, ids ...string) (map[string]*agentRow, error) {
	rows, err := d.query(ctx, partySQL, ids)
	if err != nil {
		return nil, fmt.Errorf("read agents: %w", err)
	}
	defer rows.Close()
	out := make(map[string]*agentRow, len(ids))
	for rows.Next() {
		r, err := scanParty(rows)
		if err != nil {
			return nil, err
		}
		out[r.ID] = r
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read agents: %w", err)
	}
	return out, nil
}

func scanParty(rows pgx.Rows) (*agentRow, error) {
	var (
		r     agentRow
		limit string
		daily *string
		tc    = &r.TC
	)
	err := rows.Scan(&r.ID, &r.OrgID, &r.AuthorizedActions, &limit, &daily, (*string)(&r.Currency), &r.Environment, &r.Status,
		&tc.EvidenceAt, &tc.Completed, &tc.Failures, &tc.LimitRefusals, &tc.Reversals, &tc.DisputingOrgs,
		&tc.OpenDisputes, &tc.CounterpartyOrgs, &tc.FirstExternalAt, &tc.Score, &tc.Assessment, &tc.UpdatedAt)
	if err != nil {
		return nil, fmt.Errorf("scan agent: %w", err)
	}
	if r.SpendingLimit, r.DailyLimit, err = parseLimits(limit, daily); err != nil {
		return nil, fmt.Errorf("scan agent %s: %w", r.ID, err)
	}
	return &r, nil
}
