package agent

import (
	"reflect"
	"slices"

	"github.com/agenttrust/service/event"
	"github.com/agenttrust/service/failure"
	"github.com/agenttrust/service/money"
	"github.com/agenttrust/service/policy"
)

// Optional is one field of an input that tells absent from null: Set false
// keeps the current value, Set with a nil Value clears it.
type Optional[T any] struct {
	Set   bool
	Value *T
}

// PolicyInput changes an agent's spend policy field by field (an absent
// field keeps its value, null clears it). SpendLimits includes the rolling
// day entry dailyLimit stands for: setting the list sets dailyLimit too.
type PolicyInput struct {
	Timezone             Optional[string]
	SpendLimits          Optional[[]policy.SpendLimit]
	VelocityLimits       Optional[[]policy.VelocityLimit]
	Counterparties       Optional[policy.CounterpartyRules]
	MinCounterpartyScore Optional[int]
	TrustTiers           Optional[[]policy.TrustTier]
	Approval             Optional[policy.ApprovalRule]
	RequireMandate       Optional[bool] // null is false
}

// SpendPolicy is the agent's whole policy as the API shows it: DailyLimit
// as the first spend limit, the timezone defaulted, lists never nil.
func (a Agent) SpendPolicy() policy.SpendPolicy {
	p := a.Policy
	p.SpendLimits = slices.Clone(p.SpendLimits)
	if a.DailyLimit != nil {
		p.SpendLimits = append([]policy.SpendLimit{{Amount: *a.DailyLimit, Window: policy.WindowDay, Mode: policy.ModeRolling}}, p.SpendLimits...)
	}
	if p.Timezone == "" {
		p.Timezone = policy.DefaultTimezone
	}
	p.SpendLimits = orEmpty(p.SpendLimits)
	p.VelocityLimits = orEmpty(p.VelocityLimits)
	p.TrustTiers = orEmpty(p.TrustTiers)
	c := &p.Counterparties
	c.AllowAgents, c.DenyAgents, c.AllowOrgs, c.DenyOrgs = orEmpty(c.AllowAgents), orEmpty(c.DenyAgents), orEmpty(c.AllowOrgs), orEmpty(c.DenyOrgs)
	return p
}

func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// ApplyPolicy returns a with in applied (version unchanged) and whether
// anything changed, or ValidationFailed naming every bad input.* field.
func (in PolicyInput) ApplyPolicy(a Agent) (Agent, bool, error) { return in.ApplyPolicyAs(a, "input") }

// ApplyPolicyAs is ApplyPolicy for an input passed as the argument named
// field: ValidationFailed names every bad field.* field.
func (in PolicyInput) ApplyPolicyAs(a Agent, field string) (Agent, bool, error) {
	p := a.SpendPolicy()
	if in.Timezone.Set {
		p.Timezone = policy.DefaultTimezone
		if in.Timezone.Value != nil {
			p.Timezone = *in.Timezone.Value
		}
	}
	if in.SpendLimits.Set {
		p.SpendLimits = deref(in.SpendLimits.Value)
	}
	if in.VelocityLimits.Set {
		p.VelocityLimits = deref(in.VelocityLimits.Value)
	}
	if in.Counterparties.Set {
		p.Counterparties = policy.CounterpartyRules{}
		if in.Counterparties.Value != nil {
			p.Counterparties = *in.Counterparties.Value
		}
	}
	if in.MinCounterpartyScore.Set {
		p.MinCounterpartyScore = in.MinCounterpartyScore.Value
	}
	if in.TrustTiers.Set {
		p.TrustTiers = deref(in.TrustTiers.Value)
	}
	if in.Approval.Set {
		p.Approval = in.Approval.Value
	}
	if in.RequireMandate.Set {
		p.RequireMandate = in.RequireMandate.Value != nil && *in.RequireMandate.Value
	}
	if err := p.Validate(field, a.Currency); err != nil {
		return a, false, err
	}
	before := a.SpendPolicy()
	a.DailyLimit, a.Policy = splitDaily(p)
	return a, !reflect.DeepEqual(before, a.SpendPolicy()), nil
}

func deref[T any](s *[]T) []T {
	if s == nil {
		return nil
	}
	return *s
}

// splitDaily takes the rolling day entry out of p's spend limits: it is
// stored as dailyLimit.
func splitDaily(p policy.SpendPolicy) (*money.Amount, policy.SpendPolicy) {
	var daily *money.Amount
	rest := make([]policy.SpendLimit, 0, len(p.SpendLimits))
	for _, l := range p.SpendLimits {
		if l.IsDaily() {
			daily = &l.Amount
			continue
		}
		rest = append(rest, l)
	}
	p.SpendLimits = rest
	return daily, p
}

// CheckVersion is Conflict when expected is set and differs from the policy's version.
func (a Agent) CheckVersion(expected *int) error {
	if expected != nil && *expected != a.Policy.Version {
		return failure.Errorf(failure.Conflict, "agent %s's policy is at version %d, not %d", a.ID, a.Policy.Version, *expected)
	}
	return nil
}

// PolicyChangedEvent is the data of an agent.policy_changed event: the agent
// and its whole policy after the change.
type PolicyChangedEvent struct {
	Data
	Policy policy.SpendPolicy `json:"policy"`
}

// EventType names the event type the payload is written under.
func (PolicyChangedEvent) EventType() string { return event.AgentPolicyChanged }
