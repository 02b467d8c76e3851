package resolvers_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/agenttrust/service/db"
	"github.com/agenttrust/service/db/dbtest"
	"github.com/agenttrust/service/httpapi"
	"github.com/agenttrust/service/resolvers"
)

// bundle is one test's isolated service: its own database and handler, and
// one organization ready to use.
type bundle struct {
	t       *testing.T
	db      *db.DB
	dbURL   string
	orgs    *db.OrgService
	handler http.Handler
	orgID   string
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
	b.handler = httpapi.New(cfg, httpapi.Deps{
		Auth:        b.orgs,
		Services:    resolvers.Services{Agents: db.NewAgentService(d)},
		Ready:       d.Ready,
		Unavailable: db.Unavailable,
		DBStats:     d.Stats,
		Logger:      slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	b.orgID, b.key = b.newOrg("acme")
	return b
}

func (b *bundle) newOrg(name string) (orgID, key string) {
	b.t.Helper()
	orgID, _, key, err := b.orgs.CreateOrg(context.Background(), name)
	if err != nil {
		b.t.Fatalf("create org: %v", err)
	}
	return orgID, key
}

type gqlError struct {
	Message    string         `json:"message"`
	Path       []any          `json:"path"`
	Extensions map[string]any `json:"extensions"`
}

type response struct {
	Status int
	Header http.Header
	Data   map[string]json.RawMessage `json:"data"`
	Errors []gqlError                 `json:"errors"`
}

// code is the first error's extensions.code, or "" when there is none.
func (r *response) code() string {
	if len(r.Errors) == 0 {
		return ""
	}
	c, _ := r.Errors[0].Extensions["code"].(string)
	return c
}

// into decodes the data field name into v, failing on any error.
func (r *response) into(t *testing.T, field string, v any) {
	t.Helper()
	if len(r.Errors) > 0 {
		t.Fatalf("unexpected errors: %+v", r.Errors)
	}
	if err := json.Unmarshal(r.Data[field], v); err != nil {
		t.Fatalf("decode %s: %v (%s)", field, err, r.Data[field])
	}
}

// do posts a GraphQL request with the given API key ("" sends none).
func (b *bundle) do(key, query string, vars map[string]any) *response {
	b.t.Helper()
	body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	req := httptest.NewRequest(http.MethodPost, "/graphql", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	return b.serve(req)
}

func (b *bundle) serve(req *http.Request) *response {
	b.t.Helper()
	rec := httptest.NewRecorder()
	b.handler.ServeHTTP(rec, req)
	r := &response{Status: rec.Code, Header: rec.Header()}
	if err := json.Unmarshal(rec.Body.Bytes(), r); err != nil {
		b.t.Fatalf("decode response (%d): %v: %s", rec.Code, err, rec.Body.String())
	}
	return r
}

// q runs a query as the bundle's organization and fails on errors.
func (b *bundle) q(query string, vars map[string]any) *response {
	b.t.Helper()
	r := b.do(b.key, query, vars)
	if len(r.Errors) > 0 {
		b.t.Fatalf("query failed: %+v", r.Errors)
	}
	return r
}
