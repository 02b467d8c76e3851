package httpapi_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/agenttrust/service/httpapi"
	"github.com/agenttrust/service/internal/testkit"
)

// An answer whose fields failed is 200 over POST and GET alike, whatever its
// errors' codes (only RATE_LIMITED and an outage change the status).
func TestFailedFieldsAnswer200(t *testing.T) {
	t.Parallel()
	b := testkit.New(t)
	const q = `{ a: agents { totalCount } b: agent(id: "agent_none") { id } }`
	for name, r := range map[string]*testkit.Response{
		"POST": b.Post(b.Key, map[string]any{"query": q}),
		"GET":  b.Get(b.Key, "/graphql?query="+url.QueryEscape(q)),
	} {
		if r.Status != http.StatusOK || r.Code() != "NOT_FOUND" || r.Header.Get("Retry-After") != "" {
			t.Errorf("%s: %d Retry-After %q %s", name, r.Status, r.Header.Get("Retry-After"), r.Body)
		}
	}
}

// A rate-limited answer is 429 with a Retry-After equal to its error's
// retryAfter, over POST and GET; the refusal over SSE is 429 with it too.
func TestRateLimitedAnswerRetryAfter(t *testing.T) {
	t.Parallel()
	b := testkit.New(t, func(c *httpapi.Config) { c.RateLimitRPS, c.RateLimitBurst = 0.01, 2 })
	const q = `{ a: agents { totalCount } b: agents { totalCount } c: agents { totalCount } }`
	sse, _ := json.Marshal(map[string]any{"query": `subscription { a: events { id } b: events { id } c: events { id } }`})
	for name, r := range map[string]*testkit.Response{
		"POST": b.Post(b.Key, map[string]any{"query": q}),
		"GET":  b.Get(b.Key, "/graphql?query="+url.QueryEscape(q)),
		"SSE": b.Serve(testkit.Request(http.MethodPost, "/graphql", bytes.NewReader(sse), "Content-Type", "application/json",
			"Accept", "text/event-stream", "Authorization", "Bearer "+b.Key)),
	} {
		if name == "SSE" {
			_, data, _ := strings.Cut(r.Body, "data: ")
			data, _, _ = strings.Cut(data, "\n")
			if err := json.Unmarshal([]byte(data), r); err != nil {
				t.Fatalf("SSE: %d %s", r.Status, r.Body)
			}
		}
		if r.Status != http.StatusTooManyRequests || r.Code() != "RATE_LIMITED" {
			t.Fatalf("%s: %d %s", name, r.Status, r.Body)
		}
		secs, _ := r.Errors[0].Extensions["retryAfter"].(float64)
		if h := r.Header.Get("Retry-After"); secs < 1 || h != strconv.Itoa(int(secs)) {
			t.Errorf("%s: Retry-After %q, extensions.retryAfter %v", name, h, r.Errors[0].Extensions["retryAfter"])
		}
	}
}

// Document errors over GET are 200 with application/json and 400 with
// application/graphql-response+json, as over POST.
func TestDocumentErrorsOverGET(t *testing.T) {
	t.Parallel()
	b := testkit.New(t)
	target := "/graphql?query=" + url.QueryEscape(`{ agents { nope } }`)
	for accept, status := range map[string]int{"application/json": http.StatusOK, "application/graphql-response+json": http.StatusBadRequest} {
		r := b.Serve(testkit.Request(http.MethodGet, target, nil, "Accept", accept, "Authorization", "Bearer "+b.Key))
		if r.Status != status || r.Code() != "GRAPHQL_VALIDATION_FAILED" || !strings.HasPrefix(r.Header.Get("Content-Type"), accept) {
			t.Errorf("Accept %s: %d %q %s", accept, r.Status, r.Header.Get("Content-Type"), r.Body)
		}
	}
}

// The database failing mid-request is 503 over GET as over POST.
func TestDatabaseOutageOverGET(t *testing.T) {
	t.Parallel()
	b := testkit.New(t)
	d, p := openThroughProxy(b)
	h := newHandler(httpapi.Config{}, b.Orgs, d)
	p.cut()
	r := testkit.Serve(t, h, testkit.Request(http.MethodGet, "/graphql?query="+url.QueryEscape(`{ agents { totalCount } }`), nil,
		"Authorization", "Bearer "+b.Key))
	r.RefusedHTTP(t, http.StatusServiceUnavailable, "INTERNAL")
}
