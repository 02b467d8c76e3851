package webhook

import (
	"context"
	"encoding/json"
	"time"
)

// Outgoing is one message to send to an endpoint: an event of the log, or a
// webhook.test / webhook.verification made up for one endpoint.
type Outgoing struct {
	ID   string // the event id: the webhook-id header on every attempt
	Type string
	At   time.Time // the event's time: the body's timestamp
	Data json.RawMessage
}

// Attempt is what one try to deliver a message produced.
type Attempt struct {
	StatusCode int // 0 when no HTTP answer came
	Latency    time.Duration
	Err        string        // why it failed, when it did
	Body       string        // the first ResponseBodyLimit bytes of the answer
	RetryAfter time.Duration // the endpoint's Retry-After on 429/503, else 0
}

// ResponseBodyLimit is how much of an endpoint's answer is recorded.
const ResponseBodyLimit = 4 << 10

// Success reports a 2xx answer; a 3xx is not followed and is a failure.
func (a Attempt) Success() bool { return a.StatusCode >= 200 && a.StatusCode < 300 }

// Gone reports a 410 answer, which disables the endpoint at once.
func (a Attempt) Gone() bool { return a.StatusCode == 410 }

// Sender signs and posts messages to endpoints through the safe outbound client.
type Sender interface {
	// Send posts msg to url signed under every secret (newest first).
	Send(ctx context.Context, url string, secrets []string, msg Outgoing) Attempt
}

// Target is what a delivery job needs: the endpoint as it is now and the event.
type Target struct {
	WebhookID string
	OrgID     string
	URL       string
	Active    bool
	Secrets   []string // current first, then the previous one during the rotation overlap
	Message   Outgoing
}

// DeliveryJob is the durable job that delivers one event to one endpoint.
type DeliveryJob struct {
	WebhookID string `json:"webhook_id"`
	EventID   string `json:"event_id"`
}

// Kind names the job kind in the queue.
func (DeliveryJob) Kind() string { return "webhook_delivery" }

// Disabled is the data of a webhook.disabled event.
type Disabled struct {
	WebhookID           string `json:"webhook_id"`
	URL                 string `json:"url"`
	Reason              string `json:"reason"`
	ConsecutiveFailures int    `json:"consecutive_failures"`
	LastStatusCode      *int   `json:"last_status_code"`
}
