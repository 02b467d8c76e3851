package httpapi_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"testing"

	"github.com/agenttrust/service/failure"
	"github.com/agenttrust/service/httpapi"
)

// TestWriteRESTError pins the REST edge's error body and statuses: the code
// table's status, snake_case field_errors and retry_after, Retry-After, 503
// for an outage, and nothing of an unexpected error's text.
func TestWriteRESTError(t *testing.T) {
	t.Parallel()
	errDown := errors.New("dial tcp 127.0.0.1:5432: connection refused")
	unavailable := func(err error) bool { return errors.Is(err, errDown) }
	var fields failure.Fields
	fields.Add("url", "must be https")
	fields.Add("events[0]", "unknown event type")
	for _, tc := range []struct {
		name   string
		err    error
		status int
		body   string
		retry  string
	}{
		{"not found", failure.Errorf(failure.NotFound, "no webhook wh_1"), 404,
			`{"error":{"code":"NOT_FOUND","message":"no webhook wh_1"}}`, ""},
		{"validation", fields.Err(), 422,
			`{"error":{"code":"VALIDATION_FAILED","message":"invalid input: url: must be https; events[0]: unknown event type","field_errors":[{"field":"url","message":"must be https"},{"field":"events[0]","message":"unknown event type"}]}}`, ""},
		{"conflict", failure.Errorf(failure.Conflict, "busy"), 409, `{"error":{"code":"CONFLICT","message":"busy"}}`, ""},
		{"forbidden", failure.Errorf(failure.Forbidden, "no"), 403, `{"error":{"code":"FORBIDDEN","message":"no"}}`, ""},
		{"unauthenticated", failure.Errorf(failure.Unauthenticated, "bad key"), 401, `{"error":{"code":"UNAUTHENTICATED","message":"bad key"}}`, ""},
		{"rate limited", failure.RetryAfter(3), 429,
			`{"error":{"code":"RATE_LIMITED","message":"rate limit exceeded: retry in 3 s","retry_after":3}}`, "3"},
		{"outage", errDown, 503, `{"error":{"code":"INTERNAL","message":"service unavailable, retry shortly"}}`, ""},
		{"timeout", context.DeadlineExceeded, 503, `{"error":{"code":"INTERNAL","message":"service unavailable, retry shortly"}}`, ""},
		{"unexpected", errors.New("pq: relation webhooks does not exist"), 500, `{"error":{"code":"INTERNAL","message":"internal error"}}`, ""},
	} {
		rec := httptest.NewRecorder()
		httpapi.WriteRESTError(rec, tc.err, unavailable)
		if rec.Code != tc.status || rec.Header().Get("Content-Type") != "application/json" || rec.Header().Get("Retry-After") != tc.retry {
			t.Errorf("%s: HTTP %d %q Retry-After %q", tc.name, rec.Code, rec.Header().Get("Content-Type"), rec.Header().Get("Retry-After"))
		}
		if !jsonEqual(t, rec.Body.Bytes(), tc.body) {
			t.Errorf("%s: body %s, want %s", tc.name, rec.Body, tc.body)
		}
	}
	rec := httptest.NewRecorder()
	httpapi.WriteRESTMalformed(rec, "is not valid JSON")
	if rec.Code != 400 || !jsonEqual(t, rec.Body.Bytes(), `{"error":{"code":"VALIDATION_FAILED","message":"invalid input: body: is not valid JSON","field_errors":[{"field":"body","message":"is not valid JSON"}]}}`) {
		t.Errorf("malformed: HTTP %d %s", rec.Code, rec.Body)
	}
}

func jsonEqual(t *testing.T, got []byte, want string) bool {
	t.Helper()
	var a, b any
	if err := json.Unmarshal(got, &a); err != nil {
		t.Fatalf("not JSON: %s", got)
	}
	_ = json.Unmarshal([]byte(want), &b)
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}
