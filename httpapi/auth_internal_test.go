package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/agenttrust/service/auth"
	"github.com/agenttrust/service/failure"
)

type fakeAuth map[string]auth.Principal

func (f fakeAuth) WasLive(key string) bool { _, ok := f[key]; return ok }

func (f fakeAuth) Authenticate(_ context.Context, key string) (auth.Principal, error) {
	if key == "att_sk_down_0123456789" {
		return auth.Principal{}, errors.New("dial tcp: connection refused")
	}
	if p, ok := f[key]; ok {
		return p, nil
	}
	return auth.Principal{}, failure.Errorf(failure.Unauthenticated, "unknown or revoked API key")
}

// TestAuthenticateREST pins the REST edge's refusals before a handler runs:
// the same checks as /graphql, answered as {"error":{...}} bodies.
func TestAuthenticateREST(t *testing.T) {
	t.Parallel()
	d := Deps{Auth: fakeAuth{"att_sk_good_0123456789": {OrgID: "org_a", KeyID: "key_a"}},
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	var reached auth.Principal
	h := authenticateREST(d, newRateLimiter(0.001, 1), newRateLimiter(1, 30), http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached, _ = auth.FromContext(r.Context())
		w.WriteHeader(http.StatusNoContent)
	}))
	call := func(key string) (*httptest.ResponseRecorder, RESTError) {
		req := httptest.NewRequest(http.MethodGet, "/webhooks", nil)
		if key != "" {
			req.Header.Set("Authorization", "Bearer "+key)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		var body RESTError
		if rec.Code != http.StatusNoContent {
			if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil || body.Error.Message == "" {
				t.Fatalf("HTTP %d body %q: %v", rec.Code, rec.Body, err)
			}
		}
		return rec, body
	}
	for _, tc := range []struct {
		key    string
		status int
		code   failure.Code
	}{
		{"", 401, failure.Unauthenticated},
		{"att_sk_unknown_0123456789", 401, failure.Unauthenticated},
		{"att_sk_down_0123456789", 503, failure.Internal},
	} {
		rec, body := call(tc.key)
		if rec.Code != tc.status || body.Error.Code != tc.code {
			t.Errorf("key %q: HTTP %d %s, want %d %s", tc.key, rec.Code, body.Error.Code, tc.status, tc.code)
		}
	}
	if rec, _ := call("att_sk_good_0123456789"); rec.Code != http.StatusNoContent || reached.OrgID != "org_a" {
		t.Fatalf("good key: HTTP %d, principal %+v", rec.Code, reached)
	}
	rec, body := call("att_sk_good_0123456789") // the burst of 1 is spent
	if rec.Code != 429 || body.Error.Code != failure.RateLimited || body.Error.RetryAfter < 1 ||
		rec.Header().Get("Retry-After") == "" {
		t.Fatalf("rate limited: HTTP %d %+v Retry-After %q", rec.Code, body, rec.Header().Get("Retry-After"))
	}
}
