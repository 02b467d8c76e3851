package resolvers

import (
	"context"

	"github.com/agenttrust/service/auth"
	"github.com/agenttrust/service/event"
	"github.com/agenttrust/service/failure"
	"github.com/agenttrust/service/graph"
	"github.com/agenttrust/service/live"
	"github.com/agenttrust/service/paging"
)

// Subscription returns the subscription root resolver.
func (r *Resolver) Subscription() graph.SubscriptionResolver { return &subscriptionResolver{r} }

type subscriptionResolver struct{ *Resolver }

// Events streams the caller's organization's events from the live hub.
func (r *subscriptionResolver) Events(ctx context.Context, types []string, after *string) (<-chan *event.Event, error) {
	p, err := auth.FromContext(ctx)
	if err != nil {
		return nil, err
	}
	if r.svc.Live == nil {
		return nil, failure.Errorf(failure.Internal, "live events are not served by this handler")
	}
	charge := func(events int) error { return r.opts.Meter(ctx, paging.Tokens(events)) }
	s, err := r.svc.Live.Subscribe(ctx, live.Request{OrgID: p.OrgID, Types: types, After: deref(after, ""), Charge: charge})
	if err != nil {
		return nil, err
	}
	return s.C, nil
}
