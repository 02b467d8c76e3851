package resolvers

import (
	"context"

	"github.com/agenttrust/service/agent"
	"github.com/agenttrust/service/graph"
	"github.com/agenttrust/service/graph/model"
	"github.com/agenttrust/service/paging"
)

// Agent returns the Agent field resolver.
func (r *Resolver) Agent() graph.AgentResolver { return &agentResolver{r} }

type agentResolver struct{ *Resolver }

// AuditChain is batched: a page of agents loads every chain's page in one statement.
func (r *agentResolver) AuditChain(ctx context.Context, objs []*agent.Agent, after, limit *int) ([][]*agent.AuditEntry, error) {
	ids := make([]string, len(objs))
	for i, a := range objs {
		ids[i] = a.ID
	}
	chains, err := r.svc.Agents.AuditChains(ctx, ids, chainPage(after, limit))
	if err != nil {
		return nil, err
	}
	out := make([][]*agent.AuditEntry, len(objs))
	for i, a := range objs {
		out[i] = entryPointers(chains[a.ID])
	}
	return out, nil
}

func entryPointers(entries []agent.AuditEntry) []*agent.AuditEntry {
	out := make([]*agent.AuditEntry, len(entries))
	for i := range entries {
		out[i] = &entries[i]
	}
	return out
}

func (r *queryResolver) Agent(ctx context.Context, id string) (*agent.Agent, error) {
	return r.svc.Agents.Get(ctx, id)
}

func (r *queryResolver) Agents(ctx context.Context, status *agent.Status, limit *int, after *string) (*model.AgentConnection, error) {
	page, err := r.svc.Agents.List(ctx, listFilter(status, limit, after))
	if err != nil {
		return nil, err
	}
	return agentConnection(page, status), nil
}

func listFilter(status *agent.Status, limit *int, after *string) agent.ListFilter {
	return agent.ListFilter{Status: status, Limit: paging.Limit(limit), After: deref(after, "")}
}

func agentConnection(page *agent.Page, status *agent.Status) *model.AgentConnection {
	return &model.AgentConnection{Nodes: page.Agents, PageInfo: pageInfo(page.EndCursor, page.HasNextPage), Status: status}
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

func (r *mutationResolver) RegisterAgent(ctx context.Context, in model.RegisterAgentInput) (*agent.Agent, error) {
	return r.svc.Agents.Register(ctx, agent.RegisterInput{
		Name: in.Name, AuthorizedActions: in.AuthorizedActions, SpendingLimit: in.SpendingLimit,
		DailyLimit: in.DailyLimit, Currency: in.Currency, Environment: in.Environment,
	})
}

func (r *mutationResolver) UpdateAgent(ctx context.Context, id string, in model.UpdateAgentInput) (*agent.Agent, error) {
	daily, set := in.DailyLimit.ValueOK()
	return r.svc.Agents.Update(ctx, id, agent.UpdateInput{
		Name: in.Name, SpendingLimit: in.SpendingLimit, DailyLimit: daily, ClearDailyLimit: set && daily == nil,
	})
}

func (r *mutationResolver) SuspendAgent(ctx context.Context, id string, reason *string) (*agent.Agent, error) {
	return r.svc.Agents.Suspend(ctx, id, reason)
}

func (r *mutationResolver) ReinstateAgent(ctx context.Context, id string, reason *string) (*agent.Agent, error) {
	return r.svc.Agents.Reinstate(ctx, id, reason)
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
