package resolvers

import (
	"context"
	"time"

	"github.com/agenttrust/service/agent"
	"github.com/agenttrust/service/auth"
	"github.com/agenttrust/service/graph/model"
	"github.com/agenttrust/service/paging"
)

// SimulatePolicy replays the agent's history under the proposed policy,
// charging the rate limit for the rows it reads.
func (r *queryResolver) SimulatePolicy(ctx context.Context, agentID string, in model.SpendPolicyInput, since time.Time, until *time.Time) (*agent.Simulation, error) {
	p, err := auth.FromContext(ctx)
	if err != nil {
		return nil, err
	}
	q := agent.SimulationQuery{AgentID: agentID, Policy: policyInput(in), Since: since, Until: until, Max: r.opts.SimulationMax}
	return r.svc.Simulations.SimulatePolicy(ctx, p, q, func(rows int) error { return r.opts.Meter(ctx, paging.Tokens(rows)) })
}
