package webhook

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// Outgoing is one message to send to an endpoint: an event of the log, or a
// webhook.test / webhook.verification made up for one endpoint.
type Outgoing struct {
	ID   string // the event id: the webhook-id header on every attempt
	Seq  int64  // the event's position in the log (0 for a test or verification, which are not recorded)
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

// Batch is what a delivery job needs: the endpoint as it is now and the
// events it still has to send there, in log order.
type Batch struct {
	WebhookID           string
	OrgID               string
	URL                 string
	Active              bool
	ConsecutiveFailures int
	Secrets             []string // current first, then the previous one during the rotation overlap
	Messages            []Outgoing
}

// JobRun names one run of a delivery job: River's job id and its attempt
// (River's count, which each fetch of the job after a failure or a rescue
// raises). A run sends each of its job's events at most once. A snooze does
// not raise it, so a run that snoozed after sending (out of time, every
// attempt a success: a failure is retried instead) shares it with the run
// after; that run sends only what the job has not delivered, none of the
// same events.
type JobRun struct {
	ID      int64
	Attempt int
}

// Sent is one attempt of a batch: the message, what came of it and when it
// ended (the record's time, so that records list in the order attempts ended).
type Sent struct {
	Message Outgoing
	Attempt
	Done time.Time
}

// JobEvents is how many events one delivery job carries at most by default.
// Each job costs Postgres about the same beside its events (River's insert,
// fetch and completion, the batch's load and record statements), so larger
// jobs make a backlog cheaper per delivery (BENCHMARKS.md, webhook
// delivery). The price: a job holds its events' data while it runs (its
// attempts are recorded as they end).
const JobEvents = 500

// DeliveryJob is the durable job that delivers a batch of events to one
// endpoint: each event is sent until it succeeds, and a retried job sends
// only the events it has not yet delivered.
type DeliveryJob struct {
	// OrgID is the endpoint's organization: its jobs share the
	// organization's share of the workers (webhook/delivery), which a
	// worker checks before reading anything.
	OrgID     string `json:"org_id"`
	WebhookID string `json:"webhook_id"`
	// Seqs are the events' sequence numbers in the log, in the compact form
	// of EncodeSeqs.
	Seqs string `json:"seqs"`
}

// Kind names the job kind in the queue.
func (DeliveryJob) Kind() string { return "webhook_delivery" }

// EventSeqs returns the sequence numbers of the job's events. Errors:
// ErrBadSeqs.
func (j DeliveryJob) EventSeqs() ([]int64, error) { return DecodeSeqs(j.Seqs) }

// Tally is what attempts, in the order they ended, do to an endpoint's
// consecutive_failures: a success starts the count again from 0.
type Tally struct {
	Reset    bool // some attempt succeeded
	Failures int  // failed attempts, after the last success when Reset
	Gone     bool // some attempt answered 410, which disables at once
}

// TallyAttempts tallies attempts in the order they ended.
func TallyAttempts(as []Attempt) Tally {
	var t Tally
	for _, a := range as {
		switch {
		case a.Success():
			t.Reset, t.Failures = true, 0
		default:
			t.Failures++
			t.Gone = t.Gone || a.Gone()
		}
	}
	return t
}

// Apply returns the count after t, from prev.
func (t Tally) Apply(prev int) int {
	if t.Reset {
		return t.Failures
	}
	return prev + t.Failures
}

// DisableReason says why an endpoint left with failures consecutive failed
// attempts after t must be disabled, or "" when it stays active.
func DisableReason(t Tally, failures, disableAfter int) string {
	switch {
	case t.Gone:
		return "the endpoint answered 410 Gone"
	case t.Failures > 0 && failures >= disableAfter:
		return fmt.Sprintf("%d consecutive failed attempts", failures)
	}
	return ""
}

// Disabled is the data of a webhook.disabled event.
type Disabled struct {
	WebhookID           string `json:"webhook_id"`
	URL                 string `json:"url"`
	Reason              string `json:"reason"`
	ConsecutiveFailures int    `json:"consecutive_failures"`
	LastStatusCode      *int   `json:"last_status_code"`
}
