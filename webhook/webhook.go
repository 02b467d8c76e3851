// Package webhook holds the rules of webhook endpoints and their deliveries:
// validation, event matching, Standard Webhooks signing, the retry schedule.
// It imports only the standard library and the service's own domain packages.
package webhook

import (
	"context"
	"encoding/json"
	"net/url"
	"time"

	"github.com/agenttrust/service/auth"
	"github.com/agenttrust/service/event"
	"github.com/agenttrust/service/failure"
	"github.com/agenttrust/service/jsontext"
	"github.com/agenttrust/service/paging"
)

// Event types sent to one endpoint only, never written to the log.
const (
	TypeTest         = event.WebhookTest
	TypeVerification = event.WebhookVerification
)

// MaxEndpoints is how many endpoints one organization may register.
const MaxEndpoints = 50

// MaxURLLength is the longest endpoint URL accepted.
const MaxURLLength = 2048

// Wildcard in an endpoint's events asks for every event type.
const Wildcard = event.All

// Endpoint is a registered webhook endpoint. Secret is set only in the
// answers to registration and rotation.
type Endpoint struct {
	ID                  string
	OrgID               string
	URL                 string
	Events              []string
	Active              bool
	ConsecutiveFailures int
	CreatedAt           time.Time
	Secret              *string
}

// Delivery is one recorded attempt to deliver one event to one endpoint.
type Delivery struct {
	ID           string
	EventID      string
	EventType    string
	Attempt      int
	Success      bool
	StatusCode   *int
	LatencyMs    int
	Error        *string
	ResponseBody *string
	CreatedAt    time.Time
}

// DeliveryPage is one page of an endpoint's attempts, newest first.
type DeliveryPage struct {
	Deliveries []Delivery
	NextCursor string // "" on the last page
	// Cursors.At(i) is Deliveries[i]'s cursor; HasPreviousPage says attempts come before.
	Cursors         paging.RowCursors
	HasPreviousPage bool
}

// TestResult is the endpoint's answer to a webhook.test request.
type TestResult struct {
	StatusCode int
	Success    bool
}

// RegisterInput is what registration takes.
type RegisterInput struct {
	URL    string
	Events []string
}

// UpdateInput changes the fields that are set.
type UpdateInput struct {
	URL    *string
	Events []string // nil: unchanged
	Active *bool
}

// Service manages an organization's endpoints; every method acts for the
// principal p. Errors: failure.NotFound for another organization's
// endpoint or event, failure.ValidationFailed for bad input (including an
// endpoint that refuses verification).
type Service interface {
	Register(ctx context.Context, p auth.Principal, in RegisterInput) (*Endpoint, error)
	List(ctx context.Context, p auth.Principal) ([]Endpoint, error)
	Get(ctx context.Context, p auth.Principal, id string) (*Endpoint, error)
	Update(ctx context.Context, p auth.Principal, id string, in UpdateInput) (*Endpoint, error)
	Delete(ctx context.Context, p auth.Principal, id string) error
	Test(ctx context.Context, p auth.Principal, id string) (*TestResult, error)
	RotateSecret(ctx context.Context, p auth.Principal, id string) (*Endpoint, error)
	// Deliveries pages an endpoint's attempts, newest first, forwards or
	// backwards (paging.Window); ValidationFailed for a bad size or cursor.
	Deliveries(ctx context.Context, p auth.Principal, id string, w paging.Window) (*DeliveryPage, error)
	// DeliveryPages reads the page w of each of the caller's endpoints ids
	// at once, in the order of ids (empty for an id not the caller's).
	DeliveryPages(ctx context.Context, p auth.Principal, ids []string, w paging.Window) ([]*DeliveryPage, error)
	// GetMany returns the caller's endpoints among ids; others are absent.
	GetMany(ctx context.Context, p auth.Principal, ids []string) ([]Endpoint, error)
	// DeliveriesByID returns the attempts among ids made to the caller's
	// endpoints; others are absent.
	DeliveriesByID(ctx context.Context, p auth.Principal, ids []string) ([]Delivery, error)
	Redeliver(ctx context.Context, p auth.Principal, id, eventID string) error
}

// ValidateURL checks an endpoint URL's form (reachability is checked by the
// outbound client when it dials). field names the input path.
func ValidateURL(f *failure.Fields, field, raw string) {
	switch {
	case raw == "":
		f.Add(field, "is required")
		return
	case len(raw) > MaxURLLength:
		f.Add(field, "must be at most %d characters", MaxURLLength)
		return
	}
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		f.Add(field, "is not a valid URL")
	case u.Scheme != "https":
		f.Add(field, "must be an https:// URL")
	case u.Host == "" || u.Hostname() == "":
		f.Add(field, "must name a host")
	case u.User != nil:
		f.Add(field, "must not contain credentials")
	case u.Fragment != "":
		f.Add(field, "must not contain a fragment")
	}
}

// ValidateEvents checks an endpoint's event filter with the one rule for
// filters (event.ValidateTypes): known types, or exactly ["*"].
func ValidateEvents(f *failure.Fields, field string, events []string) {
	if fe := failure.As(event.ValidateTypes(field, events)); fe != nil {
		*f = append(*f, fe.FieldErrors...)
	}
}

// Validate checks a registration.
func (in RegisterInput) Validate() error {
	var f failure.Fields
	ValidateURL(&f, "input.url", in.URL)
	ValidateEvents(&f, "input.events", in.Events)
	return f.Err()
}

// Validate checks an update.
func (in UpdateInput) Validate() error {
	var f failure.Fields
	if in.URL != nil {
		ValidateURL(&f, "input.url", *in.URL)
	}
	if in.Events != nil {
		ValidateEvents(&f, "input.events", in.Events)
	}
	return f.Err()
}

// Message is the body of a delivery: the event's id, type, time and data.
type Message struct {
	ID        string          `json:"id"`
	Type      string          `json:"type"`
	Timestamp string          `json:"timestamp"`
	Data      json.RawMessage `json:"data"`
}

// Body encodes the delivery body of an event: what json.Marshal makes of a
// Message, built by hand (it is made for every attempt). data must be valid
// JSON (the log's jsonb is); it is compacted and HTML-escaped as json.Marshal
// does, without json's validating scanner.
func Body(id, typ string, at time.Time, data json.RawMessage) []byte {
	return AppendBody(make([]byte, 0, len(data)+len(id)+len(typ)+len(bodyFrame)), id, typ, at, data)
}

// AppendBody appends Body's bytes to b.
func AppendBody(b []byte, id, typ string, at time.Time, data json.RawMessage) []byte {
	if len(data) == 0 {
		data = json.RawMessage("{}")
	}
	b = append(b, `{"id":`...)
	b = appendJSONString(b, id)
	b = append(b, `,"type":`...)
	b = appendJSONString(b, typ)
	b = append(b, `,"timestamp":"`...)
	b = event.AppendTime(b, at)
	b = append(b, `","data":`...)
	b = jsontext.AppendPlain(b, data)
	return append(b, '}')
}

// bodyFrame is what Body writes around the id, type and data, with room
// for the timestamp: a body with nothing to escape fits the buffer it starts
// with.
const bodyFrame = `{"id":"","type":"","timestamp":"` + event.TimeFormat + `","data":}`

// appendJSONString appends s as a JSON string, as json.Marshal does.
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' || c >= 0x80 {
			q, _ := json.Marshal(s)
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
