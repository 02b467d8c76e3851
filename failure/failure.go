// Package failure defines the service's one error type: a machine code from the
// API contract plus a message that is safe to show to a caller.
package failure

import (
	"errors"
	"fmt"
	"strings"
)

// Code is a machine-readable error code from the API contract (section 5).
type Code string

// The contract's error codes.
const (
	Unauthenticated  Code = "UNAUTHENTICATED"
	Forbidden        Code = "FORBIDDEN"
	NotFound         Code = "NOT_FOUND"
	ValidationFailed Code = "VALIDATION_FAILED"
	Conflict         Code = "CONFLICT"
	PolicyDenied     Code = "POLICY_DENIED"
	RateLimited      Code = "RATE_LIMITED"
	Internal         Code = "INTERNAL"
)

// FieldError names one invalid input field by its path (e.g. "input.amount").
type FieldError struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

// Error is an error a caller may see: its Message never reveals internals.
type Error struct {
	Code        Code
	Message     string
	FieldErrors []FieldError
	// Extensions carries code-specific extras (reasonCode, retryAfter, ...).
	Extensions map[string]any
}

// Error implements error.
func (e *Error) Error() string { return string(e.Code) + ": " + e.Message }

// Errorf builds an Error with a formatted message.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// CodeOf returns the contract code of err: its *Error's code, or Internal.
func CodeOf(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return Internal
}

// As returns err's *Error, or nil when err carries none.
func As(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return nil
}

// Fields accumulates validation problems so one answer lists them all.
type Fields []FieldError

// Add records that field is invalid.
func (f *Fields) Add(field, format string, args ...any) {
	*f = append(*f, FieldError{Field: field, Message: fmt.Sprintf(format, args...)})
}

// Err returns a ValidationFailed error listing every field, or nil when empty.
func (f Fields) Err() error {
	if len(f) == 0 {
		return nil
	}
	msgs := make([]string, len(f))
	for i, fe := range f {
		msgs[i] = fe.Field + ": " + fe.Message
	}
	return &Error{Code: ValidationFailed, Message: "invalid input: " + strings.Join(msgs, "; "), FieldErrors: f}
}

// Invalid is a ValidationFailed error for a single field.
func Invalid(field, format string, args ...any) *Error {
	var f Fields
	f.Add(field, format, args...)
	return f.Err().(*Error)
}

// RetryAfter is a RateLimited error telling the caller to wait secs seconds.
func RetryAfter(secs int) *Error {
	e := Errorf(RateLimited, "rate limit exceeded: retry in %d s", secs)
	e.Extensions = map[string]any{"retryAfter": secs}
	return e
}

// RetryAfterSeconds returns the wait a RateLimited error carries (0 if none).
func (e *Error) RetryAfterSeconds() int {
	secs, _ := e.Extensions["retryAfter"].(int)
	return secs
}
