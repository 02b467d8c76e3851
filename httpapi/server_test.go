package httpapi_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/agenttrust/service/internal/testkit"

	"github.com/agenttrust/service/db"
	"github.com/agenttrust/service/db/dbtest"
	"github.com/agenttrust/service/httpapi"
	"github.com/agenttrust/service/id"
)

func TestHealthAndReadiness(t *testing.T) {
	t.Parallel()
	b := testkit.New(t)
	if r := b.Get("", "/healthz"); r.Status != http.StatusOK || strings.TrimSpace(r.Body) != "ok" {
		t.Fatalf("/healthz: %d %q", r.Status, r.Body)
	}
	if r := b.Get("", "/readyz"); r.Status != http.StatusOK {
		t.Fatalf("/readyz on a migrated database: %d %q", r.Status, r.Body)
	}
	if r := b.Get("", "/"); r.Status != http.StatusOK || !strings.Contains(r.Header.Get("Content-Type"), "text/html") ||
		!strings.Contains(r.Body, "/graphql") {
		t.Fatalf("playground: %d %q", r.Status, r.Header.Get("Content-Type"))
	}
}

// A database without the migrations is not ready.
func TestNotReadyWithoutMigrations(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	admin := dbtest.OpenSQL(dbtest.AdminURL())
	defer admin.Close()
	name := "att_t_" + id.Random(8)
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		a := dbtest.OpenSQL(dbtest.AdminURL())
		defer a.Close()
		_, _ = a.ExecContext(context.Background(), fmt.Sprintf("DROP DATABASE IF EXISTS %s WITH (FORCE)", name))
	})
	u, err := url.Parse(dbtest.AdminURL())
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	d, err := db.Open(ctx, u.String())
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	h := newHandler(httpapi.Config{}, db.NewOrgService(d), d)
	if r := testkit.Serve(t, h, testkit.Request(http.MethodGet, "/readyz", nil)); r.Status != http.StatusServiceUnavailable {
		t.Fatalf("/readyz before migrating: %d %q", r.Status, r.Body)
	}
	if _, err := d.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	if r := testkit.Serve(t, h, testkit.Request(http.MethodGet, "/readyz", nil)); r.Status != http.StatusOK {
		t.Fatalf("/readyz after migrating: %d %q", r.Status, r.Body)
	}
}

func TestMetrics(t *testing.T) {
	t.Parallel()
	b := testkit.New(t)
	count(b, b.Key)
	count(b, b.Key)
	b.Do(b.Key, registerQuery, map[string]any{"input": map[string]any{"name": "", "authorizedActions": []string{"a"},
		"spendingLimit": "1", "currency": "USD", "environment": "sandbox"}})
	b.Post("", map[string]any{"query": `{ agents { totalCount } }`})
	b.Do(b.Key, `{ agents { nope } }`, nil) // refused before it runs

	r := b.Get("", "/metrics")
	if r.Status != http.StatusOK {
		t.Fatalf("/metrics: %d", r.Status)
	}
	for _, want := range []string{
		`att_graphql_requests_total{operation="query:agents",outcome="ok"} 2`,
		`att_graphql_requests_total{operation="mutation:registerAgent",outcome="VALIDATION_FAILED"} 1`,
		`att_graphql_requests_total{operation="invalid",outcome="GRAPHQL_VALIDATION_FAILED"} 1`,
		`att_graphql_request_duration_seconds_count{operation="query:agents",outcome="ok"} 2`,
		`att_http_requests_total{code="200",route="/graphql"} 4`,
		`att_http_requests_total{code="401",route="/graphql"} 1`,
		`att_db_max_open_connections `,
	} {
		if !strings.Contains(r.Body, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}

func TestRequestID(t *testing.T) {
	t.Parallel()
	b := testkit.New(t)
	generated := regexp.MustCompile(`^req_[a-z2-7]{10,}$`)
	echo := func(sent string) string {
		req := testkit.Request(http.MethodPost, "/graphql", strings.NewReader(`{"query":"{ agents { totalCount } }"}`),
			"Content-Type", "application/json", "Authorization", "Bearer "+b.Key)
		if sent != "" {
			req.Header.Set("X-Request-Id", sent)
		}
		return testkit.Serve(t, b.Handler, req).Header.Get("X-Request-Id")
	}
	if got := echo("client-id_1.2:3"); got != "client-id_1.2:3" {
		t.Fatalf("X-Request-Id echoed as %q", got)
	}
	first, second := echo(""), echo("")
	if !generated.MatchString(first) || first == second {
		t.Fatalf("generated request ids %q %q", first, second)
	}
	for _, bad := range []string{"has space", strings.Repeat("x", 129), "<script>"} {
		if got := echo(bad); !generated.MatchString(got) {
			t.Errorf("X-Request-Id %q answered with %q", bad, got)
		}
	}
	if got := b.Get("", "/healthz").Header.Get("X-Request-Id"); !generated.MatchString(got) {
		t.Fatalf("/healthz X-Request-Id %q", got)
	}
}
