package httpapi

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/agenttrust/service/failure"
)

// restError is the REST edge's error body: {"error":{...}}.
type restError struct {
	Code        string               `json:"code"`
	Message     string               `json:"message"`
	FieldErrors []failure.FieldError `json:"field_errors,omitempty"`
	RetryAfter  *int                 `json:"retry_after,omitempty"`
}

// writeRESTError answers fe with status in the REST error shape. Field paths
// lose GraphQL's "input." prefix: the REST body is the input.
func writeRESTError(w http.ResponseWriter, status int, fe *failure.Error) {
	body := restError{Code: string(fe.Code), Message: fe.Message}
	for _, f := range fe.FieldErrors {
		f.Field = strings.TrimPrefix(f.Field, "input.")
		body.FieldErrors = append(body.FieldErrors, f)
	}
	if secs, ok := fe.Extensions["retryAfter"].(int); ok {
		body.RetryAfter = &secs
	}
	if fe.Code == failure.ValidationFailed && len(fe.FieldErrors) > 0 {
		msgs := make([]string, len(body.FieldErrors))
		for i, f := range body.FieldErrors {
			msgs[i] = f.Field + ": " + f.Message
		}
		body.Message = "invalid input: " + strings.Join(msgs, "; ")
	}
	writeJSON(w, status, map[string]any{"error": body})
}

// writeJSON answers v as JSON with status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// fail answers a service error: its contract code through the one status
// table, an outage as 503, anything else as an INTERNAL that reveals nothing.
func (e *restEdge) fail(w http.ResponseWriter, r *http.Request, err error) {
	if fe := failure.As(err); fe != nil && fe.Code != failure.Internal {
		writeRESTError(w, StatusOf(err), fe)
		return
	}
	status := http.StatusInternalServerError
	msg := "internal error"
	if e.d.Unavailable != nil && e.d.Unavailable(err) || StatusOf(err) == http.StatusServiceUnavailable {
		status, msg = http.StatusServiceUnavailable, "service unavailable, retry shortly"
	}
	e.d.Logger.ErrorContext(r.Context(), "internal error", "err", err.Error(), "path", r.URL.Path)
	writeRESTError(w, status, failure.Errorf(failure.Internal, "%s", msg))
}

// decode reads a JSON request body into v: malformed JSON, a body over the
// limit or an unknown field is 400.
func decode(w http.ResponseWriter, r *http.Request, v any) bool {
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil && dec.More() {
		err = errors.New("trailing data after the JSON object")
	}
	var mbe *http.MaxBytesError
	switch {
	case err == nil:
		return true
	case errors.As(err, &mbe):
		writeRESTError(w, http.StatusRequestEntityTooLarge, failure.Invalid("body", "must be at most %d bytes", mbe.Limit))
	case errors.Is(err, io.EOF):
		writeRESTError(w, http.StatusBadRequest, failure.Invalid("body", "must be a JSON object"))
	default:
		writeRESTError(w, http.StatusBadRequest, failure.Invalid("body", "is not valid JSON: %s", err.Error()))
	}
	return false
}
