package resolvers

import (
	"context"
	"time"

	"github.com/agenttrust/service/auth"
	"github.com/agenttrust/service/graph"
	"github.com/agenttrust/service/graph/model"
	"github.com/agenttrust/service/paging"
	"github.com/agenttrust/service/preload"
	"github.com/agenttrust/service/transaction"
)

func (r *queryResolver) Transaction(ctx context.Context, id string) (*transaction.Transaction, error) {
	p, err := auth.FromContext(ctx)
	if err != nil {
		return nil, err
	}
	return r.svc.Transactions.Get(ctx, p, id)
}

func (r *queryResolver) Transactions(ctx context.Context, agentID *string, status *transaction.Status, limit *int, after *string, first, last *int, before *string) (*model.TransactionConnection, error) {
	p, err := auth.FromContext(ctx)
	if err != nil {
		return nil, err
	}
	w, err := window(ctx, limit, first, last, after, before)
	if err != nil {
		return nil, err
	}
	f := transaction.ListFilter{AgentID: agentID, Status: status, Window: w,
		Fields: preload.Fields(ctx, "TransactionConnection", "TransactionEdge", "Transaction", "Node")}
	page, err := r.svc.Transactions.List(ctx, p, f)
	if err != nil {
		return nil, err
	}
	return &model.TransactionConnection{
		Nodes: page.Transactions, Filter: f,
		Edges: edges(selects(ctx, "edges"), page.Transactions, page.Cursors, func(c string, n *transaction.Transaction) model.TransactionEdge {
			return model.TransactionEdge{Cursor: c, Node: n}
		}),
		PageInfo: connectionInfo(page.Cursors, page.EndCursor, page.HasNextPage, page.HasPreviousPage),
	}, nil
}

func (r *queryResolver) ExportTransactions(ctx context.Context, format transaction.Format, since, until *time.Time) (*transaction.Export, error) {
	p, err := auth.FromContext(ctx)
	if err != nil {
		return nil, err
	}
	rng := transaction.ExportRange{Since: since, Until: until}
	return transaction.Collect(format, r.opts.ExportMaxBytes, func(each func([]*transaction.Transaction) error) error {
		return r.svc.Transactions.Export(ctx, p, rng, func(batch []*transaction.Transaction) error {
			if err := r.opts.Meter(ctx, paging.Tokens(len(batch))); err != nil {
				return err
			}
			return each(batch)
		})
	})
}

func (r *mutationResolver) ExecuteTransaction(ctx context.Context, in model.ExecuteTransactionInput) (*transaction.Transaction, error) {
	p, err := auth.FromContext(ctx)
	if err != nil {
		return nil, err
	}
	return r.svc.Transactions.Execute(ctx, p, transaction.ExecuteInput{
		FromAgent: in.FromAgent, ToAgent: in.ToAgent, Action: in.Action, Amount: in.Amount,
		Currency: in.Currency, Memo: in.Memo, IdempotencyKey: in.IdempotencyKey, MandateID: in.MandateID,
	})
}

func (r *mutationResolver) ReverseTransaction(ctx context.Context, id, reason string) (*transaction.Transaction, error) {
	p, err := auth.FromContext(ctx)
	if err != nil {
		return nil, err
	}
	return r.svc.Transactions.Reverse(ctx, p, id, reason)
}

func (r *mutationResolver) ApproveTransaction(ctx context.Context, id string) (*transaction.Transaction, error) {
	p, err := auth.FromContext(ctx)
	if err != nil {
		return nil, err
	}
	return r.svc.Transactions.Approve(ctx, p, id)
}

func (r *mutationResolver) DeclineTransaction(ctx context.Context, id, reason string) (*transaction.Transaction, error) {
	p, err := auth.FromContext(ctx)
	if err != nil {
		return nil, err
	}
	return r.svc.Transactions.Decline(ctx, p, id, reason)
}

// TransactionConnection returns the TransactionConnection field resolver.
func (r *Resolver) TransactionConnection() graph.TransactionConnectionResolver {
	return &transactionConnectionResolver{r}
}

type transactionConnectionResolver struct{ *Resolver }

// TotalCount runs only when asked for, under the page's filter.
func (r *transactionConnectionResolver) TotalCount(ctx context.Context, c *model.TransactionConnection) (int, error) {
	p, err := auth.FromContext(ctx)
	if err != nil {
		return 0, err
	}
	return r.svc.Transactions.Count(ctx, p, c.Filter)
}
