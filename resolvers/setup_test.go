package resolvers_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/uptrace/bun/driver/pgdriver"

	"github.com/agenttrust/service/app"
	"github.com/agenttrust/service/db"
	"github.com/agenttrust/service/db/dbtest"
	"github.com/agenttrust/service/event"
	"github.com/agenttrust/service/httpapi"
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
	keyID   string
	key     string
}

func setup(t *testing.T, cfgs ...func(*httpapi.Config)) *bundle {
	t.Helper()
	d, u := dbtest.NewWithURL(t)
	// Fixtures register agents in batches of 50 mutations per request.
	cfg := httpapi.Config{RateLimitRPS: 10000, RateLimitBurst: 10000, MaxMutations: 50, MaxSameRootField: 50}
	for _, f := range cfgs {
		f(&cfg)
	}
	b := &bundle{t: t, db: d, dbURL: u, orgs: db.NewOrgService(d)}
	b.handler = app.Handler(cfg, d, slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelWarn})), nil)
	o := b.newOrgWithKey("acme")
	b.orgID, b.keyID, b.key = o.id, o.keyID, o.key
	return b
}

// org is an organization and its first API key.
type org struct{ id, keyID, key string }

func (b *bundle) newOrgWithKey(name string) org {
	b.t.Helper()
	orgID, keyID, key, err := b.orgs.CreateOrg(context.Background(), name)
	if err != nil {
		b.t.Fatalf("create org: %v", err)
	}
	return org{orgID, keyID, key}
}

func (b *bundle) newOrg(name string) (orgID, key string) {
	b.t.Helper()
	o := b.newOrgWithKey(name)
	return o.id, o.key
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

// refused fails unless r is exactly one error with code and no data.
func (r *response) refused(t *testing.T, code string) {
	t.Helper()
	if len(r.Errors) != 1 || r.code() != code {
		t.Fatalf("want one %s error, got %d: %+v", code, len(r.Errors), r.Errors)
	}
	if r.Errors[0].Message == "" {
		t.Fatalf("%s error without a message", code)
	}
	for k, v := range r.Data {
		if string(v) != "null" {
			t.Fatalf("refused request returned data %s: %s", k, v)
		}
	}
}

type fieldError struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

// fields fails unless r is one VALIDATION_FAILED error, and returns the
// sorted paths its fieldErrors name (each with a message).
func (r *response) fields(t *testing.T) []string {
	t.Helper()
	r.refused(t, "VALIDATION_FAILED")
	raw, _ := json.Marshal(r.Errors[0].Extensions["fieldErrors"])
	var fes []fieldError
	if err := json.Unmarshal(raw, &fes); err != nil || len(fes) == 0 {
		t.Fatalf("fieldErrors missing or malformed (%v): %s", err, raw)
	}
	out := make([]string, len(fes))
	for i, fe := range fes {
		if fe.Message == "" {
			t.Fatalf("fieldError %q has no message", fe.Field)
		}
		out[i] = fe.Field
	}
	slices.Sort(out)
	return out
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

// exec runs SQL straight against the test database, behind the service's back.
func (b *bundle) exec(query string, args ...any) {
	b.t.Helper()
	conn := sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(b.dbURL)))
	defer conn.Close()
	res, err := conn.ExecContext(context.Background(), query, args...)
	if err != nil {
		b.t.Fatalf("exec %q: %v", query, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		b.t.Fatalf("exec %q changed no row", query)
	}
}

// events returns an organization's durable event log, oldest first.
func (b *bundle) events(orgID string) []event.Event {
	b.t.Helper()
	evs, err := b.db.Events(context.Background(), orgID, 0, 1000)
	if err != nil {
		b.t.Fatalf("read events: %v", err)
	}
	return evs
}

// agentEvents lists the types of an organization's agent.* events, oldest
// first (other capabilities, such as trust, add their own events alongside).
func (b *bundle) agentEvents(orgID string) []string {
	b.t.Helper()
	var out []string
	for _, e := range b.events(orgID) {
		if strings.HasPrefix(e.Type, "agent.") {
			out = append(out, e.Type)
		}
	}
	return out
}

// testWriter sends the service's warnings and errors to the test log.
type testWriter struct{ t testing.TB }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Helper()
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}
