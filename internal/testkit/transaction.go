package testkit

import "encoding/json"

// Selections and documents of the transaction operations.
const (
	TxFields        = `id fromAgent toAgent action amount currency memo status reversalOf reversedBy reason createdAt expiresAt decidedAt decidedBy`
	ExecuteMutation = `mutation($input: ExecuteTransactionInput!) { executeTransaction(input: $input) { ` + TxFields + ` } }`
	ReverseMutation = `mutation($id: ID!, $reason: String!) { reverseTransaction(id: $id, reason: $reason) { ` + TxFields + ` } }`
	ApproveMutation = `mutation($id: ID!) { approveTransaction(id: $id) { ` + TxFields + ` } }`
	DeclineMutation = `mutation($id: ID!, $reason: String!) { declineTransaction(id: $id, reason: $reason) { ` + TxFields + ` } }`
	TxQuery         = `query($id: ID!) { transaction(id: $id) { ` + TxFields + ` } }`
)

// Transaction mirrors the schema's Transaction (the amount stays raw JSON).
type Transaction struct {
	ID         string          `json:"id"`
	FromAgent  string          `json:"fromAgent"`
	ToAgent    string          `json:"toAgent"`
	Action     string          `json:"action"`
	Amount     json.RawMessage `json:"amount"`
	Currency   string          `json:"currency"`
	Memo       *string         `json:"memo"`
	Status     string          `json:"status"`
	ReversalOf *string         `json:"reversalOf"`
	ReversedBy *string         `json:"reversedBy"`
	Reason     *string         `json:"reason"`
	CreatedAt  string          `json:"createdAt"`
	ExpiresAt  *string         `json:"expiresAt"`
	DecidedAt  *string         `json:"decidedAt"`
	DecidedBy  *string         `json:"decidedBy"`
}

// Pay is an ExecuteTransactionInput of a purchase from one agent to another
// in the sender's currency.
func Pay(from, to Agent, amount any) map[string]any {
	return map[string]any{"fromAgent": from.ID, "toAgent": to.ID, "action": "purchase", "amount": amount, "currency": from.Currency}
}

// Execute runs executeTransaction as the holder of key and returns the answer.
func (k *Kit) Execute(key string, in map[string]any) *Response {
	k.T.Helper()
	return k.Do(key, ExecuteMutation, map[string]any{"input": in})
}

// MustExecute is Execute that fails unless the transaction completed.
func (k *Kit) MustExecute(key string, in map[string]any) Transaction {
	k.T.Helper()
	var tx Transaction
	k.Execute(key, in).Into(k.T, "executeTransaction", &tx)
	return tx
}

// Reverse runs reverseTransaction as the holder of key and returns the answer.
func (k *Kit) Reverse(key, id, reason string) *Response {
	k.T.Helper()
	return k.Do(key, ReverseMutation, map[string]any{"id": id, "reason": reason})
}

// Approve runs approveTransaction as the holder of key and returns the answer.
func (k *Kit) Approve(key, id string) *Response {
	k.T.Helper()
	return k.Do(key, ApproveMutation, map[string]any{"id": id})
}

// Decline runs declineTransaction as the holder of key and returns the answer.
func (k *Kit) Decline(key, id, reason string) *Response {
	k.T.Helper()
	return k.Do(key, DeclineMutation, map[string]any{"id": id, "reason": reason})
}

// Transaction reads one transaction as the kit's organization.
func (k *Kit) Transaction(id string) Transaction {
	k.T.Helper()
	var tx Transaction
	k.Query(TxQuery, map[string]any{"id": id}).Into(k.T, "transaction", &tx)
	return tx
}
