package httpapi_test

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agenttrust/service/httpapi"
)

func TestAuthentication(t *testing.T) {
	t.Parallel()
	b := setup(t)
	refused := map[string]string{
		"missing":         "",
		"scheme only":     "Bearer",
		"empty key":       "Bearer   ",
		"basic":           "Basic dXNlcjpwYXNz",
		"no scheme":       b.key,
		"other scheme":    "Token " + b.key,
		"unknown key":     "Bearer att_sk_" + strings.Repeat("a", 52),
		"key with suffix": "Bearer " + b.key + "x",
		"key and garbage": "Bearer " + b.key + " garbage",
		"overlong":        "Bearer " + strings.Repeat("k", 600),
		"mangled unicode": "Bearer \u00e9\u00e9",
	}
	for name, header := range refused {
		req := request(http.MethodPost, "/graphql", strings.NewReader(`{"query":"{ agents { totalCount } }"}`),
			"Content-Type", "application/json")
		if header != "" {
			req.Header.Set("Authorization", header)
		}
		r := serve(t, b.handler, req)
		if r.Status != http.StatusUnauthorized || r.code() != "UNAUTHENTICATED" || len(r.Data) != 0 {
			t.Errorf("%s: %d %s", name, r.Status, r.Body)
		}
		if !strings.HasPrefix(r.Header.Get("WWW-Authenticate"), "Bearer") {
			t.Errorf("%s: WWW-Authenticate %q", name, r.Header.Get("WWW-Authenticate"))
		}
		if strings.Contains(r.Body, b.key) {
			t.Errorf("%s: the answer echoes the key", name)
		}
	}
	for _, scheme := range []string{"Bearer", "bearer", "BEARER"} {
		req := request(http.MethodPost, "/graphql", strings.NewReader(`{"query":"{ agents { totalCount } }"}`),
			"Content-Type", "application/json", "Authorization", scheme+" "+b.key)
		if r := serve(t, b.handler, req); r.Status != http.StatusOK || len(r.Errors) != 0 {
			t.Errorf("scheme %q: %d %s", scheme, r.Status, r.Body)
		}
	}
	if r := b.get("", "/graphql?query={agents{totalCount}}"); r.Status != http.StatusUnauthorized || r.code() != "UNAUTHENTICATED" {
		t.Errorf("GET without a key: %d %s", r.Status, r.Body)
	}
}

func TestRevokedKey(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	secondID, second, err := b.orgs.CreateKey(ctx, b.orgID)
	if err != nil {
		t.Fatal(err)
	}
	b.register("before")
	if n := b.count(second); n != 1 {
		t.Fatalf("second key sees %d agents", n)
	}
	if err := b.orgs.RevokeKey(ctx, secondID); err != nil {
		t.Fatal(err)
	}
	b.post(second, map[string]any{"query": `{ agents { totalCount } }`}).refused(t, http.StatusUnauthorized, "UNAUTHENTICATED")
	b.post(second, map[string]any{"query": registerQuery}).refused(t, http.StatusUnauthorized, "UNAUTHENTICATED")
	if n := b.count(b.key); n != 1 {
		t.Fatalf("the organization's other key sees %d agents after the revocation", n)
	}
}

func TestRateLimit(t *testing.T) {
	t.Parallel()
	b := setup(t, func(c *httpapi.Config) { c.RateLimitRPS = 1; c.RateLimitBurst = 2 })
	_, second, err := b.orgs.CreateKey(context.Background(), b.orgID)
	if err != nil {
		t.Fatal(err)
	}
	q := map[string]any{"query": `{ agents { totalCount } }`}
	for i := range 2 {
		if r := b.post(b.key, q); r.Status != http.StatusOK {
			t.Fatalf("request %d within the burst: %d %s", i+1, r.Status, r.Body)
		}
	}
	r := b.post(b.key, q)
	r.refused(t, http.StatusTooManyRequests, "RATE_LIMITED")
	header, err := strconv.Atoi(r.Header.Get("Retry-After"))
	if err != nil || header < 1 {
		t.Fatalf("Retry-After %q", r.Header.Get("Retry-After"))
	}
	if ext, ok := r.Errors[0].Extensions["retryAfter"].(float64); !ok || int(ext) != header {
		t.Fatalf("extensions.retryAfter %v, Retry-After %d", r.Errors[0].Extensions["retryAfter"], header)
	}
	if r := b.post(second, q); r.Status != http.StatusOK {
		t.Fatalf("another key of the organization is limited too: %d %s", r.Status, r.Body)
	}
	time.Sleep(time.Duration(header) * time.Second)
	if r := b.post(b.key, q); r.Status != http.StatusOK {
		t.Fatalf("after Retry-After: %d %s", r.Status, r.Body)
	}
}
