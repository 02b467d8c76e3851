package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/agenttrust/service/bench/benchdb"
	"github.com/agenttrust/service/bench/dashboard"
	"github.com/agenttrust/service/bench/floor"
	"github.com/agenttrust/service/bench/stock"
	"github.com/agenttrust/service/db"
	"github.com/agenttrust/service/httpapi"
	"github.com/agenttrust/service/wire"
)

// servers are the read targets' servers, in this process, each on its own
// loopback port: the service's handler on the seeded database, and the
// floor and the stock reference sharing one pgx pool.
type servers struct {
	svc                        http.Handler
	key                        string // the dashboard's organization's API key
	fixture                    *dashboard.Fixture
	orgID                      string // the dashboard's organization
	pool                       *pgxpool.Pool
	svcURL, floorURL, stockURL string
	stops                      []func()
}

// newServers migrates the database, seeds the dashboard through the
// service's handler and serves the three targets.
func newServers(ctx context.Context, d *db.DB, dbURL string) (*servers, error) {
	s := &servers{}
	var err error
	if s.orgID, err = s.seed(ctx, d); err != nil {
		return nil, err
	}
	if err := s.serve(ctx, dbURL, s.orgID); err != nil {
		s.close()
		return nil, err
	}
	return s, nil
}

// seed migrates the database, creates the dashboard's organization and its
// counterparty, and seeds the dashboard's rows through the service's
// handler; it returns the dashboard's organization.
func (s *servers) seed(ctx context.Context, d *db.DB) (string, error) {
	if _, err := d.Migrate(ctx); err != nil {
		return "", err
	}
	orgID, _, key, err := db.NewOrgService(d).CreateOrg(ctx, "bench")
	if err != nil {
		return "", err
	}
	_, _, otherKey, err := db.NewOrgService(d).CreateOrg(ctx, "counterparty")
	if err != nil {
		return "", err
	}
	// Every part of the edge stays on: authentication, the rate limiter (set
	// high enough not to refuse), metrics, request logs at info level.
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	s.svc = wire.Handler(wire.Options{DB: d, Config: httpapi.Config{RateLimitRPS: 1e7, RateLimitBurst: 1e7}, Logger: log})
	s.key = key
	s.fixture, err = dashboard.Seed(func(key string, body []byte) ([]byte, error) { return serveOne(s.svc, key, body) }, key, otherKey)
	return orgID, err
}

// serve opens the floor's and the stock reference's pool and serves the
// service, the floor and the stock reference.
func (s *servers) serve(ctx context.Context, dbURL, orgID string) error {
	var err error
	if s.pool, err = pgxpool.New(ctx, dbURL+"&pool_max_conns=32"); err != nil {
		return err
	}
	if s.svcURL, err = s.start(s.svc); err != nil {
		return err
	}
	if s.floorURL, err = s.start(floor.Handler(s.pool, orgID)); err != nil {
		return err
	}
	s.stockURL, err = s.start(stock.Handler(s.pool, orgID))
	return err
}

// start serves h on loopback and returns its URL.
func (s *servers) start(h http.Handler) (string, error) {
	u, stop, err := serve(h)
	if err != nil {
		return "", err
	}
	s.stops = append(s.stops, stop)
	return u, nil
}

// close stops the servers, last started first, and closes the pool.
func (s *servers) close() {
	for i := len(s.stops) - 1; i >= 0; i-- {
		s.stops[i]()
	}
	if s.pool != nil {
		s.pool.Close()
	}
}

// seed registers n agents through the service's handler, so each has its
// audit chain, event and trust counters, and returns their ids.
func seed(h http.Handler, key string, n int) ([]string, error) {
	const q = `mutation($in: RegisterAgentInput!) { registerAgent(input: $in) { id } }`
	ids := make([]string, n)
	for i := range ids {
		out, err := serveOne(h, key, body(q, map[string]any{"in": map[string]any{
			"name": fmt.Sprintf("agent %d", i), "authorizedActions": []string{"purchase", "refund"},
			"spendingLimit": "1000.50", "currency": "USD", "environment": "sandbox"}}))
		var r struct {
			Data struct {
				RegisterAgent struct{ ID string } `json:"registerAgent"`
			} `json:"data"`
		}
		if err == nil {
			err = json.Unmarshal(out, &r)
		}
		if err != nil || r.Data.RegisterAgent.ID == "" {
			return nil, fmt.Errorf("seed: %v: %.400s", err, out)
		}
		ids[i] = r.Data.RegisterAgent.ID
	}
	return ids, nil
}

// serveOne serves one GraphQL POST through h and returns the answer of a 200.
func serveOne(h http.Handler, key string, body []byte) ([]byte, error) {
	req, _ := http.NewRequest(http.MethodPost, "/graphql", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+key)
	rec := &recorder{header: http.Header{}, status: http.StatusOK}
	h.ServeHTTP(rec, req)
	if rec.status != http.StatusOK {
		return nil, fmt.Errorf("HTTP %d: %.400s", rec.status, rec.body.String())
	}
	return rec.body.Bytes(), nil
}

type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header         { return r.header }
func (r *recorder) Write(b []byte) (int, error) { return r.body.Write(b) }
func (r *recorder) WriteHeader(status int)      { r.status = status }

func serve(h http.Handler) (string, func(), error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	return "http://" + ln.Addr().String() + "/graphql", func() { _ = srv.Close() }, nil
}

func body(query string, vars map[string]any) []byte {
	b, err := json.Marshal(map[string]any{"query": query, "variables": vars})
	if err != nil {
		panic(err)
	}
	return b
}

// execSimple runs one statement on the admin server.
func execSimple(ctx context.Context, admin, q string) error {
	conn := benchdb.Open(admin)
	defer conn.Close()
	_, err := conn.ExecContext(ctx, q)
	return err
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}

func envInt(k string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(k)); err == nil && n > 0 {
		return n
	}
	return def
}

func envDuration(k string, def time.Duration) time.Duration {
	if v := os.Getenv(k); v != "" {
		if n, err := strconv.Atoi(v); err == nil && n > 0 {
			return time.Duration(n) * time.Second
		}
		if d, err := time.ParseDuration(v); err == nil && d > 0 {
			return d
		}
	}
	return def
}
