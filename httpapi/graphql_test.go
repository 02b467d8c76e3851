package httpapi_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/agenttrust/service/httpapi"
	"github.com/agenttrust/service/internal/testkit"
)

func TestGET(t *testing.T) {
	t.Parallel()
	b := testkit.New(t)
	register(b, "one")
	var c struct{ TotalCount int }
	b.Get(b.Key, "/graphql?query="+url.QueryEscape(`{agents{totalCount}}`)).Into(t, "agents", &c)
	if c.TotalCount != 1 {
		t.Fatalf("GET totalCount %d", c.TotalCount)
	}

	vars := `{"input":{"name":"x","authorizedActions":["a"],"spendingLimit":"1","currency":"USD","environment":"sandbox"}}`
	r := b.Get(b.Key, "/graphql?query="+url.QueryEscape(registerQuery)+"&variables="+url.QueryEscape(vars))
	r.RefusedHTTP(t, http.StatusMethodNotAllowed, "VALIDATION_FAILED")
	checkFieldErrors(t, r, "query")
	if !strings.Contains(r.Header.Get("Allow"), "POST") {
		t.Fatalf("mutation over GET: Allow %q", r.Header.Get("Allow"))
	}
	if n := count(b, b.Key); n != 1 {
		t.Fatalf("a mutation over GET ran: %d agents", n)
	}
}

func TestResponseContentType(t *testing.T) {
	t.Parallel()
	b := testkit.New(t)
	q := map[string]any{"query": `{ agents { totalCount } }`}
	cases := map[string]string{
		"":                                  "application/json",
		"application/json":                  "application/json",
		"application/graphql-response+json": "application/graphql-response+json",
	}
	for accept, want := range cases {
		var header []string
		if accept != "" {
			header = []string{"Accept", accept}
		}
		r := b.Post(b.Key, q, header...)
		if got := r.Header.Get("Content-Type"); r.Status != http.StatusOK || !strings.HasPrefix(got, want) {
			t.Errorf("Accept %q: %d Content-Type %q", accept, r.Status, got)
		}
		var c struct{ TotalCount int }
		r.Into(t, "agents", &c)
	}
}

func TestDocumentErrors(t *testing.T) {
	t.Parallel()
	b := testkit.New(t)
	cases := map[string]string{
		`{ agents { `:                           "GRAPHQL_PARSE_FAILED",
		`query {`:                               "GRAPHQL_PARSE_FAILED",
		`{ agents { nope } }`:                   "GRAPHQL_VALIDATION_FAILED",
		`{ agentz { totalCount } }`:             "GRAPHQL_VALIDATION_FAILED",
		`{ agents(limit: "x") { totalCount } }`: "GRAPHQL_VALIDATION_FAILED",
		`{ agents }`:                            "GRAPHQL_VALIDATION_FAILED",
	}
	// GraphQL over HTTP: 200 when the client accepts application/json,
	// 400 when it accepts application/graphql-response+json.
	for query, code := range cases {
		r := b.Post(b.Key, map[string]any{"query": query})
		if r.Code() != code || r.Status != http.StatusOK || len(r.Data) != 0 {
			t.Errorf("%q: %d %s, want 200 %s", query, r.Status, r.Body, code)
		}
		body, _ := json.Marshal(map[string]any{"query": query})
		r = testkit.Serve(t, b.Handler, testkit.Request(http.MethodPost, "/graphql", bytes.NewReader(body), "Content-Type", "application/json",
			"Accept", "application/graphql-response+json", "Authorization", "Bearer "+b.Key))
		if r.Code() != code || r.Status != http.StatusBadRequest {
			t.Errorf("%q with graphql-response+json: %d, want 400 %s", query, r.Status, code)
		}
	}
}

func TestDepthLimit(t *testing.T) {
	t.Parallel()
	b := testkit.New(t, func(c *httpapi.Config) { c.DepthLimit = 3 })
	register(b, "one")
	deep := []string{
		`{ agents { nodes { auditChain { hash } } } }`,
		`{ agents { ...page } } fragment page on AgentConnection { nodes { auditChain { hash } } }`,
		`{ agents { ... on AgentConnection { nodes { ... on Agent { auditChain { hash } } } } } }`,
	}
	for _, q := range deep {
		r := b.Post(b.Key, map[string]any{"query": q})
		if r.Code() != "GRAPHQL_VALIDATION_FAILED" || len(r.Data) != 0 || !strings.Contains(r.Errors[0].Message, "3") {
			t.Errorf("%q: %d %s", q, r.Status, r.Body)
		}
	}
	shallow := []string{
		`{ agents { nodes { id } } }`,
		`{ __schema { types { fields { type { ofType { ofType { name } } } } } } }`,
	}
	for _, q := range shallow {
		if r := b.Post(b.Key, map[string]any{"query": q}); r.Status != http.StatusOK || len(r.Errors) != 0 {
			t.Errorf("%q: %d %s", q, r.Status, r.Body)
		}
	}
}

func TestDefaultDepthAllowsTheSchema(t *testing.T) {
	t.Parallel()
	b := testkit.New(t)
	register(b, "one")
	q := `{ agents { nodes { auditChain { hash } } } }`
	if r := b.Post(b.Key, map[string]any{"query": q}); r.Status != http.StatusOK || len(r.Errors) != 0 {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
}

// A page's cost is its size times its element, and an audit chain's its
// limit times its entry: 10 agents with their default chains (500 entries)
// fit in the limit of 50,000; 20 of them do not, nor do 2 chains on 10.
func TestComplexityLimit(t *testing.T) {
	t.Parallel()
	b := testkit.New(t)
	const chain = `{ sequence action timestamp actor details hash previousHash }`
	query := func(limit, chains int) string {
		q := fmt.Sprintf(`{ agents(limit: %d) { nodes { id name`, limit)
		for i := range chains {
			q += fmt.Sprintf(" c%d: auditChain %s", i, chain)
		}
		return q + " } } }"
	}
	for _, q := range []string{query(20, 1), query(10, 2)} {
		r := b.Post(b.Key, map[string]any{"query": q})
		if r.Code() != "GRAPHQL_VALIDATION_FAILED" || len(r.Data) != 0 || !strings.Contains(r.Errors[0].Message, "complex") {
			t.Fatalf("over-complex query: %d %s", r.Status, r.Body)
		}
	}
	if r := b.Post(b.Key, map[string]any{"query": query(10, 1)}); r.Status != http.StatusOK || len(r.Errors) != 0 {
		t.Fatalf("query within the limit: %d %s", r.Status, r.Body)
	}
}

func TestAutomaticPersistedQueries(t *testing.T) {
	t.Parallel()
	b := testkit.New(t)
	register(b, "one")
	const query = `{ agents { totalCount } }`
	sum := sha256.Sum256([]byte(query))
	ext := map[string]any{"persistedQuery": map[string]any{"version": 1, "sha256Hash": hex.EncodeToString(sum[:])}}

	r := b.Post(b.Key, map[string]any{"extensions": ext})
	if r.Code() != "PERSISTED_QUERY_NOT_FOUND" || r.Errors[0].Message != "PersistedQueryNotFound" {
		t.Fatalf("unknown hash: %d %s", r.Status, r.Body)
	}
	var c struct{ TotalCount int }
	b.Post(b.Key, map[string]any{"query": query, "extensions": ext}).Into(t, "agents", &c)
	if c.TotalCount != 1 {
		t.Fatalf("query with hash: totalCount %d", c.TotalCount)
	}
	c.TotalCount = 0
	b.Post(b.Key, map[string]any{"extensions": ext}).Into(t, "agents", &c)
	if c.TotalCount != 1 {
		t.Fatalf("hash alone: totalCount %d", c.TotalCount)
	}
	c.TotalCount = 0
	raw := fmt.Sprintf(`{"persistedQuery":{"version":1,"sha256Hash":%q}}`, hex.EncodeToString(sum[:]))
	b.Get(b.Key, "/graphql?extensions="+url.QueryEscape(raw)).Into(t, "agents", &c)
	if c.TotalCount != 1 {
		t.Fatalf("hash alone over GET: totalCount %d", c.TotalCount)
	}

	// Another organization's hash means nothing to it until it registers
	// the query itself; then it answers with its own data.
	_, other := b.NewOrg("globex")
	if r := b.Post(other, map[string]any{"extensions": ext}); r.Code() != "PERSISTED_QUERY_NOT_FOUND" {
		t.Fatalf("another organization's hash alone: %d %s", r.Status, r.Body)
	}
	b.Post(other, map[string]any{"query": query, "extensions": ext}).Into(t, "agents", &c)
	b.Post(other, map[string]any{"extensions": ext}).Into(t, "agents", &c)
	if c.TotalCount != 0 {
		t.Fatalf("the other organization's registered hash: totalCount %d, want its own 0", c.TotalCount)
	}

	wrong := map[string]any{"persistedQuery": map[string]any{"version": 1, "sha256Hash": strings.Repeat("0", 64)}}
	if r := b.Post(b.Key, map[string]any{"query": query, "extensions": wrong}); len(r.Errors) == 0 || len(r.Data) != 0 {
		t.Fatalf("query with a mismatched hash: %d %s", r.Status, r.Body)
	}
}

func TestRequestBody(t *testing.T) {
	t.Parallel()
	b := testkit.New(t)
	padded := func(size int) string { // JSON whitespace pads the body, not the document
		q := `{"query":"{ agents { totalCount } }"`
		return q + strings.Repeat(" ", size-len(q)-1) + `}`
	}
	send := func(body string, chunked bool) *testkit.Response {
		req := testkit.Request(http.MethodPost, "/graphql", strings.NewReader(body),
			"Content-Type", "application/json", "Authorization", "Bearer "+b.Key)
		if chunked {
			req.ContentLength = -1
		}
		return testkit.Serve(t, b.Handler, req)
	}
	for _, chunked := range []bool{false, true} {
		if r := send(padded(64<<10), chunked); r.Status != http.StatusOK || len(r.Errors) != 0 {
			t.Fatalf("a body of exactly 64 KiB (chunked %v): %d %.300s", chunked, r.Status, r.Body)
		}
		r := send(padded(64<<10+1), chunked)
		r.RefusedHTTP(t, http.StatusRequestEntityTooLarge, "VALIDATION_FAILED")
		checkFieldErrors(t, r, "body")
	}
	for _, body := range []string{`{"query": `, `not json`, `{"query": "{ agents { totalCount } }"} trailing`} {
		r := send(body, false)
		r.RefusedHTTP(t, http.StatusBadRequest, "VALIDATION_FAILED")
		checkFieldErrors(t, r, "body")
	}
}

func checkFieldErrors(t *testing.T, r *testkit.Response, field string) {
	t.Helper()
	fes, _ := r.Errors[0].Extensions["fieldErrors"].([]any)
	if len(fes) != 1 || fes[0].(map[string]any)["field"] != field || fes[0].(map[string]any)["message"] == "" {
		t.Fatalf("fieldErrors %v, want one on %s", r.Errors[0].Extensions["fieldErrors"], field)
	}
}

// An answer goes out as encoding/json writes it, whether the edge sends its
// data as it is or encodes the whole answer (answers.write): names carry what
// encoding/json escapes (<, >, &, U+2028, U+2029) escaped, and the strings
// read back as they were stored.
func TestAgentsPageIsSentAsEncodingJSONWritesIt(t *testing.T) {
	t.Parallel()
	b := testkit.New(t)
	name := "a </script> & \u2028 \u2029 \"q\" \\ é"
	b.Register(map[string]any{"name": name})
	page := b.Post(b.Key, map[string]any{"query": `{ agents(limit: 50) { nodes { name trust { score } } } }`})
	viaGqlgen := b.Post(b.Key, map[string]any{"query": `{ agents(limit: 50) { totalCount nodes { name trust { score } } } }`})
	for _, r := range []*testkit.Response{page, viaGqlgen} {
		if r.Status != http.StatusOK || len(r.Errors) > 0 {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		if !strings.Contains(r.Body, `"a \u003c/script\u003e \u0026 \u2028 \u2029 \"q\" \\ é"`) {
			t.Errorf("name not escaped as encoding/json escapes it: %s", r.Body)
		}
		var again bytes.Buffer
		if err := json.Compact(&again, []byte(r.Body)); err != nil {
			t.Fatal(err)
		}
		if re, _ := json.Marshal(json.RawMessage(r.Body)); string(re) != r.Body || again.String() != r.Body {
			t.Errorf("encoding/json would change the body %s to %s", r.Body, re)
		}
	}
	var got struct{ Nodes []struct{ Name string } }
	page.Into(t, "agents", &got)
	if len(got.Nodes) != 1 || got.Nodes[0].Name != name {
		t.Fatalf("names %+v, want %q", got.Nodes, name)
	}
}
