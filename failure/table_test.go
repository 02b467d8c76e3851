package failure_test

import (
	"net/http"
	"testing"

	"github.com/agenttrust/service/failure"
)

func TestHTTPStatus(t *testing.T) {
	t.Parallel()
	want := map[failure.Code]int{
		failure.Unauthenticated:  401,
		failure.Forbidden:        403,
		failure.NotFound:         404,
		failure.ValidationFailed: 422,
		failure.Conflict:         409,
		failure.PolicyDenied:     422,
		failure.RateLimited:      429,
		failure.Internal:         500,
		"SOMETHING_ELSE":         500,
	}
	for code, status := range want {
		if got := code.HTTPStatus(); got != status {
			t.Errorf("%s: HTTP %d, want %d", code, got, status)
		}
	}
	for _, c := range failure.Codes() {
		if _, ok := want[c]; !ok || http.StatusText(c.HTTPStatus()) == "" {
			t.Errorf("code %s missing from the test or the table", c)
		}
	}
}

func TestRetryAfter(t *testing.T) {
	t.Parallel()
	e := failure.RetryAfter(7)
	if e.Code != failure.RateLimited || e.RetryAfterSeconds() != 7 || e.Message == "" {
		t.Fatalf("RetryAfter(7) = %+v", e)
	}
	if failure.Errorf(failure.Conflict, "x").RetryAfterSeconds() != 0 {
		t.Fatal("a conflict carries no retry")
	}
}
