package resolvers

import (
	"context"

	"github.com/agenttrust/service/auth"
	"github.com/agenttrust/service/graph"
	"github.com/agenttrust/service/graph/model"
	"github.com/agenttrust/service/mandate"
)

func (r *queryResolver) Mandate(ctx context.Context, id string) (*mandate.Mandate, error) {
	p, err := auth.FromContext(ctx)
	if err != nil {
		return nil, err
	}
	return r.svc.Mandates.Get(ctx, p, id)
}

func (r *queryResolver) Mandates(ctx context.Context, agentID *string, status *mandate.Status, limit *int, after *string, first, last *int, before *string) (*model.MandateConnection, error) {
	p, err := auth.FromContext(ctx)
	if err != nil {
		return nil, err
	}
	w, err := window(ctx, limit, first, last, after, before)
	if err != nil {
		return nil, err
	}
	f := mandate.Filter{AgentID: agentID, Status: status, Window: w}
	page, err := r.svc.Mandates.List(ctx, p, f)
	if err != nil {
		return nil, err
	}
	return &model.MandateConnection{
		Nodes: page.Mandates, Filter: f,
		Edges: edges(selects(ctx, "edges"), page.Mandates, page.Cursors, func(c string, n *mandate.Mandate) model.MandateEdge {
			return model.MandateEdge{Cursor: c, Node: n}
		}),
		PageInfo: connectionInfo(page.Cursors, page.EndCursor, page.HasNextPage, page.HasPreviousPage),
	}, nil
}

func (r *mutationResolver) CreateMandate(ctx context.Context, in model.CreateMandateInput) (*mandate.Mandate, error) {
	p, err := auth.FromContext(ctx)
	if err != nil {
		return nil, err
	}
	return r.svc.Mandates.Create(ctx, p, mandate.CreateInput{AgentID: in.AgentID, Description: in.Description,
		Actions: in.Actions, CounterpartyAgents: in.CounterpartyAgents, CounterpartyOrgs: in.CounterpartyOrgs,
		MaxPerTransaction: in.MaxPerTransaction, Budget: in.Budget, MaxUses: in.MaxUses,
		NotBefore: in.NotBefore, ExpiresAt: in.ExpiresAt})
}

func (r *mutationResolver) RevokeMandate(ctx context.Context, id string, reason *string) (*mandate.Mandate, error) {
	p, err := auth.FromContext(ctx)
	if err != nil {
		return nil, err
	}
	return r.svc.Mandates.Revoke(ctx, p, id, reason)
}

// MandateConnection returns the MandateConnection field resolver.
func (r *Resolver) MandateConnection() graph.MandateConnectionResolver {
	return &mandateConnectionResolver{r}
}

type mandateConnectionResolver struct{ *Resolver }

// TotalCount runs only when asked for, under the page's filter.
func (r *mandateConnectionResolver) TotalCount(ctx context.Context, c *model.MandateConnection) (int, error) {
	p, err := auth.FromContext(ctx)
	if err != nil {
		return 0, err
	}
	return r.svc.Mandates.Count(ctx, p, c.Filter)
}
