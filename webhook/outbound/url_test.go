package outbound_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/agenttrust/service/internal/webhooktest"
)

// targets records the request target of every request it answers, as the
// request line carried it.
type targets struct {
	mu   sync.Mutex
	seen []string
}

func (tg *targets) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	tg.mu.Lock()
	tg.seen = append(tg.seen, r.RequestURI)
	tg.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

func (tg *targets) all() []string {
	tg.mu.Lock()
	defer tg.mu.Unlock()
	return append([]string(nil), tg.seen...)
}

// The request target is escaped as RFC 3986 requires, whatever the
// registered URL holds: a space or a non-ASCII character in the query is
// percent-encoded, escapes already there are kept, a stray '%' is escaped.
func TestClientEscapesTheRequestTarget(t *testing.T) {
	t.Parallel()
	var tg targets
	srv, roots, _ := endpoint(t, tg.ServeHTTP)
	c := client(roots, 0)
	for _, tc := range []struct{ url, want string }{
		{"/q?a b", "/q?a%20b"},
		{"/q?a\u2028b", "/q?a%E2%80%A8b"},
		{"/q?x=1&y=%20&z=a/b?c:d@e", "/q?x=1&y=%20&z=a/b?c:d@e"},
		{"/q?p=%zz&r=[1]&s=<\">", "/q?p=%25zz&r=%5B1%5D&s=%3C%22%3E"},
		{"/a b/c?d", "/a%20b/c?d"},
		{"/q?", "/q?"},
	} {
		before := len(tg.all())
		resp, err := c.Post(context.Background(), srv.URL+tc.url, http.Header{}, []byte("{}"))
		if err != nil || resp.StatusCode != http.StatusNoContent {
			t.Errorf("%q: %v %+v", tc.url, err, resp)
			continue
		}
		if seen := tg.all(); len(seen) != before+1 || seen[before] != tc.want {
			t.Errorf("%q: the endpoint saw %q, want %q", tc.url, seen[before:], tc.want)
		}
	}
}

// Through the public surface: an endpoint registered with GraphQL at a URL
// whose query holds a space and a U+2028 gets its verification request and
// a test delivery at the escaped target.
func TestRegisteredURLsAreSentEscaped(t *testing.T) {
	t.Parallel()
	e := webhooktest.NewEnv(t, webhooktest.Options{})
	var tg targets
	srv := httptest.NewTLSServer(&tg) // trusted by the Env, as every httptest server shares one certificate
	t.Cleanup(srv.Close)
	for _, tc := range []struct{ query, want string }{
		{"?a b", "/q?a%20b"},
		{"?a\u2028b", "/q?a%E2%80%A8b"},
	} {
		before := len(tg.all())
		data := e.GraphQL(`mutation($in: RegisterWebhookInput!) { registerWebhook(input: $in) { id url } }`,
			map[string]any{"in": map[string]any{"url": srv.URL + "/q" + tc.query, "events": []string{"*"}}})
		var wh struct{ ID, URL string }
		if err := json.Unmarshal(data["registerWebhook"], &wh); err != nil || wh.URL != srv.URL+"/q"+tc.query {
			t.Fatalf("registerWebhook %q: %s (%v), want the URL stored as given", tc.query, data["registerWebhook"], err)
		}
		data = e.GraphQL(`mutation($id: ID!) { testWebhook(id: $id) { statusCode success } }`, map[string]any{"id": wh.ID})
		var res struct {
			StatusCode int
			Success    bool
		}
		if err := json.Unmarshal(data["testWebhook"], &res); err != nil || !res.Success || res.StatusCode != http.StatusNoContent {
			t.Fatalf("testWebhook %q: %s (%v)", tc.query, data["testWebhook"], err)
		}
		seen := tg.all()[before:]
		if len(seen) != 2 || seen[0] != tc.want || seen[1] != tc.want {
			t.Fatalf("URL %q: the endpoint saw %q (verification, test), want %q twice", tc.query, seen, tc.want)
		}
	}
}
