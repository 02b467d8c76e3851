// Package event defines the protocol events written to the durable event log,
// the one way events leave the system (subscriptions and webhooks read it).
package event

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/agenttrust/service/auth"
	"github.com/agenttrust/service/failure"
)

// Event types of the contract. Each one's data is a payload struct in the
// domain package that emits it (agent.Registered, transaction.Completed, ...).
const (
	AgentRegistered      = "agent.registered"
	AgentUpdated         = "agent.updated"
	AgentSuspended       = "agent.suspended"
	AgentReinstated      = "agent.reinstated"
	AgentPolicyChanged   = "agent.policy_changed"
	TransactionCompleted = "transaction.completed"
	TransactionReversed  = "transaction.reversed"
	TrustScoreChanged    = "trust.score_changed"
	DisputeFiled         = "dispute.filed"
	DisputeWithdrawn     = "dispute.withdrawn"
	WebhookDisabled      = "webhook.disabled"
	MandateCreated       = "mandate.created"
	MandateRevoked       = "mandate.revoked"

	// WebhookTest and WebhookVerification are delivery-only: they go to the one
	// endpoint being tested or registered, are never written to the log, and
	// cannot be subscribed to.
	WebhookTest         = "webhook.test"
	WebhookVerification = "webhook.verification"
)

// Event types that follow a transaction over its policy's approval threshold.
const (
	TransactionApprovalRequested = "transaction.approval_requested"
	TransactionDeclined          = "transaction.declined"
	TransactionExpired           = "transaction.expired"
)

// All is the wildcard an endpoint or subscription uses for every type.
const All = "*"

// Types lists every event type written to the log, which an endpoint or
// subscription may ask for, in the contract's order.
var Types = []string{
	AgentRegistered, AgentUpdated, AgentSuspended, AgentReinstated, AgentPolicyChanged,
	TransactionCompleted, TransactionReversed,
	TransactionApprovalRequested, TransactionDeclined, TransactionExpired, TrustScoreChanged,
	DisputeFiled, DisputeWithdrawn, WebhookDisabled,
	MandateCreated, MandateRevoked,
}

// DeliveryOnly lists the types sent straight to one webhook endpoint.
var DeliveryOnly = []string{WebhookTest, WebhookVerification}

// Known reports whether typ is an event type of the log (delivery-only types
// and the wildcard are not).
func Known(typ string) bool { return slices.Contains(Types, typ) }

// ValidateTypes checks a filter list as registerWebhook and the events
// subscription take it: non-empty, each a known type, or exactly ["*"].
// field names the input in the error (e.g. "input.events"). It returns a
// failure.ValidationFailed error naming each bad element, or nil.
func ValidateTypes(field string, types []string) error {
	var f failure.Fields
	if len(types) == 0 {
		f.Add(field, "must list at least one event type, or \"*\" for all")
		return f.Err()
	}
	if len(types) == 1 && types[0] == All {
		return nil
	}
	for i, t := range types {
		switch {
		case t == All:
			f.Add(elem(field, i), "\"*\" must be the only element")
		case slices.Contains(DeliveryOnly, t):
			f.Add(elem(field, i), "%q is sent only to the endpoint being tested or registered", t)
		case !Known(t):
			f.Add(elem(field, i), "unknown event type %q", t)
		}
	}
	return f.Err()
}

// Matches reports whether an event of type typ passes the filter types
// (nil, empty or ["*"] pass every type).
func Matches(types []string, typ string) bool {
	return len(types) == 0 || slices.Contains(types, All) || slices.Contains(types, typ)
}

func elem(field string, i int) string { return field + "[" + strconv.Itoa(i) + "]" }

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

// Reader reads events by id for the principal p: those concerning its
// organization, in one read; the others are absent.
type Reader interface {
	EventsByID(ctx context.Context, p auth.Principal, ids []string) ([]Event, error)
}

// Payload is the typed data of one event type, defined in the domain package
// that emits it (agent.RegisteredEvent, transaction.CompletedEvent, ...).
type Payload interface {
	// EventType is the type the payload is written under.
	EventType() string
}

// New builds an event for the given organizations with data encoded as
// snake_case JSON; data should be the type's Payload. It refuses a type that
// is not in Types, a Payload written under another type than its own, and
// data that does not encode.
func New(id, typ string, data any, orgIDs ...string) (Event, error) {
	if !Known(typ) {
		return Event{}, fmt.Errorf("event type %q is not a type of the log", typ)
	}
	if p, ok := data.(Payload); ok && p.EventType() != typ {
		return Event{}, fmt.Errorf("a %s payload written as %s", p.EventType(), typ)
	}
	raw, err := json.Marshal(data)
	if err != nil {
		return Event{}, err
	}
	return Event{ID: id, Type: typ, OrgIDs: dedupe(orgIDs), Data: raw}, nil
}

func dedupe(ids []string) []string {
	out := make([]string, 0, len(ids))
	for _, s := range ids {
		if !slices.Contains(out, s) {
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

// AppendTime appends FormatTime's form of t to b, without Format's reading
// of the layout: a page of agents writes two times per agent.
func AppendTime(b []byte, t time.Time) []byte {
	t = t.UTC()
	year, month, day := t.Date()
	if year < 0 || year > 9999 { // Format's own forms of such years
		return t.AppendFormat(b, TimeFormat)
	}
	hour, minute, sec := t.Clock()
	ms := t.Nanosecond() / 1e6
	return append(b, byte('0'+year/1000), byte('0'+year/100%10), byte('0'+year/10%10), byte('0'+year%10), '-',
		byte('0'+month/10), byte('0'+month%10), '-', byte('0'+day/10), byte('0'+day%10), 'T',
		byte('0'+hour/10), byte('0'+hour%10), ':', byte('0'+minute/10), byte('0'+minute%10), ':',
		byte('0'+sec/10), byte('0'+sec%10), '.', byte('0'+ms/100), byte('0'+ms/10%10), byte('0'+ms%10), 'Z')
}
