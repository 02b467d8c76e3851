package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agenttrust/service/internal/testkit"

	"github.com/agenttrust/service/db"
	"github.com/agenttrust/service/db/dbtest"
	"github.com/agenttrust/service/httpapi"
)

// proxy forwards TCP connections to Postgres until cut, when it closes every
// connection and refuses new ones: the database has gone away.
type proxy struct {
	ln    net.Listener
	mu    sync.Mutex
	conns []net.Conn
}

func startProxy(t testing.TB, target string) *proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{ln: ln}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, c, up)
			p.mu.Unlock()
			go func() { _, _ = io.Copy(up, c); up.Close() }()
			go func() { _, _ = io.Copy(c, up); c.Close() }()
		}
	}()
	t.Cleanup(p.cut)
	return p
}

func (p *proxy) cut() {
	p.ln.Close()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.Close()
	}
}

// openThroughProxy opens the bundle's database through a proxy.
func openThroughProxy(b *testkit.Kit) (*db.DB, *proxy) {
	b.T.Helper()
	u, err := url.Parse(b.DBURL)
	if err != nil {
		b.T.Fatal(err)
	}
	p := startProxy(b.T, u.Host)
	u.Host = p.ln.Addr().String()
	d, err := db.Open(context.Background(), u.String())
	if err != nil {
		b.T.Fatal(err)
	}
	b.T.Cleanup(func() { d.Close() })
	return d, p
}

// checkOutage asserts a prompt 503 INTERNAL that reveals nothing of the cause.
func checkOutage(t *testing.T, h http.Handler, key, query string) {
	t.Helper()
	start := time.Now()
	req := testkit.Request(http.MethodPost, "/graphql", strings.NewReader(`{"query":`+query+`}`),
		"Content-Type", "application/json", "Authorization", "Bearer "+key)
	r := testkit.Serve(t, h, req)
	if elapsed := time.Since(start); elapsed > 3*time.Second {
		t.Errorf("answered after %v", elapsed)
	}
	r.RefusedHTTP(t, http.StatusServiceUnavailable, "INTERNAL")
	for _, leak := range []string{"dial", "tcp", "127.0.0.1", "sql", "postgres", "connection", "EOF", "SQLSTATE", "closed"} {
		if strings.Contains(strings.ToLower(r.Body), strings.ToLower(leak)) {
			t.Errorf("the answer reveals %q: %s", leak, r.Body)
		}
	}
}

// The whole database is gone: authentication itself cannot run.
func TestDatabaseOutage(t *testing.T) {
	t.Parallel()
	b := testkit.New(t)
	d, p := openThroughProxy(b)
	h := newHandler(httpapi.Config{}, db.NewOrgService(d), d)
	if r := testkit.Serve(t, h, testkit.Request(http.MethodGet, "/readyz", nil)); r.Status != http.StatusOK {
		t.Fatalf("/readyz before the outage: %d", r.Status)
	}
	p.cut()
	checkOutage(t, h, b.Key, `"{ agents { totalCount } }"`)
	start := time.Now()
	if r := testkit.Serve(t, h, testkit.Request(http.MethodGet, "/readyz", nil)); r.Status != http.StatusServiceUnavailable || time.Since(start) > 3*time.Second {
		t.Fatalf("/readyz during the outage: %d after %v", r.Status, time.Since(start))
	}
	if r := testkit.Serve(t, h, testkit.Request(http.MethodGet, "/healthz", nil)); r.Status != http.StatusOK {
		t.Fatalf("/healthz during the outage: %d", r.Status)
	}
}

// The caller is authenticated, then the agents' database fails mid-request.
func TestDatabaseOutageInResolvers(t *testing.T) {
	t.Parallel()
	b := testkit.New(t)
	d, p := openThroughProxy(b)
	h := newHandler(httpapi.Config{}, b.Orgs, d)
	var c struct{ TotalCount int }
	r := testkit.Serve(t, h, testkit.Request(http.MethodPost, "/graphql", strings.NewReader(`{"query":"{ agents { totalCount } }"}`),
		"Content-Type", "application/json", "Authorization", "Bearer "+b.Key))
	r.Into(t, "agents", &c)
	p.cut()
	checkOutage(t, h, b.Key, `"{ agents { totalCount } }"`)
	checkOutage(t, h, b.Key, `"mutation { registerAgent(input: {name: \"x\", authorizedActions: [\"a\"], spendingLimit: 1, currency: \"USD\", environment: sandbox}) { id } }"`)
}

// A closed pool (as during shutdown) is an outage too.
func TestClosedDatabase(t *testing.T) {
	t.Parallel()
	b := testkit.New(t)
	d, _ := openThroughProxy(b)
	h := newHandler(httpapi.Config{}, b.Orgs, d)
	d.Close()
	checkOutage(t, h, b.Key, `"{ agents { totalCount } }"`)
	if r := testkit.Serve(t, h, testkit.Request(http.MethodGet, "/readyz", nil)); r.Status != http.StatusServiceUnavailable {
		t.Fatalf("/readyz with a closed pool: %d", r.Status)
	}
}

// The database was dropped under the service: Postgres itself refuses.
func TestDroppedDatabase(t *testing.T) {
	t.Parallel()
	b := testkit.New(t)
	d, u := dbtest.NewWithURL(t)
	h := newHandler(httpapi.Config{}, b.Orgs, d)
	parsed, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	admin := dbtest.OpenSQL(dbtest.AdminURL())
	defer admin.Close()
	if _, err := admin.Exec("DROP DATABASE " + strings.TrimPrefix(parsed.Path, "/") + " WITH (FORCE)"); err != nil {
		t.Fatal(err)
	}
	for range 2 { // the pool's killed connections first, then failing reconnects
		checkOutage(t, h, b.Key, `"{ agents { totalCount } }"`)
	}
	if r := testkit.Serve(t, h, testkit.Request(http.MethodGet, "/readyz", nil)); r.Status != http.StatusServiceUnavailable {
		t.Fatalf("/readyz without a database: %d", r.Status)
	}
}

// logBuffer collects JSON log lines from concurrent writers.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logBuffer) lines(t *testing.T) []map[string]any {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(l.buf.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		out = append(out, m)
	}
	return out
}

// Every line a request logs carries its request id and organization: the
// resolver's error line as much as the edge's request line.
func TestRequestIDInEveryLogLine(t *testing.T) {
	t.Parallel()
	b := testkit.New(t)
	d, p := openThroughProxy(b)
	var logs logBuffer
	h := newHandlerLog(httpapi.Config{}, b.Orgs, d, slog.New(slog.NewJSONHandler(&logs, nil)))
	p.cut()
	req := testkit.Request(http.MethodPost, "/graphql", strings.NewReader(`{"query":"{ agents { totalCount } }"}`),
		"Content-Type", "application/json", "Authorization", "Bearer "+b.Key, "X-Request-Id", "trace-42")
	testkit.Serve(t, h, req).RefusedHTTP(t, http.StatusServiceUnavailable, "INTERNAL")
	msgs := map[string]bool{}
	for _, l := range logs.lines(t) {
		msgs[l["msg"].(string)] = true
		if l["request_id"] != "trace-42" || l["org_id"] != b.OrgID {
			t.Errorf("log line without the request's id and organization: %v", l)
		}
	}
	if !msgs["internal error"] || !msgs["request"] {
		t.Fatalf("want the resolver's and the edge's lines, got %v", msgs)
	}
}
