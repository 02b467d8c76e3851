package resolvers

import (
	"context"

	"github.com/agenttrust/service/auth"
	"math"
	"time"

	"github.com/agenttrust/service/failure"
	"github.com/agenttrust/service/graph"
	"github.com/agenttrust/service/graph/model"
	"github.com/agenttrust/service/trust"
)

func (r *queryResolver) TrustProfile(ctx context.Context, agentID string) (*trust.Profile, error) {
	p, err := auth.FromContext(ctx)
	if err != nil {
		return nil, err
	}
	profiles, err := r.svc.Trust.Profiles(ctx, p, []string{agentID})
	if err != nil {
		return nil, err
	}
	prof, ok := profiles[agentID]
	if !ok {
		return nil, failure.Errorf(failure.NotFound, "agent %q not found", agentID)
	}
	return prof, nil
}

func (r *queryResolver) EvaluateTrust(ctx context.Context, in model.TrustEvaluationInput) (*trust.Evaluation, error) {
	p, err := auth.FromContext(ctx)
	if err != nil {
		return nil, err
	}
	return r.svc.Trust.Evaluate(ctx, p, trust.EvaluateInput{AgentID: in.AgentID, Action: in.Action, Amount: in.Amount, Currency: in.Currency, ToAgent: in.ToAgent,
		MandateID: in.MandateID})
}

func (r *queryResolver) BatchTrust(ctx context.Context, agentIDs []string) ([]*trust.Summary, error) {
	p, err := auth.FromContext(ctx)
	if err != nil {
		return nil, err
	}
	summaries, err := r.svc.Trust.Batch(ctx, p, agentIDs)
	if err != nil {
		return nil, err
	}
	out := make([]*trust.Summary, len(summaries))
	for i := range summaries {
		out[i] = &summaries[i]
	}
	return out, nil
}

func (r *queryResolver) TrustHistory(ctx context.Context, agentID string, since *time.Time) ([]*trust.Snapshot, error) {
	p, err := auth.FromContext(ctx)
	if err != nil {
		return nil, err
	}
	snaps, err := r.svc.Trust.History(ctx, p, agentID, since)
	if err != nil {
		return nil, err
	}
	out := make([]*trust.Snapshot, len(snaps))
	for i := range snaps {
		out[i] = &snaps[i]
	}
	return out, nil
}

// TrustFactors returns the TrustFactors field resolver.
func (r *Resolver) TrustFactors() graph.TrustFactorsResolver { return &trustFactorsResolver{r} }

type trustFactorsResolver struct{ *Resolver }

// Volume is the decayed count of completed transactions, rounded.
func (r *trustFactorsResolver) Volume(_ context.Context, f *trust.Factors) (int, error) {
	return int(math.Round(f.Volume)), nil
}
