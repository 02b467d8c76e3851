package testkit

// ProfileQuery reads a trust profile with every factor.
const ProfileQuery = `query($id: ID!) { trustProfile(agentId: $id) { agentId score assessment updatedAt factors { completionRate disputeRatio reversalRate tenureDays volume confidence } } }`

// TrustProfile mirrors the schema's TrustProfile.
type TrustProfile struct {
	AgentID    string `json:"agentId"`
	Score      int    `json:"score"`
	Assessment string `json:"assessment"`
	Factors    struct {
		CompletionRate float64 `json:"completionRate"`
		DisputeRatio   float64 `json:"disputeRatio"`
		ReversalRate   float64 `json:"reversalRate"`
		TenureDays     float64 `json:"tenureDays"`
		Volume         int     `json:"volume"`
		Confidence     float64 `json:"confidence"`
	} `json:"factors"`
	UpdatedAt string `json:"updatedAt"`
}

// Evaluation mirrors the schema's TrustEvaluation.
type Evaluation struct {
	Allowed    bool   `json:"allowed"`
	Reason     string `json:"reason"`
	ReasonCode string `json:"reasonCode"`
}

// Profile reads an agent's trust profile as the holder of key.
func (k *Kit) Profile(key, agentID string) TrustProfile {
	k.T.Helper()
	var p TrustProfile
	k.Do(key, ProfileQuery, map[string]any{"id": agentID}).Into(k.T, "trustProfile", &p)
	return p
}

// Evaluate runs evaluateTrust as the kit's organization.
func (k *Kit) Evaluate(agentID, action string, amount any, currency string) Evaluation {
	k.T.Helper()
	var e Evaluation
	k.Query(`query($in: TrustEvaluationInput!) { evaluateTrust(input: $in) { allowed reason reasonCode } }`,
		map[string]any{"in": map[string]any{"agentId": agentID, "action": action, "amount": amount, "currency": currency}}).
		Into(k.T, "evaluateTrust", &e)
	return e
}
