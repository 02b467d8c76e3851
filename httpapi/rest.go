package httpapi

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/agenttrust/service/failure"
)

// writeJSON answers v as JSON with status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// fail answers a service error through the one REST error writer, after
// logging an unexpected one. Field paths lose GraphQL's "input." prefix: the
// REST body is the input.
func (e *restEdge) fail(w http.ResponseWriter, r *http.Request, err error) {
	fe := failure.As(err)
	if fe == nil || fe.Code == failure.Internal {
		e.d.Logger.ErrorContext(r.Context(), "internal error", "err", err.Error(), "path", r.URL.Path)
		WriteRESTError(w, err, e.d.Unavailable)
		return
	}
	if len(fe.FieldErrors) > 0 {
		var f failure.Fields
		for _, fieldErr := range fe.FieldErrors {
			f.Add(strings.TrimPrefix(fieldErr.Field, "input."), "%s", fieldErr.Message)
		}
		err = f.Err()
	}
	WriteRESTError(w, err, nil)
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
		WriteRESTMalformed(w, "must be a JSON object")
	default:
		WriteRESTMalformed(w, "is not valid JSON: "+err.Error())
	}
	return false
}
