package testkit

// ProfileQuery reads a trust profile with every factor and contribution.
const ProfileQuery = `query($id: ID!) { trustProfile(agentId: $id) { agentId score assessment updatedAt
	factors { completionRate disputeRatio reversalRate tenureDays volume confidence counterpartyOrgs failures limitRefusals reversals disputingOrgs openDisputes suspended }
	contributions { factor points description } } }`

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

		CounterpartyOrgs int     `json:"counterpartyOrgs"`
		Failures         float64 `json:"failures"`
		LimitRefusals    float64 `json:"limitRefusals"`
		Reversals        float64 `json:"reversals"`
		DisputingOrgs    float64 `json:"disputingOrgs"`
		OpenDisputes     int     `json:"openDisputes"`
		Suspended        int     `json:"suspended"`
	} `json:"factors"`
	Contributions []Contribution `json:"contributions"`
	UpdatedAt     string         `json:"updatedAt"`
}

// Contribution mirrors the schema's TrustContribution.
type Contribution struct {
	Factor      string `json:"factor"`
	Points      int    `json:"points"`
	Description string `json:"description"`
}

// Points adds up the profile's contribution points (the score, if they are right).
func (p TrustProfile) Points() int {
	sum := 0
	for _, c := range p.Contributions {
		sum += c.Points
	}
	return sum
}

// Evaluation mirrors the schema's TrustEvaluation.
type Evaluation struct {
	Allowed    bool   `json:"allowed"`
	Reason     string `json:"reason"`
	ReasonCode string `json:"reasonCode"`
	// RequiresApproval is read by the documents that select it.
	RequiresApproval bool `json:"requiresApproval"`
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
