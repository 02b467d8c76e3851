package client

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// WebhookTolerance is how far a delivery's webhook-timestamp may be from now.
const WebhookTolerance = 5 * time.Minute

// Sentinels of VerifyWebhook's typed errors.
var (
	// ErrInvalidSignature: no signature of the delivery matches the secret,
	// or the signature headers are missing or malformed.
	ErrInvalidSignature = errors.New("agenttrust: invalid webhook signature")
	// ErrStaleTimestamp: the delivery's timestamp is more than
	// WebhookTolerance from now (a replay, or a badly skewed clock).
	ErrStaleTimestamp = errors.New("agenttrust: webhook timestamp outside tolerance")
)

// SignatureError says why a delivery's signature was refused.
type SignatureError struct{ Reason string }

// Error implements error.
func (e *SignatureError) Error() string { return "agenttrust: invalid webhook signature: " + e.Reason }

// Is matches ErrInvalidSignature.
func (e *SignatureError) Is(target error) bool { return target == ErrInvalidSignature }

// TimestampError is a correctly signed delivery whose timestamp is too far
// from now.
type TimestampError struct {
	Timestamp time.Time // the delivery's webhook-timestamp
	Now       time.Time // the verifier's clock
}

// Error implements error.
func (e *TimestampError) Error() string {
	return fmt.Sprintf("agenttrust: webhook timestamp %s is %s from now, more than %s",
		e.Timestamp.UTC().Format(time.RFC3339), e.Now.Sub(e.Timestamp).Abs().Round(time.Second), WebhookTolerance)
}

// Is matches ErrStaleTimestamp.
func (e *TimestampError) Is(target error) bool { return target == ErrStaleTimestamp }

// Event is one event of the organization: delivered to webhooks, streamed by
// Events.Subscribe.
type Event struct {
	ID        string          `json:"id"` // evt_<id>, also the webhook-id of its deliveries
	Type      string          `json:"type"`
	CreatedAt time.Time       `json:"createdAt"`
	Data      json.RawMessage `json:"data"` // snake_case fields, per event type
}

// VerifyWebhook checks a webhook delivery per Standard Webhooks v1 and
// returns its event. secret is the endpoint's whsec_… secret; header and
// body are the request's, the body unmodified. Every space-separated v1
// signature is tried (during a secret rotation there are two), compared in
// constant time. A bad signature is a *SignatureError (ErrInvalidSignature),
// a timestamp more than 5 minutes from now a *TimestampError
// (ErrStaleTimestamp); a malformed secret or body a plain error.
func VerifyWebhook(secret string, header http.Header, body []byte) (*Event, error) {
	return verifyWebhookAt(secret, header, body, time.Now())
}

func verifyWebhookAt(secret string, header http.Header, body []byte, now time.Time) (*Event, error) {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil || len(key) == 0 {
		return nil, errors.New("agenttrust: webhook secret must be whsec_ followed by base64")
	}
	id, ts, sigs := header.Get("webhook-id"), header.Get("webhook-timestamp"), header.Get("webhook-signature")
	if id == "" || ts == "" || sigs == "" {
		return nil, &SignatureError{Reason: "missing webhook-id, webhook-timestamp or webhook-signature header"}
	}
	unix, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return nil, &SignatureError{Reason: "webhook-timestamp is not unix seconds"}
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id + "." + ts + "."))
	mac.Write(body)
	want := mac.Sum(nil)
	matched := false
	for _, s := range strings.Fields(sigs) {
		version, sig, ok := strings.Cut(s, ",")
		if !ok || version != "v1" {
			continue
		}
		got, err := base64.StdEncoding.DecodeString(sig)
		if err != nil {
			continue
		}
		if hmac.Equal(got, want) {
			matched = true // keep looping: the time taken does not say which matched
		}
	}
	if !matched {
		return nil, &SignatureError{Reason: "no v1 signature matches the secret"}
	}
	at := time.Unix(unix, 0)
	if d := now.Sub(at); d > WebhookTolerance || d < -WebhookTolerance {
		return nil, &TimestampError{Timestamp: at, Now: now}
	}
	var b struct {
		ID        string          `json:"id"`
		Type      string          `json:"type"`
		Timestamp time.Time       `json:"timestamp"`
		Data      json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(body, &b); err != nil {
		return nil, fmt.Errorf("agenttrust: webhook body is not an event: %w", err)
	}
	return &Event{ID: b.ID, Type: b.Type, CreatedAt: b.Timestamp, Data: b.Data}, nil
}
