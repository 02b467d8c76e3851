package resolvers

import (
	"context"
	"time"

	"github.com/agenttrust/service/failure"
	"github.com/agenttrust/service/graph/model"
)

// SimulatePolicy is being built (issue #40); this placeholder must not be merged as is.
func (r *queryResolver) SimulatePolicy(ctx context.Context, agentID string, policy model.SpendPolicyInput, since time.Time, until *time.Time) (*model.PolicySimulation, error) {
	return nil, failure.Errorf(failure.Internal, "simulatePolicy is not built yet")
}
