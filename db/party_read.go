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

// partySQL is the statement reading n agents with their counters, and with
// withKey also whether the API key (the last parameter) is live, for a
// request whose key is not yet confirmed (auth.Fold). The ids are scalar
// parameters (a.id = $1, a.id IN ($1, $2)), not one array: Postgres then
// estimates the rows of a generic plan as of a custom one and keeps the
// generic plan after the fifth call on a connection, with or without
// statistics. With = ANY($1::text[]) and tables not yet analyzed (a new
// database, a small organization), it planned every call afresh, which cost
// more than the read itself. pgx prepares each text once per connection;
// evaluateTrust has one or two ids, so there are four texts.
func partySQL(n int, withKey bool) string {
	if n <= 2 {
		return partyTexts[n-1][b2i(withKey)]
	}
	return partyText(n, withKey)
}

var partyTexts = [2][2]string{{partyText(1, false), partyText(1, true)}, {partyText(2, false), partyText(2, true)}}

func partyText(n int, withKey bool) string {
	var b strings.Builder
	b.WriteString(`SELECT `)
	b.WriteString(strings.Join(strings.Fields(partyColumns), " "))
	if withKey {
		fmt.Fprintf(&b, `, EXISTS (SELECT 1 FROM api_keys WHERE id = $%d AND revoked_at IS NULL)`, n+1)
	}
	b.WriteString(` FROM agents AS a JOIN trust_counters AS tc ON tc.agent_id = a.id WHERE a.id `)
	if n == 1 {
		b.WriteString(`= $1`)
		return b.String()
	}
	b.WriteString(`IN (`)
	for i := range n {
		if i > 0 {
			b.WriteString(`, `)
		}
		fmt.Fprintf(&b, `$%d`, i+1)
	}
	b.WriteString(`)`)
	return b.String()
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// readParties reads the agents an evaluation names, with their counters,
// on the pgx read pool: what agentsFor reads for the policy, without the
// columns it does not use, in Postgres' binary format and from a prepared
// statement. evaluateTrust runs it on every call; bun's text parsing and
// reflective scanning cost it more CPU than the rest of the request.
// It takes no lock: an execute reads its parties with lockParties. When the
// request's key is not yet confirmed, the same statement checks it (so the
// request needs no lookup of its own), and a revoked key is refused.
func (d *DB) readParties(ctx context.Context, ids ...string) (map[string]*agentRow, error) {
	if len(ids) == 0 {
		return map[string]*agentRow{}, nil
	}
	keyID := auth.Fold(ctx)
	args := make([]any, len(ids), len(ids)+1)
	for i, id := range ids {
		args[i] = id
	}
	if keyID != "" {
		args = append(args, keyID)
	}
	rows, err := d.query(ctx, partySQL(len(ids), keyID != ""), args...)
	if err != nil {
		return nil, fmt.Errorf("read agents: %w", err)
	}
	defer rows.Close()
	out := make(map[string]*agentRow, len(ids))
	live, raw := true, rawParties(rows, keyID != "")
	for rows.Next() {
		var (
			r   *agentRow
			err error
		)
		if raw {
			r, err = decodeParty(rows.RawValues(), keyID != "", &live)
		} else {
			r, err = scanParty(rows, keyID != "", &live)
		}
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

// scanParty reads one row of partyColumns through pgx's scan plans, and
// with withKey the key's liveness after them into live: decodeParty's
// reference, for rows not in the binary format.
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
