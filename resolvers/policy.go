package resolvers

import (
	"context"

	"github.com/99designs/gqlgen/graphql"

	"github.com/agenttrust/service/agent"
	"github.com/agenttrust/service/auth"
	"github.com/agenttrust/service/graph/model"
	"github.com/agenttrust/service/preload"
)

func (r *mutationResolver) SetAgentPolicy(ctx context.Context, agentID string, in model.SpendPolicyInput, expectedVersion *int) (*preload.Agent, error) {
	p, err := auth.FromContext(ctx)
	if err != nil {
		return nil, err
	}
	a, err := r.svc.Agents.SetPolicy(ctx, p, agentID, policyInput(in), expectedVersion)
	return r.preloadAgent(ctx, p, a, err)
}

// policyInput converts a SpendPolicyInput: setAgentPolicy and simulatePolicy read it alike.
func policyInput(in model.SpendPolicyInput) agent.PolicyInput {
	return agent.PolicyInput{
		Timezone:             optional(in.Timezone),
		SpendLimits:          optionalList(in.SpendLimits),
		VelocityLimits:       optionalList(in.VelocityLimits),
		Counterparties:       optional(in.Counterparties),
		MinCounterpartyScore: optional(in.MinCounterpartyScore),
		TrustTiers:           optionalList(in.TrustTiers),
		Approval:             optional(in.Approval),
		RequireMandate:       optional(in.RequireMandate),
	}
}

// optional converts an omittable input field.
func optional[T any](o graphql.Omittable[*T]) agent.Optional[T] {
	v, set := o.ValueOK()
	return agent.Optional[T]{Set: set, Value: v}
}

// optionalList converts an omittable list of input objects; null clears.
func optionalList[T any](o graphql.Omittable[[]*T]) agent.Optional[[]T] {
	v, set := o.ValueOK()
	if !set || v == nil {
		return agent.Optional[[]T]{Set: set}
	}
	out := make([]T, len(v))
	for i, p := range v {
		out[i] = *p
	}
	return agent.Optional[[]T]{Set: true, Value: &out}
}
