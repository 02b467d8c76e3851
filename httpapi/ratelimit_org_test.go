package httpapi_test

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/agenttrust/service/auth"
	"github.com/agenttrust/service/httpapi"
	"github.com/agenttrust/service/internal/testkit"
)

// TestRateLimitSharedByOrganizationKeys: the keys of one organization share
// its budget, so minting more keys adds no rate; another organization's
// budget is its own.
func TestRateLimitSharedByOrganizationKeys(t *testing.T) {
	t.Parallel()
	const burst = 6
	b := testkit.New(t, func(c *httpapi.Config) { c.RateLimitRPS, c.RateLimitBurst = 0.001, burst })
	keys := []string{b.Key}
	for range 2 {
		_, k := b.IssueKey(auth.RoleReadonly)
		keys = append(keys, k)
	}
	for i := range burst {
		if r := b.Post(keys[i%len(keys)], map[string]any{"query": `{ __typename }`}); r.Status != http.StatusOK {
			t.Fatalf("request %d within the organization's burst: %d %s", i, r.Status, r.Body)
		}
	}
	for _, k := range keys {
		b.Post(k, map[string]any{"query": `{ __typename }`}).RefusedHTTP(t, http.StatusTooManyRequests, "RATE_LIMITED")
		b.REST(k, http.MethodGet, "/webhooks", nil).Refused(t, http.StatusTooManyRequests, "RATE_LIMITED")
	}
	_, other := b.NewOrg("globex")
	if r := b.Post(other, map[string]any{"query": `{ __typename }`}); r.Status != http.StatusOK {
		t.Fatalf("another organization: %d %s", r.Status, r.Body)
	}
}

// TestAPIKeysPerOrganizationBound: an organization holds at most
// MAX_API_KEYS_PER_ORG (100) unrevoked keys; createApiKey beyond it is
// CONFLICT naming the bound and creates nothing, also when creations race;
// a revoked key frees its place.
func TestAPIKeysPerOrganizationBound(t *testing.T) {
	t.Parallel()
	b := testkit.New(t)
	unrevoked := func() int {
		var n int
		if err := b.SQL().QueryRow(`SELECT count(*) FROM api_keys WHERE org_id = $1 AND revoked_at IS NULL`, b.OrgID).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	// Ten aliased creations a request, as the attack minted them.
	var doc strings.Builder
	doc.WriteString("mutation {")
	for i := range 10 {
		fmt.Fprintf(&doc, ` k%d: createApiKey(input: {name: "k%d", role: admin}) { key { id } }`, i, i)
	}
	doc.WriteString(" }")
	for n := unrevoked(); n+10 <= auth.DefaultMaxKeysPerOrg-2; n = unrevoked() {
		if r := b.Do(b.Key, doc.String(), nil); len(r.Errors) > 0 {
			t.Fatalf("creating keys at %d: %s", n, r.Body)
		}
	}
	// Racing creations for the last places: exactly as many win as there are places.
	free := auth.DefaultMaxKeysPerOrg - unrevoked()
	var wg sync.WaitGroup
	var mu sync.Mutex
	won, refused := 0, 0
	var lastID string
	for i := range free + 4 {
		wg.Go(func() {
			r := b.CreateKey(b.Key, fmt.Sprint("race ", i), "readonly")
			mu.Lock()
			defer mu.Unlock()
			if len(r.Errors) == 0 {
				var k testkit.CreatedAPIKey
				r.Into(t, "createApiKey", &k)
				won, lastID = won+1, k.Key.ID
				return
			}
			refused++
			if r.Code() != "CONFLICT" || !strings.Contains(r.Errors[0].Message, "MAX_API_KEYS_PER_ORG") ||
				!strings.Contains(r.Errors[0].Message, fmt.Sprint(auth.DefaultMaxKeysPerOrg)) {
				t.Errorf("a creation past the bound: %s", r.Body)
			}
		})
	}
	wg.Wait()
	if won != free || refused != 4 || unrevoked() != auth.DefaultMaxKeysPerOrg {
		t.Fatalf("%d racing creations for %d places: %d won, %d refused, %d unrevoked keys", free+4, free, won, refused, unrevoked())
	}
	b.Do(b.Key, testkit.RevokeAPIKeyMutation, map[string]any{"id": lastID}).Into(t, "revokeApiKey", new(testkit.APIKey))
	if r := b.CreateKey(b.Key, "after a revocation", "readonly"); len(r.Errors) > 0 {
		t.Fatalf("a revoked key's place: %s", r.Body)
	}
	b.CreateKey(b.Key, "one too many", "readonly").Refused(t, "CONFLICT")
	// Another organization is not bounded by this one's keys.
	_, other := b.NewOrg("globex")
	if r := b.CreateKey(other, "theirs", "readonly"); len(r.Errors) > 0 {
		t.Fatalf("another organization: %s", r.Body)
	}
}
