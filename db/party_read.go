package db

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/agenttrust/service/auth"
)

// partyColumns are what the policy reads of an agent and its trust counters
// (party, agentRow.assessment), in scanParty's order; amounts come as text,
// the exact form money.ParseAmount reads.
const partyColumns = `a.id, a.org_id, a.authorized_actions, a.spending_limit::text, a.daily_limit::text, a.currency,
 a.environment, a.status, tc.evidence_at, tc.completed, tc.failures, tc.limit_refusals, tc.reversals, tc.disputing_orgs,
 tc.open_disputes, tc.counterparty_orgs, tc.first_external_at, tc.score, tc.assessment, tc.updated_at`

// partySQL reads agents with their counters. It is one text for any number
// of ids, so pgx prepares it once per connection; partyKeySQL also says
// whether the API key $2 is live, for a request whose key is not yet
// confirmed (auth.Fold).
var (
	partySQL = `SELECT ` + strings.Join(strings.Fields(partyColumns), " ") +
		` FROM agents AS a JOIN trust_counters AS tc ON tc.agent_id = a.id WHERE a.id = ANY($1::text[])`
	partyKeySQL = `SELECT ` + strings.Join(strings.Fields(partyColumns), " ") +
		`, EXISTS (SELECT 1 FROM api_keys WHERE id = $2 AND revoked_at IS NULL)` +
		` FROM agents AS a JOIN trust_counters AS tc ON tc.agent_id = a.id WHERE a.id = ANY($1::text[])`
)

// readParties reads the agents an evaluation names, with their counters,
// on the pgx read pool: what agentsFor reads for the policy, without the
// columns it does not use, in Postgres' binary format and from a prepared
// statement. evaluateTrust runs it on every call; bun's text parsing and
// reflective scanning cost it more CPU than the rest of the request.
// It takes no lock: an execute reads its parties with lockParties. When the
// request's key is not yet confirmed, the same statement checks it (so the
// request needs no lookup of its own), and a revoked key is refused.
func (d *DB) readParties(ctx context.Context, ids ...string) (map[string]*agentRow, error) {
	keyID := auth.Fold(ctx)
	var (
		rows pgx.Rows
		err  error
	)
	if keyID == "" {
		rows, err = d.query(ctx, partySQL, ids)
	} else {
		rows, err = d.query(ctx, partyKeySQL, ids, keyID)
	}
	if err != nil {
		return nil, fmt.Errorf("read agents: %w", err)
	}
	defer rows.Close()
	out := make(map[string]*agentRow, len(ids))
	live := true
	for rows.Next() {
		r, err := scanParty(rows, keyID != "", &live)
		if err != nil {
			return nil, err
		}
		out[r.ID] = r
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read agents: %w", err)
	}
	if keyID != "" && len(out) > 0 { // with no row, the statement said nothing about the key
		auth.Confirm(ctx, live)
		if !live {
			return nil, auth.Revoked()
		}
	}
	return out, nil
}

// scanParty reads one row of partyColumns, and with withKey the key's
// liveness after them into live.
func scanParty(rows pgx.Rows, withKey bool, live *bool) (*agentRow, error) {
	var (
		r     agentRow
		limit string
		daily *string
		tc    = &r.TC
	)
	dest := []any{&r.ID, &r.OrgID, &r.AuthorizedActions, &limit, &daily, (*string)(&r.Currency), &r.Environment, &r.Status,
		&tc.EvidenceAt, &tc.Completed, &tc.Failures, &tc.LimitRefusals, &tc.Reversals, &tc.DisputingOrgs,
		&tc.OpenDisputes, &tc.CounterpartyOrgs, &tc.FirstExternalAt, &tc.Score, &tc.Assessment, &tc.UpdatedAt}
	if withKey {
		dest = append(dest, live)
	}
	err := rows.Scan(dest...)
	if err != nil {
		return nil, fmt.Errorf("scan agent: %w", err)
	}
	if r.SpendingLimit, r.DailyLimit, err = parseLimits(limit, daily); err != nil {
		return nil, fmt.Errorf("scan agent %s: %w", r.ID, err)
	}
	return &r, nil
}
