package client

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"iter"
	"time"

	"github.com/shopspring/decimal"
)

// TransactionStatus is a transaction's state.
type TransactionStatus string

// Transaction states.
const (
	TransactionCompleted TransactionStatus = "completed"
	TransactionReversed  TransactionStatus = "reversed"
	// TransactionPendingApproval waits for Approve or Decline until ExpiresAt; no money moved.
	TransactionPendingApproval TransactionStatus = "pending_approval"
	TransactionDeclined        TransactionStatus = "declined" // declined by an admin; Reason says why
	TransactionExpired         TransactionStatus = "expired"  // not decided before ExpiresAt
)

// ExportFormat is an export encoding.
type ExportFormat string

// Export encodings.
const (
	ExportCSV  ExportFormat = "csv"
	ExportJSON ExportFormat = "json"
)

// Transaction is money moved from one agent to another.
type Transaction struct {
	ID         string            `json:"id"` // tx_<id>
	FromAgent  string            `json:"fromAgent"`
	ToAgent    string            `json:"toAgent"`
	Action     string            `json:"action"`
	Amount     decimal.Decimal   `json:"amount"`
	Currency   string            `json:"currency"`
	Memo       string            `json:"memo"` // "" when none
	Status     TransactionStatus `json:"status"`
	ReversalOf string            `json:"reversalOf"` // on a reversal record: the original
	ReversedBy string            `json:"reversedBy"` // on a reversed original: its reversal
	Reason     string            `json:"reason"`     // the reversal reason, on both records; or why it was declined
	CreatedAt  time.Time         `json:"createdAt"`  // for an approved transaction, when it was approved
	ExpiresAt  *time.Time        `json:"expiresAt"`  // while pending approval, and on an expired one
	DecidedAt  *time.Time        `json:"decidedAt"`  // when an admin approved or declined it
	DecidedBy  string            `json:"decidedBy"`  // the key_… that approved or declined it
	MandateID  string            `json:"mandateId"`  // the mandate it was made under; "" when none
}

const transactionFields = `id fromAgent toAgent action amount currency memo status reversalOf reversedBy reason createdAt expiresAt decidedAt decidedBy mandateId`

// TransactionPage is one page of transactions, newest first.
type TransactionPage struct {
	Transactions []Transaction
	PageInfo     PageInfo
	TotalCount   int
}

// ExecuteInput moves Amount from FromAgent to ToAgent.
type ExecuteInput struct {
	FromAgent string          `json:"fromAgent"` // one of yours
	ToAgent   string          `json:"toAgent"`   // any organization's
	Action    string          `json:"action"`    // one of the sender's authorized actions
	Amount    decimal.Decimal `json:"amount"`
	Currency  string          `json:"currency"`
	Memo      string          `json:"memo,omitempty"`
	// IdempotencyKey makes the execute safe to repeat for 24 hours: the same
	// key and input return the original transaction. Empty: Execute picks a
	// random one and sends it on every retry.
	IdempotencyKey string `json:"idempotencyKey,omitempty"`
	// MandateID names a mandate of the sender: the execute must pass it too
	// and counts toward its budget and uses.
	MandateID string `json:"mandateId,omitempty"`
}

// ListTransactionsParams filter and page Transactions.List.
type ListTransactionsParams struct {
	AgentID string            // only transactions where this agent is either party
	Status  TransactionStatus // "" lists both
	Limit   int               // 1..200; 0 is the server's default of 50
	After   string            // the EndCursor of the previous page
	// Last and Before page backwards (not with Limit or After): the Last
	// transactions (1..200, 0 the server's default) just before Before, the
	// StartCursor of the page after; empty Before: the list's last ones.
	Last   int
	Before string
}

// ExportParams select the transactions of Transactions.Export.
type ExportParams struct {
	Format ExportFormat
	Since  time.Time // inclusive; zero: from the beginning
	Until  time.Time // exclusive; zero: up to now
}

// TransactionExport is an encoded export.
type TransactionExport struct {
	Format  ExportFormat `json:"format"`
	Content string       `json:"content"` // oldest first
	Count   int          `json:"count"`
}

// TransactionsService holds the transactions operations.
type TransactionsService struct{ c *Client }

// Execute runs the trust policy and, when it allows, moves the money. A
// refusal is a *PolicyDeniedError; the same idempotency key with other input
// is a *ConflictError. Every attempt carries the same idempotency key, so
// retrying after a lost answer returns the original transaction and never
// pays twice.
func (s *TransactionsService) Execute(ctx context.Context, in ExecuteInput) (*Transaction, error) {
	if in.IdempotencyKey == "" {
		in.IdempotencyKey = NewIdempotencyKey()
	}
	var t Transaction
	err := s.c.graphql(ctx, "transactions.execute", safe,
		`mutation($input: ExecuteTransactionInput!) { executeTransaction(input: $input) { `+transactionFields+` } }`,
		map[string]any{"input": in}, "executeTransaction", &t)
	return ptrOrNil(&t, err)
}

// NewIdempotencyKey returns a random idempotency key (idem_ and 32 hex digits).
func NewIdempotencyKey() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand)
	return "idem_" + hex.EncodeToString(b[:])
}

// Get returns a transaction one of whose parties is yours, or a *NotFoundError.
func (s *TransactionsService) Get(ctx context.Context, id string) (*Transaction, error) {
	var t Transaction
	err := s.c.graphql(ctx, "transactions.get", safe,
		`query($id: ID!) { transaction(id: $id) { `+transactionFields+` } }`,
		map[string]any{"id": id}, "transaction", &t)
	return ptrOrNil(&t, err)
}

// List returns one page of the transactions visible to you, newest first.
func (s *TransactionsService) List(ctx context.Context, p ListTransactionsParams) (*TransactionPage, error) {
	vars := backVars(pageVars(p.Limit, p.After, "agentId", p.AgentID, "status", string(p.Status)), p.Last, p.Before)
	var conn connection[Transaction]
	err := s.c.graphql(ctx, "transactions.list", safe,
		`query($agentId: ID, $status: TransactionStatus, $limit: Int, $after: String, $last: Int, $before: String) { transactions(agentId: $agentId, status: $status, limit: $limit, after: $after, last: $last, before: $before) { nodes { `+transactionFields+` } `+pageInfoFields+` totalCount } }`,
		vars, "transactions", &conn)
	if err != nil {
		return nil, err
	}
	return &TransactionPage{Transactions: conn.Nodes, PageInfo: conn.PageInfo, TotalCount: conn.TotalCount}, nil
}

// ListAll iterates over every transaction matching p, page after page from
// p.After on; the first error ends it.
func (s *TransactionsService) ListAll(ctx context.Context, p ListTransactionsParams) iter.Seq2[Transaction, error] {
	return every(ctx, p.After, func(ctx context.Context, after string) ([]Transaction, PageInfo, error) {
		p.After = after
		page, err := s.List(ctx, p)
		if err != nil {
			return nil, PageInfo{}, err
		}
		return page.Transactions, page.PageInfo, nil
	})
}

// ListAllBackward iterates over every transaction matching p from p.Before
// (the oldest when empty) towards the newest, page before page of p.Last:
// oldest first. The first error ends it.
func (s *TransactionsService) ListAllBackward(ctx context.Context, p ListTransactionsParams) iter.Seq2[Transaction, error] {
	if p.Last == 0 {
		p.Last = defaultPageSize
	}
	return backward(ctx, p.Before, func(ctx context.Context, before string) ([]Transaction, PageInfo, error) {
		p.Before = before
		page, err := s.List(ctx, p)
		if err != nil {
			return nil, PageInfo{}, err
		}
		return page.Transactions, page.PageInfo, nil
	})
}

// Reverse reverses a completed transaction your organization sent and
// returns the reversal record. Reversing it again is a *ConflictError,
// another organization's is a *ForbiddenError. It is retried only when the
// request provably never reached the server.
func (s *TransactionsService) Reverse(ctx context.Context, id, reason string) (*Transaction, error) {
	var t Transaction
	err := s.c.graphql(ctx, "transactions.reverse", once,
		`mutation($id: ID!, $reason: String!) { reverseTransaction(id: $id, reason: $reason) { `+transactionFields+` } }`,
		map[string]any{"id": id, "reason": reason}, "reverseTransaction", &t)
	return ptrOrNil(&t, err)
}

// Approve completes a transaction pending approval (admin keys) after the
// policy's checks, all but the approval threshold, pass again now. A failing
// check is a *PolicyDeniedError (it stays pending); a transaction not
// pending (decided, expired or past its ExpiresAt) is a *ConflictError. It
// is retried only when the request provably never reached the server.
func (s *TransactionsService) Approve(ctx context.Context, id string) (*Transaction, error) {
	var t Transaction
	err := s.c.graphql(ctx, "transactions.approve", once,
		`mutation($id: ID!) { approveTransaction(id: $id) { `+transactionFields+` } }`,
		map[string]any{"id": id}, "approveTransaction", &t)
	return ptrOrNil(&t, err)
}

// Decline ends a transaction pending approval as declined with reason
// (admin keys); one not pending is a *ConflictError.
func (s *TransactionsService) Decline(ctx context.Context, id, reason string) (*Transaction, error) {
	var t Transaction
	err := s.c.graphql(ctx, "transactions.decline", once,
		`mutation($id: ID!, $reason: String!) { declineTransaction(id: $id, reason: $reason) { `+transactionFields+` } }`,
		map[string]any{"id": id, "reason": reason}, "declineTransaction", &t)
	return ptrOrNil(&t, err)
}

// Export encodes your visible transactions created in [Since, Until).
func (s *TransactionsService) Export(ctx context.Context, p ExportParams) (*TransactionExport, error) {
	vars := map[string]any{"format": p.Format}
	if !p.Since.IsZero() {
		vars["since"] = formatTime(p.Since)
	}
	if !p.Until.IsZero() {
		vars["until"] = formatTime(p.Until)
	}
	var e TransactionExport
	err := s.c.graphql(ctx, "transactions.export", safe,
		`query($format: ExportFormat!, $since: Time, $until: Time) { exportTransactions(format: $format, since: $since, until: $until) { format content count } }`,
		vars, "exportTransactions", &e)
	return ptrOrNil(&e, err)
}
