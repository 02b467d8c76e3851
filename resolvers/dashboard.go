package resolvers

import (
	"context"
	"time"

	"github.com/agenttrust/service/auth"
	"github.com/agenttrust/service/dashboard"
	"github.com/agenttrust/service/graph"
	"github.com/agenttrust/service/paging"
	"github.com/agenttrust/service/policy"
	"github.com/agenttrust/service/preload"
)

// Agent returns the resolver of Agent's fields that are not read ahead.
func (r *Resolver) Agent() graph.AgentResolver { return &agentResolver{r} }

type agentResolver struct{ *Resolver }

// PolicyUsage reads the agent's usage at this moment; an agent key reads
// only its own agents'.
func (r *agentResolver) PolicyUsage(ctx context.Context, obj *preload.Agent) (*policy.Usage, error) {
	p, err := auth.FromContext(ctx)
	if err != nil {
		return nil, err
	}
	if err := auth.AuthorizeAgent(p, "read Agent.policyUsage", obj.ID); err != nil {
		return nil, err
	}
	return r.svc.Dashboard.PolicyUsage(ctx, p, obj.ID)
}

func (r *queryResolver) SpendSeries(ctx context.Context, agentID, currency *string, bucket dashboard.Bucket, since, until time.Time, action *string) ([]*dashboard.SpendPoint, error) {
	p, err := auth.FromContext(ctx)
	if err != nil {
		return nil, err
	}
	q := dashboard.SeriesQuery{AgentID: agentID, Currency: currency, Bucket: bucket, Since: since, Until: until, Action: action}
	if err := q.Validate(); err != nil {
		return nil, err
	}
	if err := r.opts.Meter(ctx, dashboard.SeriesTokens(q)); err != nil {
		return nil, err
	}
	points, err := r.svc.Dashboard.SpendSeries(ctx, p, q)
	if err != nil {
		return nil, err
	}
	return pointers(points), nil
}

func (r *queryResolver) Overview(ctx context.Context) (*dashboard.Overview, error) {
	p, err := auth.FromContext(ctx)
	if err != nil {
		return nil, err
	}
	o, err := r.svc.Dashboard.Overview(ctx, p)
	if err != nil {
		return nil, err
	}
	agents := 0
	for _, c := range o.AgentsByStatus {
		agents += c.Count
	}
	return o, r.opts.Meter(ctx, paging.Tokens(agents)) // the agents read, as a list of them would be charged
}

// pointers returns pointers to the elements of s, as gqlgen's lists bind them.
func pointers[T any](s []T) []*T {
	out := make([]*T, len(s))
	for i := range s {
		out[i] = &s[i]
	}
	return out
}
