// Package event defines the protocol events written to the durable event log,
// the one way events leave the system (subscriptions and webhooks read it).
package event

import (
	"encoding/json"
	"time"
)

// Event types of the contract.
const (
	AgentRegistered      = "agent.registered"
	AgentUpdated         = "agent.updated"
	AgentSuspended       = "agent.suspended"
	TransactionCompleted = "transaction.completed"
	TransactionReversed  = "transaction.reversed"
	TrustScoreChanged    = "trust.score_changed"
	DisputeFiled         = "dispute.filed"
	WebhookDisabled      = "webhook.disabled"
)

// Types lists every event type an endpoint or subscription may ask for.
var Types = []string{
	AgentRegistered, AgentUpdated, AgentSuspended, TransactionCompleted,
	TransactionReversed, TrustScoreChanged, DisputeFiled, WebhookDisabled,
}

// Event is one entry of the log. Seq is taken at insertion, so events can
// commit out of Seq order; Position is the order readers see them in.
type Event struct {
	Seq       int64
	Position  Position
	ID        string
	Type      string
	OrgIDs    []string // every organization the event concerns; one event, one id
	Data      json.RawMessage
	CreatedAt time.Time
}

// New builds an event for the given organizations with data encoded as snake_case JSON.
func New(id, typ string, data any, orgIDs ...string) (Event, error) {
	raw, err := json.Marshal(data)
	if err != nil {
		return Event{}, err
	}
	return Event{ID: id, Type: typ, OrgIDs: dedupe(orgIDs), Data: raw}, nil
}

func dedupe(ids []string) []string {
	out := make([]string, 0, len(ids))
	for _, s := range ids {
		found := false
		for _, o := range out {
			found = found || o == s
		}
		if !found {
			out = append(out, s)
		}
	}
	return out
}

// TimeFormat is the contract's Time: RFC 3339 in UTC with milliseconds,
// used alike in GraphQL answers, event payloads and exports.
const TimeFormat = "2006-01-02T15:04:05.000Z"

// FormatTime renders t as the contract's Time.
func FormatTime(t time.Time) string { return t.UTC().Format(TimeFormat) }
