// Package wire wires the domain services on Postgres to the HTTP edge; the
// binary and the tests build the same handler through it.
package wire

import (
	"context"
	"log/slog"
	"net/http"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/agenttrust/service/db"
	"github.com/agenttrust/service/httpapi"
	"github.com/agenttrust/service/keyring"
	"github.com/agenttrust/service/live"
	"github.com/agenttrust/service/resolvers"
	"github.com/agenttrust/service/webhook"
	"github.com/agenttrust/service/webhook/outbound"
)

// Services returns every domain service backed by d. Its webhook service
// seals secrets under a throw-away key and reaches public endpoints only;
// the server passes its own to ServicesWith.
func Services(d *db.DB) resolvers.Services {
	keys, err := keyring.Parse(keyring.Generate())
	if err != nil {
		panic(err) // a generated key always parses
	}
	wh, err := db.NewWebhookService(d, keys, outbound.New(outbound.Config{}), db.WebhookConfig{})
	if err != nil {
		panic(err) // River's insert-only client has no settings that can fail
	}
	return ServicesWith(d, wh)
}

// ServicesWith returns every domain service backed by d, with webhooks.
func ServicesWith(d *db.DB, webhooks webhook.Service) resolvers.Services {
	return resolvers.Services{
		Agents:       db.NewAgentService(d),
		Transactions: db.NewTransactionService(d),
		Trust:        db.NewTrustService(d),
		Webhooks:     webhooks,
	}
}

// Handler returns the service's whole HTTP handler over d. reg may be nil.
func Handler(cfg httpapi.Config, d *db.DB, log *slog.Logger, reg *prometheus.Registry) http.Handler {
	return HandlerWith(cfg, d, Services(d), log, reg)
}

// HandlerWith is Handler over the given services.
func HandlerWith(cfg httpapi.Config, d *db.DB, svc resolvers.Services, log *slog.Logger, reg *prometheus.Registry) http.Handler {
	return httpapi.New(cfg, httpapi.Deps{
		Auth:        db.NewOrgService(d),
		Services:    svc,
		Ready:       d.Ready,
		Unavailable: db.Unavailable,
		DBStats:     d.Stats,
		Logger:      log,
		Registry:    reg,
	})
}

// Server is the service's HTTP edge together with the live-event hub behind
// its subscriptions; run the hub with Run.
type Server struct {
	*httpapi.Edge
	Hub *live.Hub
}

// NewServer wires the whole service over d, subscriptions included. reg may
// be nil; tune adjusts the hub's options (tests shrink its buffers).
func NewServer(cfg httpapi.Config, d *db.DB, log *slog.Logger, reg *prometheus.Registry, tune ...func(*live.Options)) *Server {
	return NewServerWith(cfg, d, Services(d), log, reg, tune...)
}

// NewServerWith is NewServer over the given services (the binary passes its
// webhook service, built from ENCRYPTION_KEY and the WEBHOOK_* settings).
func NewServerWith(cfg httpapi.Config, d *db.DB, svc resolvers.Services, log *slog.Logger, reg *prometheus.Registry, tune ...func(*live.Options)) *Server {
	if reg == nil {
		reg = prometheus.NewRegistry()
	}
	lm := live.NewMetrics(reg)
	opts := live.Options{Logger: log, Metrics: lm}
	for _, f := range tune {
		f(&opts)
	}
	hub := live.NewHub(d, opts)
	svc.Live = hub
	orgs := db.NewOrgService(d)
	edge := httpapi.NewEdge(cfg, httpapi.Deps{
		Auth:        orgs,
		Keys:        orgs,
		Services:    svc,
		Ready:       d.Ready,
		Unavailable: db.Unavailable,
		DBStats:     d.Stats,
		Logger:      log,
		Registry:    reg,
		LiveMetrics: lm,
	})
	return &Server{Edge: edge, Hub: hub}
}

// Run reads the event log for the subscriptions until ctx ends.
func (s *Server) Run(ctx context.Context) error { return s.Hub.Run(ctx) }
