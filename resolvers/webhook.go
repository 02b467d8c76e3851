package resolvers

import (
	"context"

	"github.com/agenttrust/service/auth"
	"github.com/agenttrust/service/graph"
	"github.com/agenttrust/service/graph/model"
	"github.com/agenttrust/service/webhook"
)

// Webhook returns the Webhook field resolver.
func (r *Resolver) Webhook() graph.WebhookResolver { return &webhookResolver{r} }

type webhookResolver struct{ *Resolver }

// Deliveries is a batch resolver: gqlgen hands it every endpoint of a list
// at once, and their pages are read in one statement.
func (r *webhookResolver) Deliveries(ctx context.Context, eps []*webhook.Endpoint, limit *int, after *string, first, last *int, before *string) ([]*model.WebhookDeliveryConnection, error) {
	p, err := auth.FromContext(ctx)
	if err != nil {
		return nil, err
	}
	w, err := window(ctx, limit, first, last, after, before)
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(eps))
	for i, ep := range eps {
		ids[i] = ep.ID
	}
	pages, err := r.svc.Webhooks.DeliveryPages(ctx, p, ids, w)
	if err != nil {
		return nil, err
	}
	out := make([]*model.WebhookDeliveryConnection, len(pages))
	for i, page := range pages {
		out[i] = deliveryConnection(page)
	}
	return out, nil
}

// deliveryConnection is a page of an endpoint's attempts as the schema's
// connection, with its edges: a batch of pages resolves apart from any
// one connection's selection.
func deliveryConnection(page *webhook.DeliveryPage) *model.WebhookDeliveryConnection {
	nodes := make([]*webhook.Delivery, len(page.Deliveries))
	for i := range page.Deliveries {
		nodes[i] = &page.Deliveries[i]
	}
	return &model.WebhookDeliveryConnection{
		Nodes: nodes,
		Edges: edges(true, nodes, page.Cursors, func(c string, n *webhook.Delivery) model.WebhookDeliveryEdge {
			return model.WebhookDeliveryEdge{Cursor: c, Node: n}
		}),
		PageInfo: connectionInfo(page.Cursors, page.NextCursor, page.NextCursor != "", page.HasPreviousPage),
	}
}

func (r *queryResolver) Webhooks(ctx context.Context) ([]*webhook.Endpoint, error) {
	p, err := auth.FromContext(ctx)
	if err != nil {
		return nil, err
	}
	eps, err := r.svc.Webhooks.List(ctx, p)
	if err != nil {
		return nil, err
	}
	out := make([]*webhook.Endpoint, len(eps))
	for i := range eps {
		out[i] = &eps[i]
	}
	return out, nil
}

func (r *queryResolver) Webhook(ctx context.Context, id string) (*webhook.Endpoint, error) {
	p, err := auth.FromContext(ctx)
	if err != nil {
		return nil, err
	}
	return r.svc.Webhooks.Get(ctx, p, id)
}

func (r *mutationResolver) RegisterWebhook(ctx context.Context, in model.RegisterWebhookInput) (*webhook.Endpoint, error) {
	p, err := auth.FromContext(ctx)
	if err != nil {
		return nil, err
	}
	return r.svc.Webhooks.Register(ctx, p, webhook.RegisterInput{URL: in.URL, Events: in.Events})
}

func (r *mutationResolver) UpdateWebhook(ctx context.Context, id string, in model.UpdateWebhookInput) (*webhook.Endpoint, error) {
	p, err := auth.FromContext(ctx)
	if err != nil {
		return nil, err
	}
	return r.svc.Webhooks.Update(ctx, p, id, webhook.UpdateInput{URL: in.URL, Events: in.Events, Active: in.Active})
}

func (r *mutationResolver) DeleteWebhook(ctx context.Context, id string) (bool, error) {
	p, err := auth.FromContext(ctx)
	if err != nil {
		return false, err
	}
	if err := r.svc.Webhooks.Delete(ctx, p, id); err != nil {
		return false, err
	}
	return true, nil
}

func (r *mutationResolver) TestWebhook(ctx context.Context, id string) (*webhook.TestResult, error) {
	p, err := auth.FromContext(ctx)
	if err != nil {
		return nil, err
	}
	return r.svc.Webhooks.Test(ctx, p, id)
}

func (r *mutationResolver) RotateWebhookSecret(ctx context.Context, id string) (*webhook.Endpoint, error) {
	p, err := auth.FromContext(ctx)
	if err != nil {
		return nil, err
	}
	return r.svc.Webhooks.RotateSecret(ctx, p, id)
}

func (r *mutationResolver) RedeliverEvent(ctx context.Context, webhookID, eventID string) (bool, error) {
	p, err := auth.FromContext(ctx)
	if err != nil {
		return false, err
	}
	if err := r.svc.Webhooks.Redeliver(ctx, p, webhookID, eventID); err != nil {
		return false, err
	}
	return true, nil
}
