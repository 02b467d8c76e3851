package resolvers

import (
	"context"

	"github.com/agenttrust/service/agent"
	"github.com/agenttrust/service/graph"
	"github.com/agenttrust/service/graph/model"
	"github.com/agenttrust/service/paging"
	"github.com/agenttrust/service/resolvers/preload"
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
	a, err := r.svc.Agents.Get(ctx, id)
	return r.preloadAgent(ctx, a, err)
}

// Agents reads the page with what its nodes select read ahead: with trust,
// the page and its profiles in one statement.
func (r *queryResolver) Agents(ctx context.Context, status *agent.Status, limit *int, after *string) (*model.AgentConnection, error) {
	sel := preload.OfNodes(ctx)
	var (
		page     *agent.Page
		profiles []*trust.Profile
		err      error
	)
	if sel.Trust {
		page, profiles, err = r.svc.Trust.ListWithProfiles(ctx, listFilter(status, limit, after))
	} else {
		page, err = r.svc.Agents.List(ctx, listFilter(status, limit, after))
	}
	if err != nil {
		return nil, err
	}
	nodes, err := r.preloadAgents(ctx, page.Agents, profiles, sel)
	if err != nil {
		return nil, err
	}
	return &model.AgentConnection{Nodes: nodes, PageInfo: pageInfo(page.EndCursor, page.HasNextPage), Status: status}, nil
}

func listFilter(status *agent.Status, limit *int, after *string) agent.ListFilter {
	return agent.ListFilter{Status: status, Limit: paging.Limit(limit), After: deref(after, "")}
}

func (r *queryResolver) VerifyAgent(ctx context.Context, id string) (*agent.Verification, error) {
	return r.svc.Agents.Verify(ctx, id)
}

func chainPage(after, limit *int) agent.ChainPage {
	return agent.ChainPage{After: deref(after, 0), Limit: deref(limit, agent.DefaultChainPage)}
}

func (r *queryResolver) AgentAuditChain(ctx context.Context, agentID string, after, limit *int) ([]*agent.AuditEntry, error) {
	chain, err := r.svc.Agents.AuditChain(ctx, agentID, chainPage(after, limit))
	if err != nil {
		return nil, err
	}
	return entryPointers(chain), nil
}

func (r *mutationResolver) RegisterAgent(ctx context.Context, in model.RegisterAgentInput) (*preload.Agent, error) {
	a, err := r.svc.Agents.Register(ctx, agent.RegisterInput{
		Name: in.Name, AuthorizedActions: in.AuthorizedActions, SpendingLimit: in.SpendingLimit,
		DailyLimit: in.DailyLimit, Currency: in.Currency, Environment: in.Environment,
	})
	return r.preloadAgent(ctx, a, err)
}

func (r *mutationResolver) UpdateAgent(ctx context.Context, id string, in model.UpdateAgentInput) (*preload.Agent, error) {
	daily, set := in.DailyLimit.ValueOK()
	a, err := r.svc.Agents.Update(ctx, id, agent.UpdateInput{
		Name: in.Name, SpendingLimit: in.SpendingLimit, DailyLimit: daily, ClearDailyLimit: set && daily == nil,
	})
	return r.preloadAgent(ctx, a, err)
}

func (r *mutationResolver) SuspendAgent(ctx context.Context, id string, reason *string) (*preload.Agent, error) {
	a, err := r.svc.Agents.Suspend(ctx, id, reason)
	return r.preloadAgent(ctx, a, err)
}

func (r *mutationResolver) ReinstateAgent(ctx context.Context, id string, reason *string) (*preload.Agent, error) {
	a, err := r.svc.Agents.Reinstate(ctx, id, reason)
	return r.preloadAgent(ctx, a, err)
}

// AgentConnection returns the AgentConnection field resolver.
func (r *Resolver) AgentConnection() graph.AgentConnectionResolver {
	return &agentConnectionResolver{r}
}

type agentConnectionResolver struct{ *Resolver }

// TotalCount runs only when asked for, under the page's filter.
func (r *agentConnectionResolver) TotalCount(ctx context.Context, c *model.AgentConnection) (int, error) {
	return r.svc.Agents.Count(ctx, c.Status)
}
