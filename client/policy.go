package client

import (
	"context"
	"fmt"

	"github.com/shopspring/decimal"
)

// LimitWindow is the period a SpendLimit covers.
type LimitWindow string

// Limit windows.
const (
	WindowDay   LimitWindow = "day"
	WindowWeek  LimitWindow = "week"
	WindowMonth LimitWindow = "month"
	WindowTotal LimitWindow = "total"
)

// WindowMode says whether a window trails now or follows the calendar.
type WindowMode string

// Window modes.
const (
	ModeRolling  WindowMode = "rolling"  // the trailing 24 h, 7 d or 30 d
	ModeCalendar WindowMode = "calendar" // the current day, ISO week or month in the policy's timezone
)

// SpendLimit caps completed outflow within a window (inclusive).
type SpendLimit struct {
	Amount  decimal.Decimal `json:"amount"`
	Window  LimitWindow     `json:"window"`
	Mode    WindowMode      `json:"mode,omitempty"` // "" sets rolling
	Actions []string        `json:"actions"`        // nil: every action
}

// VelocityLimit allows at most MaxCount completed transactions in any trailing WindowSeconds.
type VelocityLimit struct {
	MaxCount      int      `json:"maxCount"`
	WindowSeconds int      `json:"windowSeconds"`
	Actions       []string `json:"actions"` // nil: every action
}

// CounterpartyRules are allow and deny lists of receivers: deny wins, and
// empty allow lists allow everyone not denied.
type CounterpartyRules struct {
	AllowAgents []string `json:"allowAgents"`
	DenyAgents  []string `json:"denyAgents"`
	AllowOrgs   []string `json:"allowOrgs"`
	DenyOrgs    []string `json:"denyOrgs"`
}

// TrustTier scales the agent's limits to LimitPercent from MinScore up.
type TrustTier struct {
	MinScore     int `json:"minScore"`
	LimitPercent int `json:"limitPercent"`
}

// ApprovalRule makes an execute over Above wait for an admin's Approve or
// Decline for at most ExpiresAfterSeconds (60..604800).
type ApprovalRule struct {
	Above               decimal.Decimal `json:"above"`
	ExpiresAfterSeconds int             `json:"expiresAfterSeconds"`
}

// SpendPolicy is an agent's spend policy; its rolling day entry over all
// actions is the agent's DailyLimit.
type SpendPolicy struct {
	Version              int               `json:"version"`
	Timezone             string            `json:"timezone"`
	SpendLimits          []SpendLimit      `json:"spendLimits"`
	VelocityLimits       []VelocityLimit   `json:"velocityLimits"`
	Counterparties       CounterpartyRules `json:"counterparties"`
	MinCounterpartyScore *int              `json:"minCounterpartyScore"`
	TrustTiers           []TrustTier       `json:"trustTiers"`
	Approval             *ApprovalRule     `json:"approval"`       // nil: nothing waits for approval
	RequireMandate       bool              `json:"requireMandate"` // every execute must name a mandate
}

const policyFields = `version timezone spendLimits { amount window mode actions } velocityLimits { maxCount windowSeconds actions }
 counterparties { allowAgents denyAgents allowOrgs denyOrgs } minCounterpartyScore trustTiers { minScore limitPercent }
 approval { above expiresAfterSeconds } requireMandate`

// SpendPolicyInput changes a policy. A nil field stays unchanged; a list
// set to an empty, non-nil slice is emptied. SpendLimits replaces every
// limit, the rolling day entry (DailyLimit) included.
type SpendPolicyInput struct {
	Timezone             *string // "UTC" is the default
	SpendLimits          []SpendLimit
	VelocityLimits       []VelocityLimit
	Counterparties       *CounterpartyRules
	MinCounterpartyScore *int
	// RemoveMinCounterpartyScore clears the minimum (MinCounterpartyScore must then be nil).
	RemoveMinCounterpartyScore bool
	TrustTiers                 []TrustTier
	Approval                   *ApprovalRule
	// RemoveApproval clears the approval rule (Approval must then be nil).
	RemoveApproval bool
	RequireMandate *bool // true: every execute must name a mandate
}

func (in SpendPolicyInput) vars() (map[string]any, error) {
	v := map[string]any{}
	if in.Timezone != nil {
		v["timezone"] = *in.Timezone
	}
	if in.SpendLimits != nil {
		v["spendLimits"] = in.SpendLimits
	}
	if in.VelocityLimits != nil {
		v["velocityLimits"] = in.VelocityLimits
	}
	if in.Counterparties != nil {
		c := *in.Counterparties
		v["counterparties"] = map[string]any{"allowAgents": orEmpty(c.AllowAgents), "denyAgents": orEmpty(c.DenyAgents),
			"allowOrgs": orEmpty(c.AllowOrgs), "denyOrgs": orEmpty(c.DenyOrgs)}
	}
	switch {
	case in.RemoveMinCounterpartyScore && in.MinCounterpartyScore != nil:
		return nil, fmt.Errorf("SpendPolicyInput: MinCounterpartyScore and RemoveMinCounterpartyScore are exclusive")
	case in.RemoveMinCounterpartyScore:
		v["minCounterpartyScore"] = nil
	case in.MinCounterpartyScore != nil:
		v["minCounterpartyScore"] = *in.MinCounterpartyScore
	}
	if in.TrustTiers != nil {
		v["trustTiers"] = in.TrustTiers
	}
	switch {
	case in.RemoveApproval && in.Approval != nil:
		return nil, fmt.Errorf("SpendPolicyInput: Approval and RemoveApproval are exclusive")
	case in.RemoveApproval:
		v["approval"] = nil
	case in.Approval != nil:
		v["approval"] = *in.Approval
	}
	if in.RequireMandate != nil {
		v["requireMandate"] = *in.RequireMandate
	}
	return v, nil
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// Policy returns an agent's spend policy, or a *NotFoundError.
func (s *AgentsService) Policy(ctx context.Context, agentID string) (*SpendPolicy, error) {
	var a struct {
		Policy SpendPolicy `json:"policy"`
	}
	err := s.c.graphql(ctx, "agents.policy", safe,
		`query($id: ID!) { agent(id: $id) { policy { `+policyFields+` } } }`, map[string]any{"id": agentID}, "agent", &a)
	return ptrOrNil(&a.Policy, err)
}

// SetPolicy changes an agent's spend policy (admin keys) and returns it.
// With expectedVersion set, a policy at another version is a
// *ConflictError; invalid input is a *ValidationError naming every field.
// It is retried only when the request provably never reached the server.
func (s *AgentsService) SetPolicy(ctx context.Context, agentID string, in SpendPolicyInput, expectedVersion *int) (*SpendPolicy, error) {
	v, err := in.vars()
	if err != nil {
		return nil, err
	}
	var a struct {
		Policy SpendPolicy `json:"policy"`
	}
	err = s.c.graphql(ctx, "agents.setPolicy", once,
		`mutation($id: ID!, $input: SpendPolicyInput!, $v: Int) { setAgentPolicy(agentId: $id, input: $input, expectedVersion: $v) { policy { `+policyFields+` } } }`,
		map[string]any{"id": agentID, "input": v, "v": expectedVersion}, "setAgentPolicy", &a)
	return ptrOrNil(&a.Policy, err)
}
