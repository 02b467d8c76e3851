// Command agenttrust runs the Agent Trust and Transaction Service: a GraphQL
// API over Postgres for registering agents, scoring trust and moving money.
//
// Usage:
//
//	agenttrust [serve]                 run the server (default)
//	agenttrust migrate                 apply database migrations and exit
//	agenttrust org create --name NAME  create an organization and its first API key
//	agenttrust apikey create --org ID  add an API key to an organization
//	agenttrust apikey revoke --key ID  revoke an API key
//	agenttrust trust rebuild [--fix]   recount trust counters from the raw records, report drift
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/agenttrust/service/db"
	"github.com/agenttrust/service/internal/localpg"
	"github.com/agenttrust/service/keyring"
	"github.com/agenttrust/service/wire"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "agenttrust:", err)
		os.Exit(1)
	}
}

// run dispatches a command line; it is main without the process around it.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	cmd := "serve"
	if len(args) > 0 && args[0] != "" && args[0][0] != '-' {
		cmd, args = args[0], args[1:]
	}
	if cmd == "org" || cmd == "apikey" || cmd == "trust" {
		if len(args) == 0 {
			return fmt.Errorf("usage: %s create|revoke ...", cmd)
		}
		cmd, args = cmd+" "+args[0], args[1:]
	}
	fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cfg Config
	cfg.RegisterFlags(fs, getenv)
	name := fs.String("name", "", "organization name (org create)")
	org := fs.String("org", "", "organization id (apikey create)")
	key := fs.String("key", "", "API key id (apikey revoke)")
	fix := fs.Bool("fix", false, "store the recomputed counters (trust rebuild)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	if err := cfg.Validate(); err != nil {
		return err
	}
	m := &Main{Config: cfg, Logger: cfg.Logger(stderr)}
	switch cmd {
	case "serve":
		return m.Serve(ctx)
	case "migrate":
		defer m.Close()
		err := m.Open(ctx)
		return printJSON(stdout, err, map[string]any{"applied": m.applied})
	case "org create":
		if *name == "" {
			return errors.New("org create: --name is required")
		}
		return m.withOrgs(ctx, func(s *db.OrgService) error {
			orgID, keyID, apiKey, err := s.CreateOrg(ctx, *name)
			return printJSON(stdout, err, map[string]string{"org_id": orgID, "key_id": keyID, "api_key": apiKey})
		})
	case "apikey create":
		if *org == "" {
			return errors.New("apikey create: --org is required")
		}
		return m.withOrgs(ctx, func(s *db.OrgService) error {
			keyID, apiKey, err := s.CreateKey(ctx, *org)
			return printJSON(stdout, err, map[string]string{"key_id": keyID, "api_key": apiKey})
		})
	case "apikey revoke":
		if *key == "" {
			return errors.New("apikey revoke: --key is required")
		}
		return m.withOrgs(ctx, func(s *db.OrgService) error {
			err := s.RevokeKey(ctx, *key)
			return printJSON(stdout, err, map[string]any{"key_id": *key, "revoked": true})
		})
	case "trust rebuild":
		defer m.Close()
		if err := m.Open(ctx); err != nil {
			return err
		}
		drifts, err := m.DB.RebuildTrust(ctx, *fix)
		if err := printJSON(stdout, err, map[string]any{"drifted": len(drifts), "fixed": *fix && len(drifts) > 0, "agents": drifts}); err != nil {
			return err
		}
		if len(drifts) > 0 && !*fix {
			return fmt.Errorf("trust counters drifted for %d agents: run trust rebuild --fix", len(drifts))
		}
		return nil
	}
	return fmt.Errorf("unknown command %q: want serve, migrate, org create, apikey create, apikey revoke or trust rebuild", cmd)
}

func printJSON(w io.Writer, err error, v any) error {
	if err != nil {
		return err
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// Main is the running service; end-to-end tests drive it like the binary does.
type Main struct {
	Config Config
	Logger *slog.Logger
	DB     *db.DB
	// Keys is the server's key ring (ENCRYPTION_KEY), loaded by Open.
	Keys   *keyring.Ring
	stopPG func(context.Context) error
	// applied lists the migrations the last Open applied.
	applied []string
}

// Open connects to the database (finding or starting a local one when
// DATABASE_URL is unset) and applies pending migrations.
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
	d, err := db.Open(ctx, url)
	if err != nil {
		return err
	}
	m.DB = d
	if m.applied, err = d.Migrate(ctx); err != nil {
		return err
	}
	m.Logger.Info("migrations applied", "new", m.applied)
	if m.Config.BootstrapAPIKey != "" {
		orgID, err := db.NewOrgService(d).EnsureKey(ctx, m.Config.BootstrapAPIKey, "bootstrap")
		if err != nil {
			return fmt.Errorf("bootstrap api key: %w", err)
		}
		m.Logger.Info("bootstrap API key ready", "org_id", orgID)
	}
	return nil
}

// loadKeys reads ENCRYPTION_KEY, or the key file in the state directory,
// generating it on first use.
func (m *Main) loadKeys() error {
	if m.Config.EncryptionKey != "" {
		r, err := keyring.Parse(m.Config.EncryptionKey)
		m.Keys = r
		return err
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
		m.Logger.Warn("ENCRYPTION_KEY unset: generated one; set ENCRYPTION_KEY in production (see README, Keys)", "file", path)
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
	return wire.Handler(m.Config.HTTP, m.DB, m.Logger, nil)
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
	svc := wire.NewServer(m.Config.HTTP, m.DB, m.Logger, nil)
	hubCtx, stopHub := context.WithCancel(context.WithoutCancel(ctx))
	defer stopHub()
	go func() { _ = svc.Run(hubCtx) }()
	srv := &http.Server{Handler: svc, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
	gogc := wire.TuneGC()
	m.Logger.Info("listening", "addr", ln.Addr().String(), "gogc", gogc,
		"playground", "http://"+displayAddr(ln.Addr())+"/", "graphql", "http://"+displayAddr(ln.Addr())+"/graphql")
	fmt.Fprintf(os.Stderr, "Agent Trust service: playground at http://%s/  (GraphQL at /graphql)\n", displayAddr(ln.Addr()))
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	go m.purgeIdempotencyKeys(ctx)
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
