package client

import (
	"context"
	"iter"
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
	// Contributions say why the score is what it is, largest effect first;
	// their points add up to Score.
	Contributions []TrustContribution `json:"contributions"`
	UpdatedAt     time.Time           `json:"updatedAt"`
}

// TrustContribution is one factor's signed effect on a score, like a credit
// score's reason code.
type TrustContribution struct {
	Factor      string `json:"factor"` // a TrustFactors field name, or "base"
	Points      int    `json:"points"`
	Description string `json:"description"` // a readable sentence with the numbers
}

// TrustFactors are the observed inputs of a trust score.
type TrustFactors struct {
	CompletionRate float64 `json:"completionRate"` // 0..1
	DisputeRatio   float64 `json:"disputeRatio"`   // 0..1
	ReversalRate   float64 `json:"reversalRate"`   // 0..1
	TenureDays     float64 `json:"tenureDays"`
	Volume         int     `json:"volume"`
	Confidence     float64 `json:"confidence"` // 0..1
	// CounterpartyOrgs counts other organizations it completed a transaction with.
	CounterpartyOrgs int `json:"counterpartyOrgs"`
	// Failures, LimitRefusals, Reversals and DisputingOrgs are decayed counts.
	Failures      float64 `json:"failures"`
	LimitRefusals float64 `json:"limitRefusals"`
	Reversals     float64 `json:"reversals"`
	DisputingOrgs float64 `json:"disputingOrgs"`
	OpenDisputes  int     `json:"openDisputes"`
	Suspended     int     `json:"suspended"` // 1 while suspended
}

const trustProfileFields = `agentId score assessment factors { completionRate disputeRatio reversalRate tenureDays volume confidence counterpartyOrgs failures limitRefusals reversals disputingOrgs openDisputes suspended } contributions { factor points description } updatedAt`

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
	// MandateID optionally names a mandate of the agent to evaluate under.
	MandateID string `json:"mandateId,omitempty"`
}

// Reason codes of TrustEvaluation.ReasonCode and PolicyDeniedError.ReasonCode,
// in the order the policy checks them (the mandate codes, checked after
// ReasonActionNotAuthorized, are in mandates.go).
const (
	ReasonOK                      = "ok"                         // allowed
	ReasonAgentSuspended          = "agent_suspended"            // the sender is not active
	ReasonCounterpartySuspended   = "counterparty_suspended"     // the receiver is not active
	ReasonInvalidAmount           = "invalid_amount"             // not a positive amount in the sender's currency
	ReasonCurrencyMismatch        = "currency_mismatch"          // the request or the receiver uses another currency
	ReasonEnvironmentMismatch     = "environment_mismatch"       // sender and receiver in different environments
	ReasonActionNotAuthorized     = "action_not_authorized"      // the action is not among the sender's
	ReasonCounterpartyBlocked     = "counterparty_blocked"       // the policy denies the receiver or its organization
	ReasonCounterpartyNotAllowed  = "counterparty_not_allowed"   // an allow list holds neither the receiver nor its organization
	ReasonTrustTooLow             = "trust_too_low"              // the sender is assessed High Risk
	ReasonCounterpartyTrustTooLow = "counterparty_trust_too_low" // the receiver's score is below the policy's minimum
	ReasonAmountExceedsLimit      = "amount_exceeds_limit"       // above the per-transaction limit (after the trust tier)
	ReasonVelocityLimitExceeded   = "velocity_limit_exceeded"    // one more would exceed a velocity limit
	ReasonDailyLimitExceeded      = "daily_limit_exceeded"       // over a day window's limit
	ReasonWeeklyLimitExceeded     = "weekly_limit_exceeded"      // over a week window's limit
	ReasonMonthlyLimitExceeded    = "monthly_limit_exceeded"     // over a month window's limit
	ReasonTotalLimitExceeded      = "total_limit_exceeded"       // over the all-time total limit
	// ReasonTooManyPendingApprovals: over the approval threshold while the
	// sender already has APPROVAL_MAX_PENDING transactions waiting.
	ReasonTooManyPendingApprovals = "too_many_pending_approvals"
)

// TrustEvaluation is what an execute would do right now.
type TrustEvaluation struct {
	Allowed    bool   `json:"allowed"`
	Reason     string `json:"reason"`     // a readable sentence with the numbers
	ReasonCode string `json:"reasonCode"` // one of the Reason* constants
	// RequiresApproval: allowed, but over the policy's approval threshold,
	// so an execute would wait as TransactionPendingApproval.
	RequiresApproval bool `json:"requiresApproval"`
}

// ReportInput files a dispute against an agent.
type ReportInput struct {
	AgentID     string   `json:"agentId"`
	Reason      string   `json:"reason"`
	EvidenceIDs []string `json:"evidenceIds"` // transactions visible to you involving the agent
}

// DisputeStatus is where a dispute is in its lifecycle.
type DisputeStatus string

// Dispute states.
const (
	DisputeOpen      DisputeStatus = "open"      // counting against the agent
	DisputeWithdrawn DisputeStatus = "withdrawn" // withdrawn by its reporter
)

// Dispute is a report against an agent.
type Dispute struct {
	ID            string        `json:"id"` // disp_<id>
	AgentID       string        `json:"agentId"`
	Reason        string        `json:"reason"`
	EvidenceIDs   []string      `json:"evidenceIds"`
	CreatedAt     time.Time     `json:"createdAt"`
	Status        DisputeStatus `json:"status"`
	ReporterOrgID string        `json:"reporterOrgId"`
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
		`query($input: TrustEvaluationInput!) { evaluateTrust(input: $input) { allowed reason reasonCode requiresApproval } }`,
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
		`mutation($input: ReportAgentInput!) { reportAgent(input: $input) { `+disputeFields+` } }`,
		map[string]any{"input": in}, "reportAgent", &d)
	return ptrOrNil(&d, err)
}

const disputeFields = `id agentId reason evidenceIds createdAt status reporterOrgId`

// DisputePage is one page of disputes, newest first.
type DisputePage struct {
	Disputes   []Dispute
	PageInfo   PageInfo
	TotalCount int
}

// ListDisputesParams filter and page Trust.ListDisputes.
type ListDisputesParams struct {
	AgentID string        // only disputes against this agent
	Status  DisputeStatus // "" lists both
	Limit   int           // 1..200; 0 is the server's default of 50
	After   string        // the EndCursor of the previous page
	// Last and Before page backwards (not with Limit or After): the Last
	// disputes (1..200, 0 the server's default) just before Before, the
	// StartCursor of the page after; empty Before: the list's last ones.
	Last   int
	Before string
}

// GetDispute returns a dispute filed by or against your organization, or a
// *NotFoundError.
func (s *TrustService) GetDispute(ctx context.Context, id string) (*Dispute, error) {
	var d Dispute
	err := s.c.graphql(ctx, "trust.getDispute", safe,
		`query($id: ID!) { dispute(id: $id) { `+disputeFields+` } }`, map[string]any{"id": id}, "dispute", &d)
	return ptrOrNil(&d, err)
}

// ListDisputes returns one page of the disputes filed by or against your
// organization, newest first.
func (s *TrustService) ListDisputes(ctx context.Context, p ListDisputesParams) (*DisputePage, error) {
	vars := backVars(pageVars(p.Limit, p.After, "agentId", p.AgentID, "status", string(p.Status)), p.Last, p.Before)
	var conn connection[Dispute]
	err := s.c.graphql(ctx, "trust.listDisputes", safe,
		`query($agentId: ID, $status: DisputeStatus, $limit: Int, $after: String, $last: Int, $before: String) { disputes(agentId: $agentId, status: $status, limit: $limit, after: $after, last: $last, before: $before) { nodes { `+disputeFields+` } `+pageInfoFields+` totalCount } }`,
		vars, "disputes", &conn)
	if err != nil {
		return nil, err
	}
	return &DisputePage{Disputes: conn.Nodes, PageInfo: conn.PageInfo, TotalCount: conn.TotalCount}, nil
}

// ListAllDisputes iterates over every dispute matching p, page after page
// from p.After on; the first error ends it.
func (s *TrustService) ListAllDisputes(ctx context.Context, p ListDisputesParams) iter.Seq2[Dispute, error] {
	return every(ctx, p.After, func(ctx context.Context, after string) ([]Dispute, PageInfo, error) {
		p.After = after
		page, err := s.ListDisputes(ctx, p)
		if err != nil {
			return nil, PageInfo{}, err
		}
		return page.Disputes, page.PageInfo, nil
	})
}

// ListAllDisputesBackward iterates over every dispute matching p from
// p.Before (the oldest when empty) towards the newest, page before page of
// p.Last: oldest first. The first error ends it.
func (s *TrustService) ListAllDisputesBackward(ctx context.Context, p ListDisputesParams) iter.Seq2[Dispute, error] {
	if p.Last == 0 {
		p.Last = defaultPageSize
	}
	return backward(ctx, p.Before, func(ctx context.Context, before string) ([]Dispute, PageInfo, error) {
		p.Before = before
		page, err := s.ListDisputes(ctx, p)
		if err != nil {
			return nil, PageInfo{}, err
		}
		return page.Disputes, page.PageInfo, nil
	})
}

// WithdrawDispute withdraws an open dispute your organization filed; it
// stops counting against the agent. The reported organization gets a
// *ForbiddenError, a withdrawn dispute a *ConflictError. It is retried only
// when the request provably never reached the server.
func (s *TrustService) WithdrawDispute(ctx context.Context, id string) (*Dispute, error) {
	var d Dispute
	err := s.c.graphql(ctx, "trust.withdrawDispute", once,
		`mutation($id: ID!) { withdrawDispute(id: $id) { `+disputeFields+` } }`, map[string]any{"id": id}, "withdrawDispute", &d)
	return ptrOrNil(&d, err)
}
