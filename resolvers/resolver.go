// Package resolvers holds the hand-written GraphQL resolvers: thin adapters
// that read the principal, convert input, call one domain service and wrap
// the result. One file per GraphQL type.
package resolvers

import (
	"github.com/agenttrust/service/agent"
	"github.com/agenttrust/service/event"
	"github.com/agenttrust/service/graph"
	"github.com/agenttrust/service/live"
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
	// Events reads events by id for node and nodes; nil answers none.
	Events event.Reader
	// Live serves subscriptions; nil refuses them.
	Live *live.Hub
}

// Resolver is the root resolver.
type Resolver struct{ svc Services }

// New returns the root resolver over svc.
func New(svc Services) *Resolver { return &Resolver{svc: svc} }

var _ graph.ResolverRoot = (*Resolver)(nil)

// Query returns the query root resolver.
func (r *Resolver) Query() graph.QueryResolver { return &queryResolver{r} }

// Mutation returns the mutation root resolver.
func (r *Resolver) Mutation() graph.MutationResolver { return &mutationResolver{r} }

type queryResolver struct{ *Resolver }
type mutationResolver struct{ *Resolver }
