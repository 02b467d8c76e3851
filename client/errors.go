package client

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// Sentinels: every error the service answers matches ErrAPI and the one of
// its kind with errors.Is.
var (
	ErrAPI             = errors.New("agenttrust: API error")
	ErrNotFound        = errors.New("agenttrust: not found")
	ErrRateLimited     = errors.New("agenttrust: rate limited")
	ErrUnauthenticated = errors.New("agenttrust: unauthenticated")
	ErrValidation      = errors.New("agenttrust: validation failed")
	ErrPolicyDenied    = errors.New("agenttrust: policy denied")
	ErrConflict        = errors.New("agenttrust: conflict")
	ErrForbidden       = errors.New("agenttrust: forbidden")
	ErrInternal        = errors.New("agenttrust: internal error")
)

// The service's error codes (extensions.code in GraphQL, error.code in REST).
const (
	CodeUnauthenticated         = "UNAUTHENTICATED"
	CodeForbidden               = "FORBIDDEN"
	CodeNotFound                = "NOT_FOUND"
	CodeValidationFailed        = "VALIDATION_FAILED"
	CodeConflict                = "CONFLICT"
	CodePolicyDenied            = "POLICY_DENIED"
	CodeRateLimited             = "RATE_LIMITED"
	CodeInternal                = "INTERNAL"
	CodeGraphQLParseFailed      = "GRAPHQL_PARSE_FAILED"
	CodeGraphQLValidationFailed = "GRAPHQL_VALIDATION_FAILED"
)

// APIError is an error answer of the service. Every typed error below wraps
// one, so errors.As(err, &apiErr) reaches the status and request id of any.
type APIError struct {
	// StatusCode is the HTTP status of the answer (200 for most GraphQL errors).
	StatusCode int
	// Code is the contract's error code, e.g. NOT_FOUND.
	Code string
	// Message is the service's readable explanation.
	Message string
	// RequestID is the X-Request-Id of the answer: quote it to support.
	RequestID string
}

// Error implements error.
func (e *APIError) Error() string {
	var b strings.Builder
	b.WriteString("agenttrust: ")
	if e.Code != "" {
		b.WriteString(e.Code + ": ")
	}
	if e.Message != "" {
		b.WriteString(e.Message)
	} else {
		fmt.Fprintf(&b, "HTTP %d", e.StatusCode)
	}
	if e.RequestID != "" {
		b.WriteString(" (request " + e.RequestID + ")")
	}
	return b.String()
}

// Is matches ErrAPI and the sentinel of e's code.
func (e *APIError) Is(target error) bool {
	if target == ErrAPI {
		return true
	}
	s, ok := sentinels[e.Code]
	if !ok && e.StatusCode >= 500 {
		s = ErrInternal
	}
	return s != nil && s == target
}

var sentinels = map[string]error{
	CodeNotFound:         ErrNotFound,
	CodeRateLimited:      ErrRateLimited,
	CodeUnauthenticated:  ErrUnauthenticated,
	CodeValidationFailed: ErrValidation,
	CodePolicyDenied:     ErrPolicyDenied,
	CodeConflict:         ErrConflict,
	CodeForbidden:        ErrForbidden,
	CodeInternal:         ErrInternal,
}

// NotFoundError: no such resource is visible to the caller.
type NotFoundError struct{ *APIError }

// RateLimitError: too many requests; retry after RetryAfter.
type RateLimitError struct {
	*APIError
	RetryAfter time.Duration
}

// AuthenticationError: the API key is missing, malformed, unknown or revoked.
type AuthenticationError struct{ *APIError }

// ForbiddenError: authenticated but not allowed: the key's role lacks the
// operation (the message names the role and the operation, e.g. "an agent
// key may not registerAgent"), or the resource is not the caller's to change.
type ForbiddenError struct{ *APIError }

// ConflictError: the request conflicts with the resource's state (e.g.
// reversing a reversed transaction, an idempotency key reused with other input).
type ConflictError struct{ *APIError }

// FieldError names one invalid input field by its path (e.g. input.amount).
type FieldError struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

// ValidationError: the input is invalid; FieldErrors lists every problem.
type ValidationError struct {
	*APIError
	FieldErrors []FieldError
}

// ErrResyncRequired matches a *ResyncError.
var ErrResyncRequired = errors.New("agenttrust: event stream resync required")

// ResyncError ends an event stream whose resume point the server no longer
// replays from: more stored events follow it than LIVE_REPLAY_MAX_EVENTS
// (1,000 by default). The events after After cannot be had one by one any
// more: re-read the state the stream was keeping up to date from the list
// methods (Agents.List, Transactions.List, …), then subscribe again with
// SubscribeOptions.After set to Position, so that every event committed
// since the refusal arrives on top of what was read.
type ResyncError struct {
	// After is the refused resume point: the last event delivered (or the
	// position the stream started at).
	After string
	// Position is the event log's position when the server refused, from
	// its connection_ack ("" from a server that does not send one).
	Position string
	// Err is the server's refusal, a *ValidationError on after.
	Err error
}

// Error implements error.
func (e *ResyncError) Error() string {
	return fmt.Sprintf("agenttrust: event stream cannot resume after %s: re-read the state from the list methods, then subscribe with After %q (%v)",
		e.After, e.Position, e.Err)
}

// Unwrap returns the server's refusal.
func (e *ResyncError) Unwrap() error { return e.Err }

// Is matches ErrResyncRequired.
func (e *ResyncError) Is(target error) bool { return target == ErrResyncRequired }

// PolicyDeniedError: the trust policy refused an execute. ReasonCode is one
// of the evaluateTrust reason codes (e.g. amount_exceeds_limit).
type PolicyDeniedError struct {
	*APIError
	ReasonCode string
	Reason     string
}

// Unwrap returns the underlying *APIError.
func (e *NotFoundError) Unwrap() error { return e.APIError }

// Unwrap returns the underlying *APIError.
func (e *RateLimitError) Unwrap() error { return e.APIError }

// Unwrap returns the underlying *APIError.
func (e *AuthenticationError) Unwrap() error { return e.APIError }

// Unwrap returns the underlying *APIError.
func (e *ForbiddenError) Unwrap() error { return e.APIError }

// Unwrap returns the underlying *APIError.
func (e *ConflictError) Unwrap() error { return e.APIError }

// Unwrap returns the underlying *APIError.
func (e *ValidationError) Unwrap() error { return e.APIError }

// Unwrap returns the underlying *APIError.
func (e *PolicyDeniedError) Unwrap() error { return e.APIError }

// errorDetail is what both edges tell about an error, decoded.
type errorDetail struct {
	code        string
	message     string
	fieldErrors []FieldError
	reasonCode  string
	reason      string
	retryAfter  time.Duration
}

// typedError builds the typed error of d's code for an answer with status
// and header.
func typedError(status int, header http.Header, d errorDetail) error {
	if d.code == "" {
		switch {
		case status == http.StatusUnauthorized:
			d.code = CodeUnauthenticated
		case status == http.StatusForbidden:
			d.code = CodeForbidden
		case status == http.StatusNotFound:
			d.code = CodeNotFound
		case status == http.StatusConflict:
			d.code = CodeConflict
		case status == http.StatusTooManyRequests:
			d.code = CodeRateLimited
		case status >= 500:
			d.code = CodeInternal
		}
	}
	base := &APIError{StatusCode: status, Code: d.code, Message: d.message, RequestID: header.Get("X-Request-Id")}
	switch d.code {
	case CodeNotFound:
		return &NotFoundError{base}
	case CodeRateLimited:
		ra := d.retryAfter
		if ra == 0 {
			ra = parseRetryAfter(header.Get("Retry-After"))
		}
		return &RateLimitError{APIError: base, RetryAfter: ra}
	case CodeUnauthenticated:
		return &AuthenticationError{base}
	case CodeForbidden:
		return &ForbiddenError{base}
	case CodeConflict:
		return &ConflictError{base}
	case CodeValidationFailed:
		return &ValidationError{APIError: base, FieldErrors: d.fieldErrors}
	case CodePolicyDenied:
		return &PolicyDeniedError{APIError: base, ReasonCode: d.reasonCode, Reason: d.reason}
	}
	return base
}

// parseRetryAfter reads a Retry-After header in whole seconds (0 when absent
// or an HTTP date, which the service never sends).
func parseRetryAfter(v string) time.Duration {
	var secs int
	if _, err := fmt.Sscanf(strings.TrimSpace(v), "%d", &secs); err != nil || secs < 0 {
		return 0
	}
	return time.Duration(secs) * time.Second
}
