package client

import (
	"context"
	"time"

	"github.com/shopspring/decimal"
)

// ReasonCount is how many replayed transactions one reason code refused.
type ReasonCount struct {
	ReasonCode string `json:"reasonCode"`
	Count      int    `json:"count"`
}

// SimulatedOutcome is what the simulated policy answered one replayed
// transaction, as an execute would have.
type SimulatedOutcome struct {
	Transaction      Transaction `json:"transaction"` // the real transaction replayed
	Allowed          bool        `json:"allowed"`     // true when held for approval
	RequiresApproval bool        `json:"requiresApproval"`
	ReasonCode       string      `json:"reasonCode"`
	Reason           string      `json:"reason"`
}

// LimitPeak is the most of one spend limit the replay used.
type LimitPeak struct {
	Window  LimitWindow     `json:"window"`
	Mode    WindowMode      `json:"mode"`
	Actions []string        `json:"actions"` // nil: every action
	Limit   decimal.Decimal `json:"limit"`   // after the trust tier that applied at the peak
	Peak    decimal.Decimal `json:"peak"`    // the window's use just after the transaction that used it most
	At      *time.Time      `json:"at"`      // nil when Peak is 0
}

// PolicySimulation is what a proposed policy would have done to an agent's
// completed transactions: Allowed + Refused + HeldForApproval = Replayed.
type PolicySimulation struct {
	Replayed        int                `json:"replayed"`
	Allowed         int                `json:"allowed"` // without approval
	Refused         int                `json:"refused"`
	HeldForApproval int                `json:"heldForApproval"`
	RefusedByCode   []ReasonCount      `json:"refusedByCode"` // largest count first
	Outcomes        []SimulatedOutcome `json:"outcomes"`      // the first 100 refused or held, oldest first
	Peaks           []LimitPeak        `json:"peaks"`         // one per spend limit, in the policy's order
}

const simulationFields = `replayed allowed refused heldForApproval refusedByCode { reasonCode count }
 outcomes { transaction { ` + transactionFields + ` } allowed requiresApproval reasonCode reason }
 peaks { window mode actions limit peak at }`

// SimulatePolicy replays the agent's completed transactions sent in
// [since, until) (until nil: now) under its policy with in applied as
// SetPolicy would apply it, and changes nothing: check a change before
// making it. Admin and read-only keys. A period of more transactions than
// the server's SIMULATION_MAX_TRANSACTIONS, or invalid input, is a
// *ValidationError; another organization's agent a *NotFoundError.
func (s *AgentsService) SimulatePolicy(ctx context.Context, agentID string, in SpendPolicyInput, since time.Time, until *time.Time) (*PolicySimulation, error) {
	v, err := in.vars()
	if err != nil {
		return nil, err
	}
	var out PolicySimulation
	err = s.c.graphql(ctx, "agents.simulatePolicy", safe,
		`query($id: ID!, $policy: SpendPolicyInput!, $since: Time!, $until: Time) { simulatePolicy(agentId: $id, policy: $policy, since: $since, until: $until) { `+
			simulationFields+` } }`, map[string]any{"id": agentID, "policy": v, "since": since, "until": until}, "simulatePolicy", &out)
	return ptrOrNil(&out, err)
}
