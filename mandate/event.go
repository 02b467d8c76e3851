package mandate

import (
	"github.com/agenttrust/service/event"
	"github.com/agenttrust/service/money"
)

// Data is a mandate as it appears in event payloads (snake_case), as of the change.
type Data struct {
	ID                 string        `json:"id"`
	AgentID            string        `json:"agent_id"`
	OrgID              string        `json:"org_id"`
	Description        string        `json:"description"`
	Actions            []string      `json:"actions"`
	CounterpartyAgents []string      `json:"counterparty_agents"`
	CounterpartyOrgs   []string      `json:"counterparty_orgs"`
	MaxPerTransaction  *money.Amount `json:"max_per_transaction"`
	Budget             money.Amount  `json:"budget"`
	Currency           string        `json:"currency"`
	MaxUses            *int          `json:"max_uses"`
	NotBefore          *string       `json:"not_before"`
	ExpiresAt          string        `json:"expires_at"`
	Status             string        `json:"status"`
	Spent              money.Amount  `json:"spent"`
	Uses               int           `json:"uses"`
	Remaining          money.Amount  `json:"remaining"`
	CreatedAt          string        `json:"created_at"`
	RevokedAt          *string       `json:"revoked_at"`
}

// CreatedEvent is the data of a mandate.created event.
type CreatedEvent struct {
	Data
}

// RevokedEvent is the data of a mandate.revoked event; Reason is null when
// the caller gave none.
type RevokedEvent struct {
	Data
	Reason *string `json:"reason"`
}

// EventType names the event type each payload is written under.
func (CreatedEvent) EventType() string { return event.MandateCreated }

// EventType names the event type each payload is written under.
func (RevokedEvent) EventType() string { return event.MandateRevoked }

// ToData converts a mandate for an event payload.
func (m *Mandate) ToData() Data {
	d := Data{ID: m.ID, AgentID: m.AgentID, OrgID: m.OrgID, Description: m.Description, Actions: m.Actions,
		CounterpartyAgents: m.CounterpartyAgents, CounterpartyOrgs: m.CounterpartyOrgs,
		MaxPerTransaction: m.MaxPerTransaction, Budget: m.Budget, Currency: string(m.Currency), MaxUses: m.MaxUses,
		ExpiresAt: event.FormatTime(m.ExpiresAt), Status: string(m.Status), Spent: m.Spent, Uses: m.Uses,
		Remaining: m.Remaining(), CreatedAt: event.FormatTime(m.CreatedAt)}
	if m.NotBefore != nil {
		s := event.FormatTime(*m.NotBefore)
		d.NotBefore = &s
	}
	if m.RevokedAt != nil {
		s := event.FormatTime(*m.RevokedAt)
		d.RevokedAt = &s
	}
	return d
}
