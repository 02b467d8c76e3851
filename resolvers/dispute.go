package resolvers

import (
	"context"

	"github.com/agenttrust/service/auth"
	"github.com/agenttrust/service/graph"
	"github.com/agenttrust/service/graph/model"
	"github.com/agenttrust/service/preload"
	"github.com/agenttrust/service/trust"
)

func (r *queryResolver) Dispute(ctx context.Context, id string) (*trust.Dispute, error) {
	p, err := auth.FromContext(ctx)
	if err != nil {
		return nil, err
	}
	return r.svc.Trust.Dispute(ctx, p, id)
}

func (r *queryResolver) Disputes(ctx context.Context, agentID *string, status *trust.DisputeStatus, limit *int, after *string, first, last *int, before *string) (*model.DisputeConnection, error) {
	p, err := auth.FromContext(ctx)
	if err != nil {
		return nil, err
	}
	w, err := window(ctx, limit, first, last, after, before)
	if err != nil {
		return nil, err
	}
	f := trust.DisputeFilter{AgentID: agentID, Status: status, Window: w,
		Fields: preload.Fields(ctx, "DisputeConnection", "DisputeEdge", "Dispute", "Node")}
	page, err := r.svc.Trust.Disputes(ctx, p, f)
	if err != nil {
		return nil, err
	}
	return &model.DisputeConnection{
		Nodes: page.Disputes, Filter: f,
		Edges: edges(selects(ctx, "edges"), page.Disputes, page.Cursors, func(c string, n *trust.Dispute) model.DisputeEdge {
			return model.DisputeEdge{Cursor: c, Node: n}
		}),
		PageInfo: connectionInfo(page.Cursors, page.EndCursor, page.HasNextPage, page.HasPreviousPage),
	}, nil
}

func (r *mutationResolver) ReportAgent(ctx context.Context, in model.ReportAgentInput) (*trust.Dispute, error) {
	p, err := auth.FromContext(ctx)
	if err != nil {
		return nil, err
	}
	return r.svc.Trust.Report(ctx, p, trust.ReportInput{AgentID: in.AgentID, Reason: in.Reason, EvidenceIDs: in.EvidenceIds})
}

func (r *mutationResolver) WithdrawDispute(ctx context.Context, id string) (*trust.Dispute, error) {
	p, err := auth.FromContext(ctx)
	if err != nil {
		return nil, err
	}
	return r.svc.Trust.Withdraw(ctx, p, id)
}

// DisputeConnection returns the DisputeConnection field resolver.
func (r *Resolver) DisputeConnection() graph.DisputeConnectionResolver {
	return &disputeConnectionResolver{r}
}

type disputeConnectionResolver struct{ *Resolver }

// TotalCount runs only when asked for, under the page's filter.
func (r *disputeConnectionResolver) TotalCount(ctx context.Context, c *model.DisputeConnection) (int, error) {
	p, err := auth.FromContext(ctx)
	if err != nil {
		return 0, err
	}
	return r.svc.Trust.CountDisputes(ctx, p, c.Filter)
}
