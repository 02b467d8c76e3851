package agent

import (
	"context"
	"time"

	"github.com/agenttrust/service/auth"
	"github.com/agenttrust/service/failure"
	"github.com/agenttrust/service/policy"
	"github.com/agenttrust/service/transaction"
)

// Bounds of SIMULATION_MAX_TRANSACTIONS.
const (
	// DefaultSimulationMax is the most transactions simulatePolicy replays
	// unless SIMULATION_MAX_TRANSACTIONS says otherwise.
	DefaultSimulationMax = 10_000
	// MaxSimulationMax is the largest SIMULATION_MAX_TRANSACTIONS: a
	// simulation holds its whole period in memory.
	MaxSimulationMax = 1_000_000
)

// SimulationQuery asks what a policy change would have decided on an
// agent's completed transactions sent in [Since, Until).
type SimulationQuery struct {
	AgentID string
	// Policy is applied on top of the agent's current policy as setAgentPolicy applies it.
	Policy PolicyInput
	Since  time.Time
	Until  *time.Time // nil: now
	// Max is the most transactions replayed; more is ValidationFailed on since.
	Max int
}

// Validate checks the period ends after it starts, until being now when
// absent: ValidationFailed on until otherwise.
func (q SimulationQuery) Validate(now time.Time) error {
	until := now
	if q.Until != nil {
		until = *q.Until
	}
	if !until.After(q.Since) {
		return failure.Invalid("until", "must be after since (%s)", q.Since.UTC().Format(time.RFC3339Nano))
	}
	return nil
}

// TooMany is the refusal of a period holding more than n transactions.
func TooMany(n int) error {
	return failure.Invalid("since", "the period holds more than %d transactions (SIMULATION_MAX_TRANSACTIONS): choose a later since or an earlier until", n)
}

// SimulatedOutcome is the decision on one replayed transaction.
type SimulatedOutcome struct {
	Transaction      *transaction.Transaction
	Allowed          bool
	RequiresApproval bool
	ReasonCode       string
	Reason           string
}

// Simulation is what a proposed policy would have decided on an agent's
// history (policy.Simulation, with the transactions its outcomes name).
type Simulation struct {
	Replayed, Allowed, Refused, HeldForApproval int
	RefusedByCode                               []policy.ReasonCount
	Outcomes                                    []SimulatedOutcome
	Peaks                                       []policy.LimitPeak
}

// Simulator answers simulatePolicy.
type Simulator interface {
	// SimulatePolicy replays the agent's completed transactions sent in the
	// period (policy.Simulate) under its current policy with q.Policy
	// applied, changing nothing. Once it has read them it calls charge (when
	// not nil) with the number of rows read, and fails with its error.
	// Errors: NotFound (not an agent of p's organization); ValidationFailed
	// (q.Validate; the proposed policy, on policy.*; more than q.Max
	// transactions, on since).
	SimulatePolicy(ctx context.Context, p auth.Principal, q SimulationQuery, charge func(rows int) error) (*Simulation, error)
}
