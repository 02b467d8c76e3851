package webhooktest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/agenttrust/service/db"
	"github.com/agenttrust/service/db/dbtest"
	"github.com/agenttrust/service/httpapi"
	"github.com/agenttrust/service/keyring"
	"github.com/agenttrust/service/webhook"
	"github.com/agenttrust/service/webhook/delivery"
	"github.com/agenttrust/service/webhook/outbound"
	"github.com/agenttrust/service/wire"
)

// Options tune an Env; zero fields take short test defaults.
type Options struct {
	Schedule     string        // default "50ms,100ms,150ms"
	DisableAfter int           // default 50
	Strict       bool          // refuse private networks (the production policy)
	Timeout      time.Duration // per request; default 3s
	MaxConns     int           // the sender's connections per host (outbound.Config.MaxConnsPerHost)
}

// Env is one test's service: its own database, the HTTP handler with a
// webhook service that trusts local TLS receivers, and one organization.
type Env struct {
	T        testing.TB
	DB       *db.DB
	DBURL    string
	Webhooks *db.WebhookService
	Sender   *outbound.Client
	Timeout  time.Duration // the sender's bound on a request
	Handler  http.Handler
	OrgID    string
	Key      string
}

// NewEnv builds an Env.
func NewEnv(t testing.TB, o Options) *Env {
	t.Helper()
	if o.Timeout == 0 {
		o.Timeout = 3 * time.Second
	}
	if o.Schedule == "" {
		o.Schedule = "50ms,100ms,150ms"
	}
	d, u := dbtest.NewWithURL(t)
	schedule, err := webhook.ParseSchedule(o.Schedule)
	if err != nil {
		t.Fatal(err)
	}
	keys, _ := keyring.Parse(keyring.Generate())
	roots := New(t).Roots() // every httptest TLS server shares one certificate
	sender := outbound.New(outbound.Config{AllowPrivateNetworks: !o.Strict, RootCAs: roots, Timeout: o.Timeout, MaxConnsPerHost: o.MaxConns})
	wh, err := db.NewWebhookService(d, keys, sender, db.WebhookConfig{Schedule: schedule, DisableAfter: o.DisableAfter})
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	e := &Env{T: t, DB: d, DBURL: u, Webhooks: wh, Sender: sender, Timeout: o.Timeout,
		Handler: wire.Handler(wire.Options{DB: d, Config: httpapi.Config{RateLimitRPS: 1e6, RateLimitBurst: 1e6}, Logger: log, Webhooks: wh})}
	e.OrgID, _, e.Key, err = db.NewOrgService(d).CreateOrg(context.Background(), "acme")
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// NewKey creates another organization and returns its API key.
func (e *Env) NewKey() string {
	e.T.Helper()
	_, _, key, err := db.NewOrgService(e.DB).CreateOrg(context.Background(), "other")
	if err != nil {
		e.T.Fatal(err)
	}
	return key
}

// Runner builds a delivery runner (a "process") with short timings: the
// job timeout, unless cfg sets it, is just over twice the sender's.
func (e *Env) Runner(cfg delivery.Config) *delivery.Runner {
	e.T.Helper()
	cfg.RequestTimeout = e.Timeout
	if cfg.JobTimeout == 0 {
		cfg.JobTimeout = 2*e.Timeout + time.Second
	}
	if cfg.Poll == 0 {
		cfg.Poll = 200 * time.Millisecond
	}
	if cfg.FetchPoll == 0 {
		cfg.FetchPoll = 50 * time.Millisecond
	}
	r, err := delivery.New(context.Background(), e.DB, e.Webhooks, e.Sender, cfg)
	if err != nil {
		e.T.Fatal(err)
	}
	return r
}

// Start runs a delivery runner until the returned stop is called (or t ends).
func (e *Env) Start(cfg delivery.Config) (r *delivery.Runner, stop func()) {
	r = e.Runner(cfg)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = r.Run(ctx) }()
	stopped := false
	stop = func() {
		if !stopped {
			stopped = true
			cancel()
			<-done
		}
	}
	e.T.Cleanup(stop)
	return r, stop
}

// Response is a REST answer.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// JSON decodes the answer's body into v.
func (r *Response) JSON(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		t.Fatalf("decode %d answer: %v: %s", r.Status, err, r.Body)
	}
}

// Do sends a REST request as key ("" sends none); body is encoded as JSON
// unless it is a string, sent as is.
func (e *Env) Do(key, method, path string, body any) *Response {
	e.T.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = bytes.NewReader([]byte(b))
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			e.T.Fatal(err)
		}
		rd = bytes.NewReader(raw)
	}
	req := httptest.NewRequest(method, path, rd)
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	rec := httptest.NewRecorder()
	e.Handler.ServeHTTP(rec, req)
	return &Response{Status: rec.Code, Header: rec.Header(), Body: rec.Body.Bytes()}
}

// GraphQL posts a query as the Env's organization and returns data, failing on errors.
func (e *Env) GraphQL(query string, vars map[string]any) map[string]json.RawMessage {
	e.T.Helper()
	return e.GraphQLAs(e.Key, query, vars)
}

// GraphQLAs is GraphQL as the organization of key (NewKey's).
func (e *Env) GraphQLAs(key, query string, vars map[string]any) map[string]json.RawMessage {
	e.T.Helper()
	var out struct {
		Data   map[string]json.RawMessage `json:"data"`
		Errors []json.RawMessage          `json:"errors"`
	}
	r := e.Do(key, http.MethodPost, "/graphql", map[string]any{"query": query, "variables": vars})
	r.JSON(e.T, &out)
	if len(out.Errors) > 0 {
		e.T.Fatalf("graphql errors: %s", r.Body)
	}
	return out.Data
}

// RegisterAgent registers an agent through GraphQL (which logs agent.registered) and returns its id.
func (e *Env) RegisterAgent(name string) string {
	e.T.Helper()
	return e.RegisterAgentAs(e.Key, name)
}

// RegisterAgentAs is RegisterAgent for the organization of key.
func (e *Env) RegisterAgentAs(key, name string) string {
	e.T.Helper()
	data := e.GraphQLAs(key, `mutation($in: RegisterAgentInput!) { registerAgent(input: $in) { id } }`, map[string]any{"in": map[string]any{
		"name": name, "authorizedActions": []string{"purchase"}, "spendingLimit": "10", "currency": "USD", "environment": "sandbox"}})
	var a struct{ ID string }
	_ = json.Unmarshal(data["registerAgent"], &a)
	return a.ID
}

// Register registers an endpoint through REST and returns its id and secret.
func (e *Env) Register(url string, events ...string) (id, secret string) {
	e.T.Helper()
	return e.RegisterAs(e.Key, url, events...)
}

// RegisterAs is Register for the organization of key.
func (e *Env) RegisterAs(key, url string, events ...string) (id, secret string) {
	e.T.Helper()
	r := e.Do(key, http.MethodPost, "/webhooks", map[string]any{"url": url, "events": events})
	if r.Status != http.StatusCreated {
		e.T.Fatalf("register webhook: %d %s", r.Status, r.Body)
	}
	var w struct{ ID, Secret string }
	r.JSON(e.T, &w)
	return w.ID, w.Secret
}
