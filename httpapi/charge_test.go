package httpapi_test

import (
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/agenttrust/service/httpapi"
	"github.com/agenttrust/service/internal/testkit"
)

// schemaField and introspectionFragments make the introspection query
// GraphiQL and code generators send.
const (
	schemaField            = `__schema { queryType { name } mutationType { name } subscriptionType { name } types { ...FullType } directives { name description locations args { ...InputValue } } }`
	introspectionFragments = `
fragment FullType on __Type { kind name description fields(includeDeprecated: true) { name description args { ...InputValue } type { ...TypeRef } isDeprecated deprecationReason } inputFields { ...InputValue } interfaces { ...TypeRef } enumValues(includeDeprecated: true) { name description isDeprecated deprecationReason } possibleTypes { ...TypeRef } }
fragment InputValue on __InputValue { name description type { ...TypeRef } defaultValue }
fragment TypeRef on __Type { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name } } } } } } } }`
)

// aliasedIntrospection is the introspection query with its __schema field
// asked n times under aliases.
func aliasedIntrospection(n int) string {
	var q strings.Builder
	q.WriteString("query {")
	for i := range n {
		q.WriteString(" s" + strconv.Itoa(i) + ": " + schemaField)
	}
	return q.String() + " }" + introspectionFragments
}

// Introspection is charged by the size of its answer, not as one root field:
// a full introspection takes more tokens than its one root field, aliased
// copies of it are refused, and a cheap query still takes one token.
func TestIntrospectionChargedByCost(t *testing.T) {
	t.Parallel()
	// The schema's full answer costs 3 tokens (its cost is between 16,000 and 24,000).
	b := testkit.New(t, func(c *httpapi.Config) { c.RateLimitRPS = 0.01; c.RateLimitBurst = 6 })
	for i := range 2 {
		r := b.Post(b.Key, map[string]any{"query": aliasedIntrospection(1)})
		var s map[string]any
		r.Into(t, "s0", &s)
		if len(s["types"].([]any)) < 20 {
			t.Fatalf("introspection %d answered %.200s", i, r.Body)
		}
	}
	// Charged by root fields the two took 2 tokens of 6 and 4 are left;
	// charged by their cost they took all 6.
	r := b.Post(b.Key, map[string]any{"query": `{ agents { nodes { id } } }`})
	r.RefusedHTTP(t, http.StatusTooManyRequests, "RATE_LIMITED")
	if s, err := strconv.Atoi(r.Header.Get("Retry-After")); err != nil || s < 1 {
		t.Fatalf("Retry-After %q", r.Header.Get("Retry-After"))
	}
	// Aliased copies of the schema's answer are refused before anything runs.
	fresh := testkit.New(t)
	for _, n := range []int{2, 5} {
		r := fresh.Post(fresh.Key, map[string]any{"query": aliasedIntrospection(n)})
		r.Refused(t, "GRAPHQL_VALIDATION_FAILED")
		if !strings.Contains(r.Errors[0].Message, "__schema") {
			t.Fatalf("%d aliased introspections refused for %q", n, r.Errors[0].Message)
		}
	}

	// A cheap query, and a page of 200 with its totalCount, take one token each.
	cheap := testkit.New(t, func(c *httpapi.Config) { c.RateLimitRPS = 0.01; c.RateLimitBurst = 3 })
	for _, q := range []string{`{ agents { nodes { id } } }`, `{ __schema { queryType { name } } }`,
		`{ transactions(limit: 200) { nodes { id fromAgent toAgent action amount currency memo status reversalOf reversedBy reason createdAt } pageInfo { endCursor hasNextPage } totalCount } }`} {
		if r := cheap.Post(cheap.Key, map[string]any{"query": q}); r.Status != http.StatusOK || len(r.Errors) != 0 {
			t.Fatalf("%.40s within the burst: %d %.300s", q, r.Status, r.Body)
		}
	}
	cheap.Post(cheap.Key, map[string]any{"query": `{ agents { nodes { id } } }`}).RefusedHTTP(t, http.StatusTooManyRequests, "RATE_LIMITED")
}
