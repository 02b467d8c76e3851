package client_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/agenttrust/service/client"
	"github.com/agenttrust/service/httpapi"
	"github.com/agenttrust/service/internal/testkit"
	"github.com/agenttrust/service/wire"
)

// bundle is one test's service: the test kit's database and handler behind a
// real HTTP server, its organization, and a client holding its key.
type bundle struct {
	t   *testing.T
	ctx context.Context
	kit *testkit.Kit
	srv *httptest.Server
	c   *client.Client
}

func setup(t *testing.T, opts ...func(*client.Options)) *bundle {
	t.Helper()
	return setupWrapped(t, nil, opts...)
}

// setupWrapped is setup with the server's handler wrapped by wrap (nil: not wrapped).
func setupWrapped(t *testing.T, wrap func(http.Handler) http.Handler, opts ...func(*client.Options)) *bundle {
	t.Helper()
	k := testkit.New(t)
	h := k.Handler
	if wrap != nil {
		h = wrap(h)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	b := &bundle{t: t, ctx: context.Background(), kit: k, srv: srv}
	b.c = b.client(k.Key, opts...)
	return b
}

// client returns a client of the bundle's server with key.
func (b *bundle) client(key string, opts ...func(*client.Options)) *client.Client {
	b.t.Helper()
	o := client.Options{APIKey: key, BaseURL: b.srv.URL, RetryWaitMin: time.Millisecond, RetryWaitMax: 10 * time.Millisecond}
	for _, f := range opts {
		f(&o)
	}
	c, err := client.New(o)
	if err != nil {
		b.t.Fatalf("client.New: %v", err)
	}
	return c
}

// otherOrg returns a client of a second organization on the same server.
func (b *bundle) otherOrg() *client.Client {
	b.t.Helper()
	_, key := b.kit.NewOrg("globex")
	return b.client(key)
}

// runService runs the whole service of o (its background work too, unlike
// setup's handler) until the test ends, under a rate limit no test reaches
// and with its logs discarded; ctx ends with it. A server the caller puts
// in front of it and closes at cleanup closes before the service stops.
func runService(t *testing.T, o wire.Options) (ctx context.Context, srv *wire.Server) {
	t.Helper()
	o.Config = httpapi.Config{RateLimitRPS: 10000, RateLimitBurst: 10000}
	o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	srv = wire.NewServer(o)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = srv.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	return ctx, srv
}

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

// register stores an agent with limit spendingLimit in USD, sandbox.
func (b *bundle) register(c *client.Client, name, limit string) *client.Agent {
	b.t.Helper()
	a, err := c.Agents.Register(b.ctx, client.RegisterAgentInput{
		Name: name, AuthorizedActions: []string{"purchase"}, SpendingLimit: dec(limit),
		Currency: "USD", Environment: client.Sandbox,
	})
	if err != nil {
		b.t.Fatalf("register %s: %v", name, err)
	}
	return a
}

// execute pays amount from one agent to another and fails the test on error.
func (b *bundle) execute(from, to, amount string) *client.Transaction {
	b.t.Helper()
	tx, err := b.c.Transactions.Execute(b.ctx, client.ExecuteInput{FromAgent: from, ToAgent: to, Action: "purchase", Amount: dec(amount), Currency: "USD"})
	if err != nil {
		b.t.Fatalf("execute %s: %v", amount, err)
	}
	return tx
}
