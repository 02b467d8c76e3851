package client

import (
	"context"
	"time"

	"github.com/shopspring/decimal"
)

// The assessments a trust score maps to.
const (
	AssessmentVerified = "Verified"  // 700 and above
	AssessmentModerate = "Moderate"  // 400..699
	AssessmentHighRisk = "High Risk" // below 400
)

// TrustProfile is an agent's trust score, 0..1000, with its factors.
type TrustProfile struct {
	AgentID    string       `json:"agentId"`
	Score      int          `json:"score"`
	Assessment string       `json:"assessment"`
	Factors    TrustFactors `json:"factors"`
	UpdatedAt  time.Time    `json:"updatedAt"`
}

// TrustFactors are the observed inputs of a trust score.
type TrustFactors struct {
	CompletionRate float64 `json:"completionRate"` // 0..1
	DisputeRatio   float64 `json:"disputeRatio"`   // 0..1
	ReversalRate   float64 `json:"reversalRate"`   // 0..1
	TenureDays     float64 `json:"tenureDays"`
	Volume         int     `json:"volume"`
	Confidence     float64 `json:"confidence"` // 0..1
}

const trustProfileFields = `agentId score assessment factors { completionRate disputeRatio reversalRate tenureDays volume confidence } updatedAt`

// TrustSummary is the short form of a trust profile.
type TrustSummary struct {
	AgentID    string `json:"agentId"`
	Score      int    `json:"score"`
	Assessment string `json:"assessment"`
}

// TrustSnapshot is one recorded score change.
type TrustSnapshot struct {
	Timestamp  time.Time `json:"timestamp"`
	Score      int       `json:"score"`
	Assessment string    `json:"assessment"`
	Cause      string    `json:"cause"` // e.g. transaction:tx_…; "" when unknown
}

// EvaluateInput asks whether an execute would be allowed now.
type EvaluateInput struct {
	AgentID  string          `json:"agentId"` // the would-be sender: one of yours
	Action   string          `json:"action"`
	Amount   decimal.Decimal `json:"amount"`
	Currency string          `json:"currency"`
	// ToAgent optionally names the counterparty, adding the checks an
	// execute to it would make.
	ToAgent string `json:"toAgent,omitempty"`
}

// Reason codes of TrustEvaluation.ReasonCode and PolicyDeniedError.ReasonCode.
const (
	ReasonOK                    = "ok"
	ReasonAgentSuspended        = "agent_suspended"
	ReasonActionNotAuthorized   = "action_not_authorized"
	ReasonAmountExceedsLimit    = "amount_exceeds_limit"
	ReasonDailyLimitExceeded    = "daily_limit_exceeded"
	ReasonCurrencyMismatch      = "currency_mismatch"
	ReasonEnvironmentMismatch   = "environment_mismatch"
	ReasonTrustTooLow           = "trust_too_low"
	ReasonCounterpartySuspended = "counterparty_suspended"
	ReasonInvalidAmount         = "invalid_amount"
)

// TrustEvaluation is what an execute would do right now.
type TrustEvaluation struct {
	Allowed    bool   `json:"allowed"`
	Reason     string `json:"reason"`     // a readable sentence with the numbers
	ReasonCode string `json:"reasonCode"` // one of the Reason* constants
}

// ReportInput files a dispute against an agent.
type ReportInput struct {
	AgentID     string   `json:"agentId"`
	Reason      string   `json:"reason"`
	EvidenceIDs []string `json:"evidenceIds"` // transactions visible to you involving the agent
}

// Dispute is a report against an agent.
type Dispute struct {
	ID          string    `json:"id"` // disp_<id>
	AgentID     string    `json:"agentId"`
	Reason      string    `json:"reason"`
	EvidenceIDs []string  `json:"evidenceIds"`
	CreatedAt   time.Time `json:"createdAt"`
}

// TrustService holds the trust operations.
type TrustService struct{ c *Client }

// Query returns any agent's trust profile, or a *NotFoundError.
func (s *TrustService) Query(ctx context.Context, agentID string) (*TrustProfile, error) {
	var p TrustProfile
	err := s.c.graphql(ctx, "trust.query", safe,
		`query($id: ID!) { trustProfile(agentId: $id) { `+trustProfileFields+` } }`,
		map[string]any{"id": agentID}, "trustProfile", &p)
	return ptrOrNil(&p, err)
}

// Evaluate runs the execute policy without changing anything. A refusal is
// an answer (Allowed false), not an error; invalid input is a *ValidationError.
func (s *TrustService) Evaluate(ctx context.Context, in EvaluateInput) (*TrustEvaluation, error) {
	var e TrustEvaluation
	err := s.c.graphql(ctx, "trust.evaluate", safe,
		`query($input: TrustEvaluationInput!) { evaluateTrust(input: $input) { allowed reason reasonCode } }`,
		map[string]any{"input": in}, "evaluateTrust", &e)
	return ptrOrNil(&e, err)
}

// BatchQuery returns up to 100 agents' scores in the order asked; unknown ids
// are a *NotFoundError naming them.
func (s *TrustService) BatchQuery(ctx context.Context, agentIDs []string) ([]TrustSummary, error) {
	if agentIDs == nil {
		agentIDs = []string{}
	}
	var out []TrustSummary
	err := s.c.graphql(ctx, "trust.batchQuery", safe,
		`query($ids: [ID!]!) { batchTrust(agentIds: $ids) { agentId score assessment } }`,
		map[string]any{"ids": agentIDs}, "batchTrust", &out)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// GetHistory returns an agent's score changes, newest first, since the given
// time (the zero time: all of them).
func (s *TrustService) GetHistory(ctx context.Context, agentID string, since time.Time) ([]TrustSnapshot, error) {
	vars := map[string]any{"id": agentID}
	if !since.IsZero() {
		vars["since"] = formatTime(since)
	}
	var out []TrustSnapshot // a null cause decodes as ""
	err := s.c.graphql(ctx, "trust.getHistory", safe,
		`query($id: ID!, $since: Time) { trustHistory(agentId: $id, since: $since) { timestamp score assessment cause } }`,
		vars, "trustHistory", &out)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Report files a dispute against an agent with transactions as evidence. It
// is retried only when the request provably never reached the server.
func (s *TrustService) Report(ctx context.Context, in ReportInput) (*Dispute, error) {
	if in.EvidenceIDs == nil {
		in.EvidenceIDs = []string{}
	}
	var d Dispute
	err := s.c.graphql(ctx, "trust.report", once,
		`mutation($input: ReportAgentInput!) { reportAgent(input: $input) { id agentId reason evidenceIds createdAt } }`,
		map[string]any{"input": in}, "reportAgent", &d)
	return ptrOrNil(&d, err)
}
