// Package transaction holds the transaction domain: types, input validation,
// the idempotency fingerprint of a request, and export encodings. The policy
// that decides whether an execute may happen lives in package policy.
package transaction

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agenttrust/service/auth"
	"github.com/agenttrust/service/failure"
	"github.com/agenttrust/service/id"
	"github.com/agenttrust/service/money"
	"github.com/agenttrust/service/paging"
	"github.com/agenttrust/service/plaintext"
)

// Status is a transaction's state.
type Status string

// The transaction statuses of the contract.
const (
	Completed Status = "completed"
	Reversed  Status = "reversed"
	// PendingApproval is an execute over the policy's approval threshold
	// waiting for an admin; Declined and Expired are how it ends undecided
	// or refused (approved, it becomes Completed).
	PendingApproval Status = "pending_approval"
	Declined        Status = "declined"
	Expired         Status = "expired"
)

// Transaction moves an amount from one agent to another. A reversal is a new
// record with the parties swapped, ReversalOf set and status reversed.
type Transaction struct {
	ID         string
	FromAgent  string
	ToAgent    string
	FromOrg    string
	ToOrg      string
	Action     string
	Amount     money.Amount
	Currency   money.Currency
	Memo       *string
	Status     Status
	ReversalOf *string
	ReversedBy *string
	Reason     *string
	CreatedAt  time.Time
	// ExpiresAt is set while the transaction is pending approval, and kept
	// once it expired.
	ExpiresAt *time.Time
	// DecidedAt and DecidedBy (the deciding key's id) are set once an
	// admin approved or declined it; an expired one has neither.
	DecidedAt *time.Time
	DecidedBy *string
	// MandateID is the mandate the execute was made under.
	MandateID *string
}

// Limits on transaction input.
const (
	MaxMemoLength           = 1000
	MaxReasonLength         = 1000
	MaxIdempotencyKeyLength = 255
)

// ExecuteInput is a request to move money between two agents.
type ExecuteInput struct {
	FromAgent      string
	ToAgent        string
	Action         string
	Amount         money.Amount
	Currency       string
	Memo           *string
	IdempotencyKey *string
	MandateID      *string // a mandate of the sender the execute must pass and counts toward
}

// Validate checks the request's shape (not the policy) and returns its
// currency; problems are ValidationFailed naming input.* paths.
func (in ExecuteInput) Validate() (money.Currency, error) {
	var f failure.Fields
	if !id.Has(in.FromAgent, id.Agent) {
		f.Add("input.fromAgent", "must be an agent id (agent_…)")
	}
	if !id.Has(in.ToAgent, id.Agent) {
		f.Add("input.toAgent", "must be an agent id (agent_…)")
	} else if in.ToAgent == in.FromAgent {
		f.Add("input.toAgent", "must differ from fromAgent")
	}
	if strings.TrimSpace(in.Action) == "" || len(in.Action) > 64 {
		f.Add("input.action", "must be 1 to 64 characters")
	} else if !plaintext.Line(in.Action) {
		f.Add("input.action", "must be valid UTF-8 without control characters")
	}
	cur, err := money.ParseCurrency(in.Currency)
	if err != nil {
		f.Add("input.currency", "%s", err.Error())
	}
	if err := validateAmount(in.Amount, cur); err != nil {
		f.Add("input.amount", "%s", err.Error())
	}
	if in.Memo != nil && (utf8.RuneCountInString(*in.Memo) > MaxMemoLength || !plaintext.Text(*in.Memo)) {
		f.Add("input.memo", "must be valid UTF-8 of at most %d characters, without control characters other than tab and line breaks", MaxMemoLength)
	}
	if in.MandateID != nil && !id.Has(*in.MandateID, id.Mandate) {
		f.Add("input.mandateId", "must be a mandate id (mdt_…)")
	}
	if k := in.IdempotencyKey; k != nil && (*k == "" || len(*k) > MaxIdempotencyKeyLength) {
		f.Add("input.idempotencyKey", "must be 1 to %d bytes", MaxIdempotencyKeyLength)
	} else if k != nil && !plaintext.Line(*k) {
		f.Add("input.idempotencyKey", "must be valid UTF-8 without control characters")
	}
	return cur, f.Err()
}

// validateAmount checks a in cur, or only its sign and size when cur is
// not a currency (the currency's own error names that).
func validateAmount(a money.Amount, cur money.Currency) error {
	if cur.IsActive() {
		return money.ValidateAmount(a, cur)
	}
	return money.ValidatePositive(a)
}

// RequestHash fingerprints the parameters an idempotency key is bound to:
// the same key with a different hash is a conflict.
func (in ExecuteInput) RequestHash() string {
	parts := []any{in.FromAgent, in.ToAgent, in.Action, in.Amount.String(), in.Currency, in.Memo}
	if in.MandateID != nil { // appended only when named, so requests without one hash as before
		parts = append(parts, *in.MandateID)
	}
	b, _ := json.Marshal(parts)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// ValidateReason checks a reversal reason: required, non-blank, bounded.
func ValidateReason(reason string) error {
	switch {
	case strings.TrimSpace(reason) == "":
		return failure.Invalid("reason", "is required and must not be blank")
	case utf8.RuneCountInString(reason) > MaxReasonLength:
		return failure.Invalid("reason", "must be at most %d characters", MaxReasonLength)
	case !plaintext.Text(reason):
		return failure.Invalid("reason", "must be valid UTF-8 without control characters other than tab and line breaks")
	}
	return nil
}

// ListFilter selects a page of visible transactions, newest first.
type ListFilter struct {
	AgentID       *string
	Status        *Status
	paging.Window // the page (see paging.Window), newest first either way
	// Fields are the transaction's fields the page fills, by the API's
	// names (fromAgent, amount, memo, ...; unknown names are ignored); the
	// others stay zero, ID and CreatedAt always filled. Nil fills them all.
	Fields []string
}

// Page is one page of transactions.
type Page struct {
	Transactions []*Transaction
	EndCursor    string
	HasNextPage  bool
	// Cursors.At(i) is Transactions[i]'s cursor; HasPreviousPage says rows come before.
	Cursors         paging.RowCursors
	HasPreviousPage bool
}

// Format is an export encoding.
type Format string

// The export formats of the contract.
const (
	CSV  Format = "csv"
	JSON Format = "json"
)

// DefaultExportMaxBytes is the default bound on the content of one export
// answered in memory (the GraphQL field): EXPORT_MAX_BYTES.
const DefaultExportMaxBytes = 2 << 20

// ExportBatch is how many rows one read of an export returns: the most an
// export holds in memory at once, whatever its range.
const ExportBatch = 1000

// ExportRange is the window [Since, Until) of an export; a nil end is open.
type ExportRange struct {
	Since, Until *time.Time
}

// Validate checks that a closed range is not empty or reversed. It returns a
// ValidationFailed error on field "until", or nil.
func (r ExportRange) Validate() error {
	if r.Since != nil && r.Until != nil && !r.Since.Before(*r.Until) {
		return failure.Invalid("until", "must be after since")
	}
	return nil
}

// ExportTooLarge is the ValidationFailed error on "until" for a range whose
// encoded export would pass maxBytes.
func ExportTooLarge(maxBytes int) error {
	return failure.Invalid("until", "the export of this range would pass %d bytes, the largest exportTransactions answers: "+
		"move until earlier (e.g. one day at a time), or stream the whole range from GET /transactions/export", maxBytes)
}

// Export is an encoded export and its row count.
type Export struct {
	Format  Format
	Content string
	Count   int
}

// Service executes, reverses and reads transactions for the principal p. A
// transaction is visible to the organizations of both parties; anything else is NotFound, exactly as an
// unknown id. Errors a caller may see are *failure.Error values; any other
// error is an outage or a bug, shown only as Internal.
type Service interface {
	// Execute moves money if the policy allows it. ValidationFailed
	// (ExecuteInput.Validate); NotFound for a fromAgent not the caller's or an
	// unknown toAgent; Conflict for an idempotency key reused with other
	// parameters; PolicyDenied with reasonCode and reason (the refusal is
	// recorded on the sender's chain and committed first).
	Execute(ctx context.Context, p auth.Principal, in ExecuteInput) (*Transaction, error)
	// Reverse reverses a completed transaction and returns the reversal
	// record. ValidationFailed (ValidateReason); NotFound; Forbidden unless
	// the caller sent it; Conflict if it is reversed or is a reversal.
	Reverse(ctx context.Context, p auth.Principal, id, reason string) (*Transaction, error)
	// Approve completes a transaction pending approval after re-running
	// every check of the policy but the approval threshold. NotFound unless
	// the caller's organization sent it; Conflict unless it is pending (or
	// once its expiry has passed); PolicyDenied with reasonCode and reason
	// when a check fails now (it stays pending).
	Approve(ctx context.Context, p auth.Principal, id string) (*Transaction, error)
	// Decline ends a transaction pending approval as declined, with reason.
	// ValidationFailed (ValidateReason); NotFound and Conflict as Approve.
	Decline(ctx context.Context, p auth.Principal, id, reason string) (*Transaction, error)
	// Get returns one visible transaction. NotFound.
	Get(ctx context.Context, p auth.Principal, id string) (*Transaction, error)
	// GetMany returns the visible transactions among ids, in one read; the
	// others are absent.
	GetMany(ctx context.Context, p auth.Principal, ids []string) ([]*Transaction, error)
	// List returns a page, newest first. ValidationFailed for a limit outside
	// 1..paging.Max or an after cursor this list did not return.
	List(ctx context.Context, p auth.Principal, f ListFilter) (*Page, error)
	// Count counts the visible transactions f selects.
	Count(ctx context.Context, p auth.Principal, f ListFilter) (int, error)
	// Export reads the visible transactions created in r, oldest first,
	// and hands them to each in batches of at most ExportBatch, each read
	// by its own statement, so that neither memory nor a database
	// connection is held for the whole range; it returns each's first
	// error. ValidationFailed for an empty range (ExportRange.Validate).
	Export(ctx context.Context, p auth.Principal, r ExportRange, each func([]*Transaction) error) error
}
