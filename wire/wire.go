// Package wire wires the domain services on Postgres to the HTTP edge; the
// binary and the tests build the same handler through it.
package wire

import (
	"context"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/agenttrust/service/db"
	"github.com/agenttrust/service/httpapi"
	"github.com/agenttrust/service/keyring"
	"github.com/agenttrust/service/live"
	"github.com/agenttrust/service/resolvers"
	"github.com/agenttrust/service/webhook"
	"github.com/agenttrust/service/webhook/outbound"
)

// Options are what the service is wired from. DB is required; every other
// zero field takes its default.
type Options struct {
	DB *db.DB
	// Config is the HTTP edge's configuration.
	Config httpapi.Config
	// Logger receives the service's logs (default slog.Default()).
	Logger *slog.Logger
	// Registry receives the metrics (default: a private one).
	Registry *prometheus.Registry
	// Webhooks is the webhook service. The default seals secrets under a
	// throw-away key and reaches public endpoints only, which suits tests;
	// the binary passes its own, built from ENCRYPTION_KEY and WEBHOOK_*.
	Webhooks webhook.Service
	// Live tunes NewServer's live-event hub (its buffers and polling); the
	// hub logs to Logger and reports to Registry.
	Live live.Options
	// ExpirySweep is how often Server.Run expires the transactions whose
	// approval time has passed (default DefaultExpirySweep).
	ExpirySweep time.Duration
}

// DefaultExpirySweep is Options.ExpirySweep's default: a transaction
// becomes expired within that of its expiresAt, well within a minute.
const DefaultExpirySweep = 15 * time.Second

func (o Options) withDefaults() Options {
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Registry == nil {
		o.Registry = prometheus.NewRegistry()
	}
	if o.ExpirySweep <= 0 {
		o.ExpirySweep = DefaultExpirySweep
	}
	return o
}

// Services returns every domain service backed by o.DB.
func Services(o Options) resolvers.Services {
	wh := o.Webhooks
	if wh == nil {
		wh = throwAwayWebhooks(o.DB)
	}
	return resolvers.Services{
		Agents:       db.NewAgentService(o.DB),
		Transactions: db.NewTransactionService(o.DB),
		Trust:        db.NewTrustService(o.DB),
		Webhooks:     wh,
		Mandates:     db.NewMandateService(o.DB),
		Dashboard:    db.NewDashboardService(o.DB),
		Events:       o.DB,
		Keys:         db.NewOrgService(o.DB),
		Simulations:  db.NewSimulationService(o.DB),
	}
}

// throwAwayWebhooks is the default webhook service: secrets sealed under a
// key generated for this process, deliveries to public endpoints only.
func throwAwayWebhooks(d *db.DB) *db.WebhookService {
	keys, err := keyring.Parse(keyring.Generate())
	if err != nil {
		panic(err) // a generated key always parses
	}
	wh, err := db.NewWebhookService(d, keys, outbound.New(outbound.Config{}), db.WebhookConfig{})
	if err != nil {
		panic(err) // River's insert-only client has no settings that can fail
	}
	return wh
}

// Handler returns the service's whole HTTP handler without the live-event
// hub: subscriptions need NewServer.
func Handler(o Options) http.Handler {
	o = o.withDefaults()
	return httpapi.NewEdge(o.Config, deps(o, db.NewOrgService(o.DB), Services(o)))
}

// deps are the edge's dependencies: o's, organizations and their keys in
// orgs, and the domain services svc.
func deps(o Options, orgs *db.OrgService, svc resolvers.Services) httpapi.Deps {
	return httpapi.Deps{
		Auth:        orgs,
		Services:    svc,
		Ready:       o.DB.Ready,
		Unavailable: db.Unavailable,
		DBStats:     o.DB.Stats,
		Logger:      o.Logger,
		Registry:    o.Registry,
		Keys:        orgs, // live connections' keys are re-checked
	}
}

// Server is the service's HTTP edge together with the live-event hub behind
// its subscriptions; run the hub with Run.
type Server struct {
	*httpapi.Edge
	Hub    *live.Hub
	expiry expirySweep
}

// NewServer wires the whole service over o.DB, subscriptions included.
func NewServer(o Options) *Server {
	o = o.withDefaults()
	lm := live.NewMetrics(o.Registry)
	lo := o.Live
	lo.Logger, lo.Metrics = o.Logger, lm
	hub := live.NewHub(o.DB, lo)
	svc := Services(o)
	svc.Live = hub
	orgs := db.NewOrgService(o.DB)
	d := deps(o, orgs, svc)
	d.LiveMetrics = lm
	return &Server{Edge: httpapi.NewEdge(o.Config, d), Hub: hub,
		expiry: expirySweep{svc: db.NewTransactionService(o.DB), every: o.ExpirySweep, log: o.Logger}}
}

// Run reads the event log for the subscriptions and expires transactions
// past their approval time until ctx ends.
func (s *Server) Run(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { s.expiry.run(ctx) })
	defer wg.Wait()
	defer cancel() // the sweep ends with the hub
	return s.Hub.Run(ctx)
}
