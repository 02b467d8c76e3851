package agent

import (
	"time"

	"github.com/agenttrust/service/event"
	"github.com/agenttrust/service/money"
)

// Data is an agent as it appears in event payloads (snake_case): every
// agent.* event carries the agent after the change.
type Data struct {
	ID                string        `json:"id"`
	OrgID             string        `json:"org_id"`
	Name              string        `json:"name"`
	AuthorizedActions []string      `json:"authorized_actions"`
	SpendingLimit     money.Amount  `json:"spending_limit"`
	DailyLimit        *money.Amount `json:"daily_limit"`
	Currency          string        `json:"currency"`
	Environment       string        `json:"environment"`
	Status            string        `json:"status"`
	Fingerprint       string        `json:"fingerprint"`
	CreatedAt         string        `json:"created_at"`
	UpdatedAt         string        `json:"updated_at"`
}

// RegisteredEvent is the data of an agent.registered event.
type RegisteredEvent struct {
	Data
}

// UpdatedEvent is the data of an agent.updated event: the agent after the
// update and the snake_case names of the identity fields that changed.
type UpdatedEvent struct {
	Data
	ChangedFields []string `json:"changed_fields"`
}

// SuspendedEvent is the data of an agent.suspended event; Reason is null
// when the caller gave none.
type SuspendedEvent struct {
	Data
	Reason *string `json:"reason"`
}

// ReinstatedEvent is the data of an agent.reinstated event; Reason is null
// when the caller gave none.
type ReinstatedEvent struct {
	Data
	Reason *string `json:"reason"`
}

// EventType names the event type each payload is written under.
func (RegisteredEvent) EventType() string { return event.AgentRegistered }

// EventType names the event type each payload is written under.
func (UpdatedEvent) EventType() string { return event.AgentUpdated }

// EventType names the event type each payload is written under.
func (SuspendedEvent) EventType() string { return event.AgentSuspended }

// EventType names the event type each payload is written under.
func (ReinstatedEvent) EventType() string { return event.AgentReinstated }

// ToData converts an agent for an event payload.
func (a *Agent) ToData() Data {
	return Data{
		ID: a.ID, OrgID: a.OrgID, Name: a.Name, AuthorizedActions: a.AuthorizedActions,
		SpendingLimit: a.SpendingLimit, DailyLimit: a.DailyLimit, Currency: string(a.Currency),
		Environment: string(a.Environment), Status: string(a.Status), Fingerprint: a.Fingerprint,
		CreatedAt: event.FormatTime(a.CreatedAt), UpdatedAt: event.FormatTime(a.UpdatedAt),
	}
}

// Change is one field's old and new value in an audit entry.
type Change struct {
	From any `json:"from"`
	To   any `json:"to"`
}

// Changes describes, per changed identity field, its old and new value.
func Changes(before, after Agent, fields []string) map[string]Change {
	out := make(map[string]Change, len(fields))
	for _, f := range fields {
		switch f {
		case "name":
			out[f] = Change{before.Name, after.Name}
		case "spending_limit":
			out[f] = Change{before.SpendingLimit.String(), after.SpendingLimit.String()}
		case "daily_limit":
			out[f] = Change{amountOrNil(before.DailyLimit), amountOrNil(after.DailyLimit)}
		}
	}
	return out
}

func amountOrNil(a *money.Amount) any {
	if a == nil {
		return nil
	}
	return a.String()
}

// Stamp sets both timestamps, truncated to the microsecond precision of storage.
func (a *Agent) Stamp(now time.Time) {
	now = now.UTC().Truncate(time.Microsecond)
	if a.CreatedAt.IsZero() {
		a.CreatedAt = now
	}
	a.UpdatedAt = now
}
