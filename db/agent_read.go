package db

import (
	"context"
	"fmt"
	"slices"

	"github.com/agenttrust/service/agent"
	"github.com/agenttrust/service/auth"
	"github.com/agenttrust/service/trust"
)

// agentColumns are the agents columns holding each field of the API's Agent
// (agent.ListFilter.Fields), in the order a page reads them; org_id, no
// field's, is read when every field is.
var agentColumns = fieldColumns{
	{"name", []string{"name"}}, {"authorizedActions", []string{"authorized_actions"}},
	{"spendingLimit", []string{"spending_limit"}}, {"dailyLimit", []string{"daily_limit"}},
	{"policy", []string{"policy", "daily_limit"}}, {"currency", []string{"currency"}},
	{"environment", []string{"environment"}}, {"status", []string{"status"}},
	{"fingerprint", []string{"fingerprint"}}, {"createdAt", []string{"created_at"}},
	{"updatedAt", []string{"updated_at"}}, {"", []string{"org_id"}},
}

// pageColumns are the columns a page of agents reads: seq (its cursor), id,
// those of fields (nil: all of the domain's agent), and withTrust the
// status the score counts.
func pageColumns(fields []string, withTrust bool) []string {
	if withTrust && fields != nil {
		fields = append(slices.Clip(fields), "status")
	}
	return agentColumns.of(fields, "agent_row.", "seq", "id")
}

// listAgents reads a page of the caller's agents in one statement, only
// the columns f.Fields asks for, and with withTrust each one's trust
// counters too (primary-key lookups beside the page's rows), scored at the
// current time (profiles[i] is page.Agents[i]'s, nil for an agent without
// counters). A backward page is read oldest first from its cursor and put
// newest first.
func (d *DB) listAgents(ctx context.Context, p auth.Principal, f agent.ListFilter, withTrust bool) (*agent.Page, []*trust.Profile, error) {
	if err := checkLimit(f.Limit); err != nil {
		return nil, nil, err
	}
	cursors := d.cursors(p.OrgID, agentList)
	rows := make([]agentRow, 0, f.Limit+1) // bun appends to it: grown row by row, the rows would be copied
	q := d.bun.NewSelect().Model(&rows).Column(pageColumns(f.Fields, withTrust)...).Where("agent_row.org_id = ?", p.OrgID)
	if f.Status != nil {
		q = q.Where("agent_row.status = ?", string(*f.Status))
	}
	if withTrust {
		trustCols := scoreColumns
		if f.Fields != nil && !slices.Contains(f.Fields, "trust.updatedAt") {
			trustCols = counterColumns
		}
		q = q.ColumnExpr(trustCols).Join("LEFT JOIN trust_counters AS tc ON tc.agent_id = agent_row.id")
	}
	q, err := seqWindow(q, f.Window, cursors)
	if err != nil {
		return nil, nil, err
	}
	if err := q.Scan(ctx); err != nil {
		return nil, nil, fmt.Errorf("list agents: %w", err)
	}
	rows, end := finishPage(rows, f.Window, func(r agentRow) string { return cursors.seq(r.Seq) })
	page := &agent.Page{Agents: agentsOf(rows), Cursors: end.cursors, EndCursor: end.endCursor,
		HasNextPage: end.hasNext, HasPreviousPage: end.hasPrevious}
	if !withTrust {
		return page, nil, nil
	}
	now := d.Now()
	profiles := make([]*trust.Profile, len(rows))
	scored := make([]trust.Profile, len(rows)) // one allocation for every profile
	for i := range rows {
		if r := &rows[i]; r.hasCounters() {
			scored[i] = trust.NewProfile(r.ID, r.trustOf(), now, r.TC.UpdatedAt.UTC())
			profiles[i] = &scored[i]
		}
	}
	return page, profiles, nil
}

// agentsOf is rows as the domain's agents, in one allocation.
func agentsOf(rows []agentRow) []*agent.Agent {
	slab := make([]agent.Agent, len(rows))
	out := make([]*agent.Agent, len(rows))
	for i := range rows {
		rows[i].fill(&slab[i])
		out[i] = &slab[i]
	}
	return out
}

// readParties reads the agents an evaluation names, with their counters:
// what agentsFor reads for the policy, without locking anything (an
// execute reads its parties with lockParties).
func (d *DB) readParties(ctx context.Context, ids ...string) (map[string]*agentRow, error) {
	rows := make([]agentRow, 0, len(ids))
	if len(ids) > 0 {
		if err := agentsFor(d.bun, &rows, ids...).Scan(ctx); err != nil {
			return nil, fmt.Errorf("read agents: %w", err)
		}
	}
	return byID(rows), nil
}
