package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"

	"github.com/agenttrust/service/failure"
)

// presentable returns err as the caller may see it, and the HTTP status of a
// request refused with it: failure.Error codes go through the one table in
// failure; a database outage (unavailable) or a timeout is INTERNAL with 503;
// anything else is INTERNAL with 500 and a message that reveals nothing.
func presentable(err error, unavailable func(error) bool) (*failure.Error, int) {
	if fe := failure.As(err); fe != nil {
		return fe, fe.Code.HTTPStatus()
	}
	if errors.Is(err, context.DeadlineExceeded) || (unavailable != nil && unavailable(err)) {
		return unavailableError(), http.StatusServiceUnavailable
	}
	return internalError(), http.StatusInternalServerError
}

// RESTError is the body of every error answer of the REST edge:
// {"error":{"code","message","field_errors"?,"retry_after"?}}.
type RESTError struct {
	Error RESTErrorDetail `json:"error"`
}

// RESTErrorDetail is the inside of RESTError, with snake_case names.
type RESTErrorDetail struct {
	Code        failure.Code         `json:"code"`
	Message     string               `json:"message"`
	FieldErrors []failure.FieldError `json:"field_errors,omitempty"`
	RetryAfter  int                  `json:"retry_after,omitempty"`
}

// WriteRESTError answers a REST request refused with err: the status from the
// error table (503 for a database outage, see presentable), Retry-After for
// RATE_LIMITED, and the RESTError body. unavailable may be nil. The caller
// logs an unexpected error before calling it: the body never reveals it.
func WriteRESTError(w http.ResponseWriter, err error, unavailable func(error) bool) {
	fe, status := presentable(err, unavailable)
	writeRESTError(w, status, fe)
}

// WriteRESTMalformed answers 400 for a request body that is not valid JSON
// (or not the expected shape), as VALIDATION_FAILED on field "body".
func WriteRESTMalformed(w http.ResponseWriter, reason string) {
	writeRESTError(w, http.StatusBadRequest, failure.Invalid("body", "%s", reason))
}

func writeRESTError(w http.ResponseWriter, status int, fe *failure.Error) {
	body := RESTError{Error: RESTErrorDetail{Code: fe.Code, Message: fe.Message, FieldErrors: fe.FieldErrors}}
	if secs := fe.RetryAfterSeconds(); fe.Code == failure.RateLimited && secs > 0 {
		body.Error.RetryAfter = secs
		w.Header().Set("Retry-After", strconv.Itoa(secs))
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(body)
}

// writeGraphQLErrorStatus answers a GraphQL request refused before execution
// (no key, rate limit, outage, body limits) with a GraphQL-shaped body, so
// GraphQL clients read the code like any other. status is the code's
// (fe.Code.HTTPStatus()) or a fact of HTTP: 413 body too large, 400 not JSON,
// 503 outage.
func writeGraphQLErrorStatus(w http.ResponseWriter, status int, fe *failure.Error) {
	if secs := fe.RetryAfterSeconds(); fe.Code == failure.RateLimited && secs > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(secs))
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	encodeGraphQLError(w, fe)
}

// encodeGraphQLError writes a GraphQL error body for fe with the extensions
// the error table allows.
func encodeGraphQLError(w io.Writer, fe *failure.Error) {
	ext := map[string]any{"code": string(fe.Code)}
	if len(fe.FieldErrors) > 0 {
		ext["fieldErrors"] = fe.FieldErrors
	}
	for _, k := range fe.Code.ExtensionKeys() {
		if v, ok := fe.Extensions[k]; ok {
			ext[k] = v
		}
	}
	_ = json.NewEncoder(w).Encode(map[string]any{
		"errors": []map[string]any{{"message": fe.Message, "extensions": ext}},
	})
}

func internalError() *failure.Error { return failure.Errorf(failure.Internal, "internal error") }

// unavailableError is what a caller sees while the database is unreachable.
func unavailableError() *failure.Error {
	return failure.Errorf(failure.Internal, "service unavailable, retry shortly")
}
