// Command agenttrust runs the Agent Trust and Transaction Service: a GraphQL
// API over Postgres for registering agents, scoring trust and moving money.
//
// Usage (each command explains itself with --help):
//
//	agenttrust [serve]                 run the server (default)
//	agenttrust migrate                 apply database migrations and exit
//	agenttrust org create --name NAME  create an organization and its first API key
//	agenttrust apikey create --org ID  add an API key to an organization
//	agenttrust apikey list --org ID    list an organization's key ids and their last use
//	agenttrust apikey revoke --key ID  revoke an API key
//	agenttrust trust rebuild [--fix]   recount trust counters from the raw records, report drift
package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/agenttrust/service/db"
	"github.com/agenttrust/service/internal/localpg"
	"github.com/agenttrust/service/keyring"
	"github.com/agenttrust/service/live"
	"github.com/agenttrust/service/webhook/delivery"
	"github.com/agenttrust/service/webhook/outbound"
	"github.com/agenttrust/service/wire"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	name := filepath.Base(os.Args[0]) // help and errors name the program as it was called
	if err := runAs(ctx, name, os.Args[1:], os.Getenv, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, name+":", err)
		os.Exit(exitCode(err))
	}
}

// Main is the running service; end-to-end tests drive it like the binary does.
type Main struct {
	Config Config
	Logger *slog.Logger
	DB     *db.DB
	// Keys is the server's key ring (ENCRYPTION_KEY), loaded by Open.
	Keys *keyring.Ring
	// Webhooks is the webhook service, built by Open.
	Webhooks *db.WebhookService
	sender   *outbound.Client
	stopPG   func(context.Context) error
	// applied lists the migrations the last Open applied.
	applied []string
}

// Open connects to the database (finding or starting a local one when
// DATABASE_URL is unset) and applies pending migrations. Config must have
// passed Validate, which parses the keys, schedule and CA file Open uses.
func (m *Main) Open(ctx context.Context) error {
	url := m.Config.DatabaseURL
	if url == "" {
		res, err := localpg.Resolve(ctx, localpg.Options{Logger: m.Logger})
		if err != nil {
			return err
		}
		url, m.stopPG = res.URL, res.Stop
		m.Logger.Info("DATABASE_URL unset: using local Postgres", "source", res.Source)
	}
	if err := m.loadKeys(); err != nil {
		return err
	}
	d, err := db.Open(ctx, url, db.WithMaxConns(m.Config.DatabaseMaxConns), db.WithMaxKeysPerOrg(m.Config.MaxAPIKeysPerOrg))
	if err != nil {
		return err
	}
	m.DB = d
	d.SetKeys(m.Keys)
	d.SetMaxPendingApprovals(m.Config.ApprovalMaxPending)
	d.SetConnsPerOrg(m.Config.DatabaseConnsPerOrg)
	if m.applied, err = d.Migrate(ctx); err != nil {
		return err
	}
	if err := m.openWebhooks(); err != nil {
		return err
	}
	m.Logger.Info("migrations applied", "new", m.applied)
	if n, err := d.SignUnsignedHeads(ctx); err != nil {
		return err
	} else if n > 0 {
		m.Logger.Info("signed audit chain heads written before heads were signed", "agents", n)
	}
	if m.Config.BootstrapAPIKey != "" {
		orgID, err := db.NewOrgService(d).EnsureKey(ctx, m.Config.BootstrapAPIKey, "bootstrap")
		if err != nil {
			return fmt.Errorf("bootstrap api key: %w", err)
		}
		m.Logger.Info("bootstrap API key ready", "org_id", orgID)
	}
	return nil
}

// openWebhooks builds the outbound client and the webhook service from the
// WEBHOOK_* settings and the key ring.
func (m *Main) openWebhooks() error {
	c := m.Config.Webhooks
	// Deliveries are the client's busiest users, and at most
	// delivery.DefaultWorkers of them are in flight at once.
	oc := outbound.Config{AllowPrivateNetworks: c.AllowPrivateNetworks, RootCAs: c.roots, MaxConnsPerHost: delivery.DefaultWorkers, Logger: m.Logger}
	if c.AllowPrivateNetworks {
		m.Logger.Warn("WEBHOOK_ALLOW_PRIVATE_NETWORKS is on: deliveries may reach loopback and private addresses (development and tests only)")
	}
	m.sender = outbound.New(oc)
	var err error
	m.Webhooks, err = db.NewWebhookService(m.DB, m.Keys, m.sender, db.WebhookConfig{Schedule: c.schedule, DisableAfter: c.DisableAfter, Retention: c.Retention})
	return err
}

// loadKeys reads ENCRYPTION_KEY, or the key file in the state directory,
// generating it on first use.
func (m *Main) loadKeys() error {
	if m.Config.keys != nil {
		m.Keys = m.Config.keys
		return nil
	}
	path, err := localpg.KeyFile()
	if err != nil {
		return fmt.Errorf("ENCRYPTION_KEY unset and no state directory for a generated one: %w", err)
	}
	r, created, err := keyring.LoadOrCreate(path)
	if err != nil {
		return fmt.Errorf("ENCRYPTION_KEY unset: %w", err)
	}
	if created {
		m.Logger.Warn("ENCRYPTION_KEY unset: generated one; set ENCRYPTION_KEY in production (see docs/configuration.md)", "file", path)
	} else {
		m.Logger.Info("ENCRYPTION_KEY unset: using the generated key", "file", path)
	}
	m.Keys = r
	return nil
}

// Close releases the database and stops a private Postgres we started.
func (m *Main) Close() error {
	var err error
	if m.DB != nil {
		err = m.DB.Close()
	}
	if m.stopPG != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		err = errors.Join(err, m.stopPG(ctx))
	}
	return err
}

func (m *Main) withOrgs(ctx context.Context, fn func(*db.OrgService) error) error {
	defer m.Close()
	if err := m.Open(ctx); err != nil {
		return err
	}
	return fn(db.NewOrgService(m.DB))
}

// Handler builds the HTTP handler over an open database, without the
// live-event hub (Serve runs one).
func (m *Main) Handler() http.Handler {
	return wire.Handler(wire.Options{DB: m.DB, Config: m.Config.HTTP, Logger: m.Logger, Webhooks: m.Webhooks})
}

// newHTTPServer bounds how long a client may hold a connection: a slow or
// idle client cannot pin server memory and goroutines indefinitely. Every
// GraphQL request is bounded well within WriteTimeout (statement timeout,
// cost limit); the edge lifts the deadlines for the long-lived streams it
// accepts (a websocket upgrade, an SSE subscription).
func newHTTPServer(h http.Handler) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      90 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
	}
}

// drainTimeout bounds the shutdown: in-flight requests finish and live
// subscriptions send what they have read, then close.
const drainTimeout = 30 * time.Second

// Serve runs the server until ctx ends, then drains in-flight requests and
// live subscriptions.
func (m *Main) Serve(ctx context.Context) error {
	defer m.Close()
	if err := m.Open(ctx); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", m.Config.ListenAddr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", m.Config.ListenAddr, err)
	}
	if err := m.firstRunHint(ctx); err != nil {
		return err
	}
	deliveries, err := delivery.New(ctx, m.DB, m.Webhooks, m.sender, delivery.Config{PerOrganization: m.Config.Webhooks.OrgConcurrency, Logger: m.Logger})
	if err != nil {
		ln.Close()
		return err
	}
	svc := wire.NewServer(wire.Options{DB: m.DB, Config: m.Config.HTTP, Logger: m.Logger, Webhooks: m.Webhooks,
		Live: live.Options{MaxReplay: m.Config.LiveReplayMaxEvents}})
	hubCtx, stopHub := context.WithCancel(context.WithoutCancel(ctx))
	defer stopHub()
	go func() { _ = svc.Run(hubCtx) }()
	srv := newHTTPServer(svc)
	m.Logger.Info("listening", "addr", ln.Addr().String(),
		"playground", "http://"+displayAddr(ln.Addr())+"/", "graphql", "http://"+displayAddr(ln.Addr())+"/graphql")
	fmt.Fprintf(os.Stderr, "Agent Trust service: playground at http://%s/  (GraphQL at /graphql)\n", displayAddr(ln.Addr()))
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	go m.purgeIdempotencyKeys(ctx)
	delivered := make(chan error, 1)
	dctx, stopDeliveries := context.WithCancel(context.WithoutCancel(ctx))
	go func() { delivered <- deliveries.Run(dctx) }()
	defer func() {
		stopDeliveries()
		if err := <-delivered; err != nil {
			m.Logger.Warn("webhook delivery stopped", "err", err)
		}
	}()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	m.Logger.Info("shutting down: draining in-flight requests and live subscriptions")
	sctx, cancel := context.WithTimeout(context.Background(), drainTimeout)
	defer cancel()
	drained := make(chan error, 1)
	go func() { drained <- svc.Shutdown(sctx) }()
	err = srv.Shutdown(sctx)
	return errors.Join(err, <-drained)
}

// firstRunHint logs, when no organization exists yet, how to create one.
func (m *Main) firstRunHint(ctx context.Context) error {
	found, err := db.NewOrgService(m.DB).AnyOrg(ctx)
	if err != nil {
		return fmt.Errorf("count organizations: %w", err)
	}
	if !found {
		m.Logger.Warn("no organization yet: create one and its API key with `go run . org create --name NAME` " +
			"(or `agenttrust org create --name NAME`), or start with BOOTSTRAP_API_KEY=<key> to have one made")
	}
	return nil
}

// purgeIdempotencyKeys deletes idempotency keys past their retention hourly.
func (m *Main) purgeIdempotencyKeys(ctx context.Context) {
	t := time.NewTicker(time.Hour)
	defer t.Stop()
	for {
		if n, err := m.DB.PurgeIdempotencyKeys(ctx, idempotencyRetention); err != nil && ctx.Err() == nil {
			m.Logger.Warn("purge idempotency keys", "err", err)
		} else if n > 0 {
			m.Logger.Info("purged idempotency keys", "count", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// idempotencyRetention is how long idempotency keys are kept (honoured for 24 h).
const idempotencyRetention = 7 * 24 * time.Hour

func displayAddr(a net.Addr) string {
	if t, ok := a.(*net.TCPAddr); ok && (t.IP == nil || t.IP.IsUnspecified()) {
		return fmt.Sprintf("localhost:%d", t.Port)
	}
	return a.String()
}
