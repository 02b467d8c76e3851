package trust

import (
	"context"
	"time"

	"github.com/agenttrust/service/agent"
	"github.com/agenttrust/service/auth"
	"github.com/agenttrust/service/failure"
	"github.com/agenttrust/service/id"
	"github.com/agenttrust/service/money"
)

// Profile is an agent's score at the moment it was read, with the factors
// and contributions that explain it. Build it with [NewProfile].
type Profile struct {
	AgentID    string
	Score      int
	Assessment string
	Factors    Factors
	// UpdatedAt is when the agent's evidence last changed; the score itself
	// is computed at read time, as the evidence decays.
	UpdatedAt time.Time

	result Result
}

// NewProfile scores an agent's counters at now.
func NewProfile(agentID string, c Counters, now, updatedAt time.Time) Profile {
	r := Compute(c, now)
	return Profile{AgentID: agentID, Score: r.Score, Assessment: r.Assessment, Factors: r.Factors, UpdatedAt: updatedAt, result: r}
}

// Contributions explains the score (see [Result.Contributions]); it is
// computed when called, so a read that selects only the score never pays
// for the sentences.
func (p *Profile) Contributions() []Contribution { return p.result.Contributions() }

// Summary is the short form of a profile for batch reads.
type Summary struct {
	AgentID    string
	Score      int
	Assessment string
}

// Snapshot is one recorded score change; Cause is "kind:id", e.g. "transaction:tx_…".
type Snapshot struct {
	Timestamp  time.Time
	Score      int
	Assessment string
	Cause      *string
}

// EvaluateInput asks whether an agent may perform an action for an amount now.
type EvaluateInput struct {
	AgentID  string
	Action   string
	Amount   money.Amount
	Currency string
	// ToAgent optionally names the counterparty, so the evaluation makes
	// every check an execute to it would make.
	ToAgent *string
	// MandateID optionally names a mandate of the agent to evaluate under.
	MandateID *string
}

// Validate checks the input's shape and returns its currency; the error is
// ValidationFailed naming every bad field. The amount must be positive and
// within money's bounds; whether it fits the sender's currency is the
// policy's invalid_amount, as an execute would answer it.
func (in EvaluateInput) Validate() (money.Currency, error) {
	var f failure.Fields
	cur, err := money.ParseCurrency(in.Currency)
	if err != nil {
		f.Add("input.currency", "%s", err.Error())
	}
	if err := money.ValidatePositive(in.Amount); err != nil {
		f.Add("input.amount", "%s", err.Error())
	}
	if in.ToAgent != nil && *in.ToAgent == in.AgentID {
		f.Add("input.toAgent", "must differ from agentId")
	}
	if in.MandateID != nil && !id.Has(*in.MandateID, id.Mandate) {
		f.Add("input.mandateId", "must be a mandate id (mdt_…)")
	}
	if err := f.Err(); err != nil {
		return "", err
	}
	return cur, nil
}

// Evaluation is the policy's decision, exactly as an execute would get it.
type Evaluation struct {
	Allowed    bool
	Reason     string
	ReasonCode string
	// RequiresApproval: allowed, but an execute would wait for an admin's approval.
	RequiresApproval bool
}

// Limits on trust input.
const (
	MaxBatch   = 100
	MaxHistory = 1000
)

// ValidateBatch checks a batchTrust request lists 1 to MaxBatch ids (ValidationFailed otherwise).
func ValidateBatch(agentIDs []string) error {
	if len(agentIDs) == 0 || len(agentIDs) > MaxBatch {
		return failure.Invalid("agentIds", "must list 1 to %d agent ids (got %d)", MaxBatch, len(agentIDs))
	}
	return nil
}

// Drift is a difference `trust rebuild` found between stored counters and
// the raw records, both decayed to the time of the comparison.
type Drift struct {
	AgentID string   `json:"agent_id"`
	Stored  Counters `json:"stored"`
	Rebuilt Counters `json:"rebuilt"`
}

// Service reads and maintains trust for the principal p. Trust reads work
// for any agent id, whoever p is; Evaluate only for the caller's own agents;
// disputes for the reporter's and the reported agent's organizations. Errors are *failure.Error values.
type Service interface {
	// Profiles scores any agents among agentIDs at the current time; unknown
	// ids are simply absent from the map.
	Profiles(ctx context.Context, p auth.Principal, agentIDs []string) (map[string]*Profile, error)
	// ListWithProfiles is agent.Service's List (same page, same errors)
	// with each listed agent's profile, read by the page's own statement:
	// profiles[i] is page.Agents[i]'s, nil for an agent without counters.
	ListWithProfiles(ctx context.Context, p auth.Principal, f agent.ListFilter) (*agent.Page, []*Profile, error)
	// Batch answers in the order asked. ValidationFailed for other than 1 to
	// MaxBatch ids (ValidateBatch); NotFound naming the unknown ids
	// (extension missingIds).
	Batch(ctx context.Context, p auth.Principal, agentIDs []string) ([]Summary, error)
	// History lists score snapshots newest first, at most MaxHistory.
	// NotFound for an unknown agent.
	History(ctx context.Context, p auth.Principal, agentID string, since *time.Time) ([]Snapshot, error)
	// Evaluate runs the execute policy without moving money; a refusal is an
	// Evaluation, not an error. ValidationFailed (EvaluateInput.Validate);
	// NotFound for an agent not the caller's or an unknown toAgent.
	Evaluate(ctx context.Context, p auth.Principal, in EvaluateInput) (*Evaluation, error)
	// Report files a dispute against any agent. ValidationFailed
	// (ReportInput.Validate, or evidence that is not a transaction of that
	// agent visible to the caller); NotFound for an unknown agent; Conflict
	// for evidence already under the caller's open dispute.
	Report(ctx context.Context, p auth.Principal, in ReportInput) (*Dispute, error)
	// Dispute returns one dispute visible to the caller (NotFound otherwise).
	Dispute(ctx context.Context, p auth.Principal, id string) (*Dispute, error)
	// DisputesByID returns the visible disputes among ids, in one read; the
	// others are absent.
	DisputesByID(ctx context.Context, p auth.Principal, ids []string) ([]*Dispute, error)
	// Disputes lists disputes filed by or against the caller's organization,
	// newest first. ValidationFailed (DisputeFilter.Validate, or an after
	// cursor this list did not return).
	Disputes(ctx context.Context, p auth.Principal, f DisputeFilter) (*DisputePage, error)
	// CountDisputes counts what Disputes lists under the same filter.
	CountDisputes(ctx context.Context, p auth.Principal, f DisputeFilter) (int, error)
	// Withdraw withdraws an open dispute the caller's organization filed:
	// NotFound if not visible, Forbidden for the reported organization,
	// Conflict if already withdrawn.
	Withdraw(ctx context.Context, p auth.Principal, id string) (*Dispute, error)
}
