package trust

import (
	"context"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/agenttrust/service/money"
)

// Profile is an agent's current score with the factors that explain it.
type Profile struct {
	AgentID    string
	Score      int
	Assessment string
	Factors    Factors
	UpdatedAt  time.Time
}

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
}

// Evaluation is the policy's decision, exactly as an execute would get it.
type Evaluation struct {
	Allowed    bool
	Reason     string
	ReasonCode string
}

// Dispute is a report against an agent, backed by transactions as evidence.
type Dispute struct {
	ID          string
	AgentID     string
	ReporterOrg string
	Reason      string
	EvidenceIDs []string
	CreatedAt   time.Time
}

// ReportInput files a dispute against an agent.
type ReportInput struct {
	AgentID     string
	Reason      string
	EvidenceIDs []string
}

// Limits on trust input.
const (
	MaxReasonLength = 2000
	MaxEvidence     = 100
	MaxBatch        = 100
	MaxHistory      = 1000
)

// Drift is a difference `trust rebuild` found between stored counters and the raw records.
type Drift struct {
	AgentID string
	Stored  Counters
	Rebuilt Counters
}

// Service reads and maintains trust. Trust reads work for any agent id;
// Evaluate only for the caller's own agents. Errors are *failure.Error values.
type Service interface {
	Profiles(ctx context.Context, agentIDs []string) (map[string]*Profile, error)
	// Batch answers in the order asked; unknown ids are NotFound naming them.
	Batch(ctx context.Context, agentIDs []string) ([]Summary, error)
	// History lists score snapshots newest first, at most MaxHistory.
	History(ctx context.Context, agentID string, since *time.Time) ([]Snapshot, error)
	Evaluate(ctx context.Context, in EvaluateInput) (*Evaluation, error)
	Report(ctx context.Context, in ReportInput) (*Dispute, error)
}

// PlainReason reports whether a dispute or suspension reason is valid UTF-8
// without control characters other than tab and line breaks (NUL above
// all: the driver drops it and jsonb refuses it).
func PlainReason(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if unicode.IsControl(r) && r != '\t' && r != '\n' && r != '\r' {
			return false
		}
	}
	return true
}
