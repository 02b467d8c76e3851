// Package resolvers holds the hand-written GraphQL resolvers: thin adapters
// that read the principal, convert input, call one domain service and wrap
// the result. One file per GraphQL type.
package resolvers

import (
	"context"

	"github.com/agenttrust/service/agent"
	"github.com/agenttrust/service/auth"
	"github.com/agenttrust/service/dashboard"
	"github.com/agenttrust/service/event"
	"github.com/agenttrust/service/graph"
	"github.com/agenttrust/service/live"
	"github.com/agenttrust/service/mandate"
	"github.com/agenttrust/service/transaction"
	"github.com/agenttrust/service/trust"
	"github.com/agenttrust/service/webhook"
)

// Services are the domain services the resolvers call.
type Services struct {
	Agents       agent.Service
	Transactions transaction.Service
	Trust        trust.Service
	Webhooks     webhook.Service
	Mandates     mandate.Service
	// Events reads events by id for node and nodes; nil answers none.
	Events event.Reader
	// Keys manages the organization's API keys.
	Keys auth.KeyService
	// Dashboard answers overview, spendSeries and Agent.policyUsage.
	Dashboard dashboard.Service
	// Simulations answers simulatePolicy.
	Simulations agent.Simulator
	// Live serves subscriptions; nil refuses them.
	Live *live.Hub
}

// Meter charges the caller in ctx tokens of its rate limit for work beyond
// the root field's own token (rows read: paging.Tokens), waiting for them
// while ctx lasts. Errors: failure.RateLimited, or ctx's error.
type Meter func(ctx context.Context, tokens int) error

// Options are the resolvers' bounds and the edge's meter.
type Options struct {
	// ExportMaxBytes bounds exportTransactions' content; zero takes
	// transaction.DefaultExportMaxBytes.
	ExportMaxBytes int
	// Meter charges rows read; nil charges nothing.
	Meter Meter
	// SimulationMax bounds the transactions simulatePolicy replays; zero
	// takes agent.DefaultSimulationMax.
	SimulationMax int
}

// Resolver is the root resolver.
type Resolver struct {
	svc  Services
	opts Options
}

// New returns the root resolver over svc.
func New(svc Services, o Options) *Resolver {
	if o.ExportMaxBytes <= 0 {
		o.ExportMaxBytes = transaction.DefaultExportMaxBytes
	}
	if o.SimulationMax <= 0 {
		o.SimulationMax = agent.DefaultSimulationMax
	}
	if o.Meter == nil {
		o.Meter = func(context.Context, int) error { return nil }
	}
	return &Resolver{svc: svc, opts: o}
}

var _ graph.ResolverRoot = (*Resolver)(nil)

// Query returns the query root resolver.
func (r *Resolver) Query() graph.QueryResolver { return &queryResolver{r} }

// Mutation returns the mutation root resolver.
func (r *Resolver) Mutation() graph.MutationResolver { return &mutationResolver{r} }

type queryResolver struct{ *Resolver }
type mutationResolver struct{ *Resolver }
