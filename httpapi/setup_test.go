package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/agenttrust/service/app"
	"github.com/agenttrust/service/db"
	"github.com/agenttrust/service/db/dbtest"
	"github.com/agenttrust/service/httpapi"
)

// bundle is one test's isolated edge: its own database and handler, and one
// organization with an API key.
type bundle struct {
	t       *testing.T
	db      *db.DB
	dbURL   string
	orgs    *db.OrgService
	handler http.Handler
	orgID   string
	keyID   string
	key     string
}

func setup(t *testing.T, cfgs ...func(*httpapi.Config)) *bundle {
	t.Helper()
	d, u := dbtest.NewWithURL(t)
	cfg := httpapi.Config{RateLimitRPS: 10000, RateLimitBurst: 10000}
	for _, f := range cfgs {
		f(&cfg)
	}
	b := &bundle{t: t, db: d, dbURL: u, orgs: db.NewOrgService(d)}
	b.handler = newHandler(cfg, b.orgs, d)
	var err error
	b.orgID, b.keyID, b.key, err = b.orgs.CreateOrg(context.Background(), "acme")
	if err != nil {
		t.Fatalf("create org: %v", err)
	}
	return b
}

// newHandler wires the edge as app.Handler does, but authenticating with a
// while the services use d, so outage tests can break one and not the other.
func newHandler(cfg httpapi.Config, a *db.OrgService, d *db.DB) http.Handler {
	return httpapi.New(cfg, httpapi.Deps{
		Auth:        a,
		Services:    app.Services(d),
		Ready:       d.Ready,
		Unavailable: db.Unavailable,
		DBStats:     d.Stats,
		Logger:      slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
}

type gqlError struct {
	Message    string         `json:"message"`
	Extensions map[string]any `json:"extensions"`
}

// result is a raw HTTP answer, decoded as a GraphQL response when it is JSON.
type result struct {
	Status int
	Header http.Header
	Body   string
	Data   map[string]json.RawMessage `json:"data"`
	Errors []gqlError                 `json:"errors"`
}

// code is the first error's extensions.code, or "" when there is none.
func (r *result) code() string {
	if len(r.Errors) == 0 {
		return ""
	}
	c, _ := r.Errors[0].Extensions["code"].(string)
	return c
}

// refused fails unless r answered HTTP status with one error of code.
func (r *result) refused(t *testing.T, status int, code string) {
	t.Helper()
	if r.Status != status || len(r.Errors) != 1 || r.code() != code || r.Errors[0].Message == "" {
		t.Fatalf("want HTTP %d with one %s error, got %d: %s", status, code, r.Status, r.Body)
	}
}

// into decodes data.field into v, failing on any error.
func (r *result) into(t *testing.T, field string, v any) {
	t.Helper()
	if r.Status != http.StatusOK || len(r.Errors) > 0 {
		t.Fatalf("unexpected answer %d: %s", r.Status, r.Body)
	}
	if err := json.Unmarshal(r.Data[field], v); err != nil {
		t.Fatalf("decode %s: %v (%s)", field, err, r.Body)
	}
}

func serve(t *testing.T, h http.Handler, req *http.Request) *result {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	r := &result{Status: rec.Code, Header: rec.Header(), Body: rec.Body.String()}
	if strings.Contains(r.Header.Get("Content-Type"), "json") {
		if err := json.Unmarshal(rec.Body.Bytes(), r); err != nil {
			t.Fatalf("decode %d answer: %v: %s", rec.Code, err, r.Body)
		}
	}
	return r
}

// request builds a request; header pairs follow the body.
func request(method, target string, body io.Reader, header ...string) *http.Request {
	req := httptest.NewRequest(method, target, body)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	return req
}

// post sends a GraphQL request body as key ("" sends no Authorization).
func (b *bundle) post(key string, body any, header ...string) *result {
	b.t.Helper()
	raw, err := json.Marshal(body)
	if err != nil {
		b.t.Fatal(err)
	}
	header = append([]string{"Content-Type", "application/json"}, header...)
	if key != "" {
		header = append(header, "Authorization", "Bearer "+key)
	}
	return serve(b.t, b.handler, request(http.MethodPost, "/graphql", bytes.NewReader(raw), header...))
}

// query posts query with vars as the bundle's organization.
func (b *bundle) query(query string, vars map[string]any) *result {
	b.t.Helper()
	return b.post(b.key, map[string]any{"query": query, "variables": vars})
}

// get sends GET target with key.
func (b *bundle) get(key, target string) *result {
	b.t.Helper()
	req := request(http.MethodGet, target, nil)
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	return serve(b.t, b.handler, req)
}

// count is the organization's agents totalCount as key sees it.
func (b *bundle) count(key string) int {
	b.t.Helper()
	var c struct{ TotalCount int }
	b.post(key, map[string]any{"query": `{ agents { totalCount } }`}).into(b.t, "agents", &c)
	return c.TotalCount
}

const registerQuery = `mutation($input: RegisterAgentInput!) { registerAgent(input: $input) { id } }`

// register stores an agent and returns its id.
func (b *bundle) register(name string) string {
	b.t.Helper()
	in := map[string]any{"name": name, "authorizedActions": []string{"purchase"}, "spendingLimit": "10",
		"currency": "USD", "environment": "sandbox"}
	var a struct{ ID string }
	b.query(registerQuery, map[string]any{"input": in}).into(b.t, "registerAgent", &a)
	return a.ID
}
