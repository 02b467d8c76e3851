package testkit

import "encoding/json"

// SimulateQuery runs simulatePolicy selecting every field.
const SimulateQuery = `query($id: ID!, $policy: SpendPolicyInput!, $since: Time!, $until: Time) {
	simulatePolicy(agentId: $id, policy: $policy, since: $since, until: $until) {
		replayed allowed refused heldForApproval
		refusedByCode { reasonCode count }
		outcomes { transaction { ` + TxFields + ` } allowed requiresApproval reasonCode reason }
		peaks { window mode actions limit peak at } } }`

// ReasonCount mirrors the schema's ReasonCount.
type ReasonCount struct {
	ReasonCode string `json:"reasonCode"`
	Count      int    `json:"count"`
}

// SimulatedOutcome mirrors the schema's SimulatedOutcome.
type SimulatedOutcome struct {
	Transaction      Transaction `json:"transaction"`
	Allowed          bool        `json:"allowed"`
	RequiresApproval bool        `json:"requiresApproval"`
	ReasonCode       string      `json:"reasonCode"`
	Reason           string      `json:"reason"`
}

// LimitPeak mirrors the schema's LimitPeak (amounts stay raw JSON).
type LimitPeak struct {
	Window  string          `json:"window"`
	Mode    string          `json:"mode"`
	Actions []string        `json:"actions"`
	Limit   json.RawMessage `json:"limit"`
	Peak    json.RawMessage `json:"peak"`
	At      *string         `json:"at"`
}

// PolicySimulation mirrors the schema's PolicySimulation.
type PolicySimulation struct {
	Replayed        int                `json:"replayed"`
	Allowed         int                `json:"allowed"`
	Refused         int                `json:"refused"`
	HeldForApproval int                `json:"heldForApproval"`
	RefusedByCode   []ReasonCount      `json:"refusedByCode"`
	Outcomes        []SimulatedOutcome `json:"outcomes"`
	Peaks           []LimitPeak        `json:"peaks"`
}

// Simulate runs simulatePolicy as the holder of key; until may be nil.
func (k *Kit) Simulate(key, agentID string, policy map[string]any, since string, until any) *Response {
	k.T.Helper()
	return k.Do(key, SimulateQuery, map[string]any{"id": agentID, "policy": policy, "since": since, "until": until})
}

// MustSimulate is Simulate as the kit's organization, failing on any error.
func (k *Kit) MustSimulate(agentID string, policy map[string]any, since string, until any) PolicySimulation {
	k.T.Helper()
	var s PolicySimulation
	k.Simulate(k.Key, agentID, policy, since, until).Into(k.T, "simulatePolicy", &s)
	return s
}
