package httpapi_test

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agenttrust/service/httpapi"
	"github.com/agenttrust/service/internal/testkit"
)

func TestAuthentication(t *testing.T) {
	t.Parallel()
	b := testkit.New(t)
	refused := map[string]string{
		"missing":         "",
		"scheme only":     "Bearer",
		"empty key":       "Bearer   ",
		"basic":           "Basic dXNlcjpwYXNz",
		"no scheme":       b.Key,
		"other scheme":    "Token " + b.Key,
		"unknown key":     "Bearer att_sk_" + strings.Repeat("a", 52),
		"key with suffix": "Bearer " + b.Key + "x",
		"key and garbage": "Bearer " + b.Key + " garbage",
		"overlong":        "Bearer " + strings.Repeat("k", 600),
		"mangled unicode": "Bearer \u00e9\u00e9",
	}
	for name, header := range refused {
		req := testkit.Request(http.MethodPost, "/graphql", strings.NewReader(`{"query":"{ agents { totalCount } }"}`),
			"Content-Type", "application/json")
		if header != "" {
			req.Header.Set("Authorization", header)
		}
		r := testkit.Serve(t, b.Handler, req)
		if r.Status != http.StatusUnauthorized || r.Code() != "UNAUTHENTICATED" || len(r.Data) != 0 {
			t.Errorf("%s: %d %s", name, r.Status, r.Body)
		}
		if !strings.HasPrefix(r.Header.Get("WWW-Authenticate"), "Bearer") {
			t.Errorf("%s: WWW-Authenticate %q", name, r.Header.Get("WWW-Authenticate"))
		}
		if strings.Contains(r.Body, b.Key) {
			t.Errorf("%s: the answer echoes the key", name)
		}
	}
	for _, scheme := range []string{"Bearer", "bearer", "BEARER"} {
		req := testkit.Request(http.MethodPost, "/graphql", strings.NewReader(`{"query":"{ agents { totalCount } }"}`),
			"Content-Type", "application/json", "Authorization", scheme+" "+b.Key)
		if r := testkit.Serve(t, b.Handler, req); r.Status != http.StatusOK || len(r.Errors) != 0 {
			t.Errorf("scheme %q: %d %s", scheme, r.Status, r.Body)
		}
	}
	if r := b.Get("", "/graphql?query={agents{totalCount}}"); r.Status != http.StatusUnauthorized || r.Code() != "UNAUTHENTICATED" {
		t.Errorf("GET without a key: %d %s", r.Status, r.Body)
	}
}

func TestRevokedKey(t *testing.T) {
	t.Parallel()
	b := testkit.New(t)
	ctx := context.Background()
	secondID, second, err := b.Orgs.CreateKey(ctx, b.OrgID)
	if err != nil {
		t.Fatal(err)
	}
	register(b, "before")
	if n := count(b, second); n != 1 {
		t.Fatalf("second key sees %d agents", n)
	}
	if err := b.Orgs.RevokeKey(ctx, secondID); err != nil {
		t.Fatal(err)
	}
	b.Post(second, map[string]any{"query": `{ agents { totalCount } }`}).RefusedHTTP(t, http.StatusUnauthorized, "UNAUTHENTICATED")
	b.Post(second, map[string]any{"query": registerQuery}).RefusedHTTP(t, http.StatusUnauthorized, "UNAUTHENTICATED")
	if n := count(b, b.Key); n != 1 {
		t.Fatalf("the organization's other key sees %d agents after the revocation", n)
	}
}

func TestRateLimit(t *testing.T) {
	t.Parallel()
	b := testkit.New(t, func(c *httpapi.Config) { c.RateLimitRPS = 1; c.RateLimitBurst = 2 })
	_, second, err := b.Orgs.CreateKey(context.Background(), b.OrgID)
	if err != nil {
		t.Fatal(err)
	}
	q := map[string]any{"query": `{ agents { totalCount } }`}
	for i := range 2 {
		if r := b.Post(b.Key, q); r.Status != http.StatusOK {
			t.Fatalf("request %d within the burst: %d %s", i+1, r.Status, r.Body)
		}
	}
	r := b.Post(b.Key, q)
	r.RefusedHTTP(t, http.StatusTooManyRequests, "RATE_LIMITED")
	header, err := strconv.Atoi(r.Header.Get("Retry-After"))
	if err != nil || header < 1 {
		t.Fatalf("Retry-After %q", r.Header.Get("Retry-After"))
	}
	if ext, ok := r.Errors[0].Extensions["retryAfter"].(float64); !ok || int(ext) != header {
		t.Fatalf("extensions.retryAfter %v, Retry-After %d", r.Errors[0].Extensions["retryAfter"], header)
	}
	// The budget is the organization's: its other keys are refused too,
	// another organization's are not.
	b.Post(second, q).RefusedHTTP(t, http.StatusTooManyRequests, "RATE_LIMITED")
	if _, other := b.NewOrg("globex"); b.Post(other, q).Status != http.StatusOK {
		t.Fatal("another organization is limited by this one's requests")
	}
	time.Sleep(time.Duration(header) * time.Second)
	if r := b.Post(b.Key, q); r.Status != http.StatusOK {
		t.Fatalf("after Retry-After: %d %s", r.Status, r.Body)
	}
}
