package transaction

import (
	"time"

	"github.com/agenttrust/service/event"
	"github.com/agenttrust/service/money"
)

// Data is a transaction as it appears in event payloads and JSON exports (snake_case).
type Data struct {
	ID         string       `json:"id"`
	FromAgent  string       `json:"from_agent"`
	ToAgent    string       `json:"to_agent"`
	Action     string       `json:"action"`
	Amount     money.Amount `json:"amount"`
	Currency   string       `json:"currency"`
	Memo       *string      `json:"memo"`
	Status     string       `json:"status"`
	ReversalOf *string      `json:"reversal_of"`
	ReversedBy *string      `json:"reversed_by"`
	Reason     *string      `json:"reason"`
	CreatedAt  string       `json:"created_at"`
	ExpiresAt  *string      `json:"expires_at"`
	DecidedAt  *string      `json:"decided_at"`
	DecidedBy  *string      `json:"decided_by"`
}

// ToData converts a transaction for an event payload or export row.
func (t *Transaction) ToData() Data {
	return Data{ID: t.ID, FromAgent: t.FromAgent, ToAgent: t.ToAgent, Action: t.Action, Amount: t.Amount,
		Currency: string(t.Currency), Memo: t.Memo, Status: string(t.Status), ReversalOf: t.ReversalOf,
		ReversedBy: t.ReversedBy, Reason: t.Reason, CreatedAt: event.FormatTime(t.CreatedAt),
		ExpiresAt: formatTime(t.ExpiresAt), DecidedAt: formatTime(t.DecidedAt), DecidedBy: t.DecidedBy}
}

func formatTime(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := event.FormatTime(*t)
	return &s
}

// CompletedEvent is the data of a transaction.completed event: the new
// transaction.
type CompletedEvent struct {
	Data
	MandateID *string `json:"mandate_id"` // the mandate it was made under; null when none
}

// ReversedEvent is the data of a transaction.reversed event: the reversal
// record (parties swapped, reversal_of naming the original, the reason).
type ReversedEvent struct {
	Data
}

// EventType names the event type each payload is written under.
func (CompletedEvent) EventType() string { return event.TransactionCompleted }

// EventType names the event type each payload is written under.
func (ReversedEvent) EventType() string { return event.TransactionReversed }

// ApprovalRequestedEvent is the data of a transaction.approval_requested
// event: the transaction pending approval, with expires_at and the mandate
// it names.
type ApprovalRequestedEvent struct {
	Data
	MandateID *string `json:"mandate_id"` // the mandate it would be made under; null when none
}

// DeclinedEvent is the data of a transaction.declined event: the declined
// transaction, with the reason, decided_at and decided_by.
type DeclinedEvent struct {
	Data
}

// ExpiredEvent is the data of a transaction.expired event: the transaction
// no admin decided on before its expires_at.
type ExpiredEvent struct {
	Data
}

// EventType names the event type each payload is written under.
func (ApprovalRequestedEvent) EventType() string { return event.TransactionApprovalRequested }

// EventType names the event type each payload is written under.
func (DeclinedEvent) EventType() string { return event.TransactionDeclined }

// EventType names the event type each payload is written under.
func (ExpiredEvent) EventType() string { return event.TransactionExpired }
