package resolvers

import (
	"context"

	"github.com/agenttrust/service/agent"
	"github.com/agenttrust/service/auth"
	"github.com/agenttrust/service/graph"
	"github.com/agenttrust/service/graph/model"
	"github.com/agenttrust/service/preload"
	"github.com/agenttrust/service/trust"
)

func entryPointers(entries []agent.AuditEntry) []*agent.AuditEntry {
	out := make([]*agent.AuditEntry, len(entries))
	for i := range entries {
		out[i] = &entries[i]
	}
	return out
}

func (r *queryResolver) Agent(ctx context.Context, id string) (*preload.Agent, error) {
	p, err := auth.FromContext(ctx)
	if err != nil {
		return nil, err
	}
	a, err := r.svc.Agents.Get(ctx, p, id)
	return r.preloadAgent(ctx, p, a, err)
}

// Agents reads the page with what its nodes (and its edges' nodes) select
// read ahead: with trust, the page and its profiles in one statement.
func (r *queryResolver) Agents(ctx context.Context, status *agent.Status, limit *int, after *string, first, last *int, before *string) (*model.AgentConnection, error) {
	p, err := auth.FromContext(ctx)
	if err != nil {
		return nil, err
	}
	w, err := window(ctx, limit, first, last, after, before)
	if err != nil {
		return nil, err
	}
	sel := preload.OfNodes(ctx)
	f := agent.ListFilter{Status: status, Window: w, Fields: sel.Fields}
	var (
		page     *agent.Page
		profiles []*trust.Profile
	)
	if sel.Trust {
		page, profiles, err = r.svc.Trust.ListWithProfiles(ctx, p, f)
	} else {
		page, err = r.svc.Agents.List(ctx, p, f)
	}
	if err != nil {
		return nil, err
	}
	nodes, err := r.preloadAgents(ctx, p, page.Agents, profiles, sel)
	if err != nil {
		return nil, err
	}
	return &model.AgentConnection{
		Nodes: nodes, Status: status,
		Edges: edges(selects(ctx, "edges"), nodes, page.Cursors, func(c string, n *preload.Agent) model.AgentEdge {
			return model.AgentEdge{Cursor: c, Node: n}
		}),
		PageInfo: connectionInfo(page.Cursors, page.EndCursor, page.HasNextPage, page.HasPreviousPage),
	}, nil
}

func (r *queryResolver) VerifyAgent(ctx context.Context, id string) (*agent.Verification, error) {
	p, err := auth.FromContext(ctx)
	if err != nil {
		return nil, err
	}
	return r.svc.Agents.Verify(ctx, p, id)
}

func (r *queryResolver) AgentAuditChain(ctx context.Context, agentID string, after, limit *int) ([]*agent.AuditEntry, error) {
	p, err := auth.FromContext(ctx)
	if err != nil {
		return nil, err
	}
	chain, err := r.svc.Agents.AuditChain(ctx, p, agentID, preload.ChainPage(after, limit))
	if err != nil {
		return nil, err
	}
	return entryPointers(chain), nil
}

func (r *mutationResolver) RegisterAgent(ctx context.Context, in model.RegisterAgentInput) (*preload.Agent, error) {
	p, err := auth.FromContext(ctx)
	if err != nil {
		return nil, err
	}
	a, err := r.svc.Agents.Register(ctx, p, agent.RegisterInput{
		Name: in.Name, AuthorizedActions: in.AuthorizedActions, SpendingLimit: in.SpendingLimit,
		DailyLimit: in.DailyLimit, Currency: in.Currency, Environment: in.Environment,
	})
	return r.preloadAgent(ctx, p, a, err)
}

func (r *mutationResolver) UpdateAgent(ctx context.Context, id string, in model.UpdateAgentInput) (*preload.Agent, error) {
	p, err := auth.FromContext(ctx)
	if err != nil {
		return nil, err
	}
	daily, set := in.DailyLimit.ValueOK()
	a, err := r.svc.Agents.Update(ctx, p, id, agent.UpdateInput{
		Name: in.Name, SpendingLimit: in.SpendingLimit, DailyLimit: daily, ClearDailyLimit: set && daily == nil,
	})
	return r.preloadAgent(ctx, p, a, err)
}

func (r *mutationResolver) SuspendAgent(ctx context.Context, id string, reason *string) (*preload.Agent, error) {
	p, err := auth.FromContext(ctx)
	if err != nil {
		return nil, err
	}
	a, err := r.svc.Agents.Suspend(ctx, p, id, reason)
	return r.preloadAgent(ctx, p, a, err)
}

func (r *mutationResolver) ReinstateAgent(ctx context.Context, id string, reason *string) (*preload.Agent, error) {
	p, err := auth.FromContext(ctx)
	if err != nil {
		return nil, err
	}
	a, err := r.svc.Agents.Reinstate(ctx, p, id, reason)
	return r.preloadAgent(ctx, p, a, err)
}

// AgentConnection returns the AgentConnection field resolver.
func (r *Resolver) AgentConnection() graph.AgentConnectionResolver {
	return &agentConnectionResolver{r}
}

type agentConnectionResolver struct{ *Resolver }

// TotalCount runs only when asked for, under the page's filter.
func (r *agentConnectionResolver) TotalCount(ctx context.Context, c *model.AgentConnection) (int, error) {
	p, err := auth.FromContext(ctx)
	if err != nil {
		return 0, err
	}
	return r.svc.Agents.Count(ctx, p, c.Status)
}
