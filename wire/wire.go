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
	"github.com/agenttrust/service/live"
	"github.com/agenttrust/service/resolvers"
)

// Services returns every domain service backed by d.
func Services(d *db.DB) resolvers.Services {
	return resolvers.Services{
		Agents:       db.NewAgentService(d),
		Transactions: db.NewTransactionService(d),
		Trust:        db.NewTrustService(d),
	}
}

// Handler returns the service's whole HTTP handler over d. reg may be nil.
func Handler(cfg httpapi.Config, d *db.DB, log *slog.Logger, reg *prometheus.Registry) http.Handler {
	return httpapi.New(cfg, httpapi.Deps{
		Auth:        db.NewOrgService(d),
		Services:    Services(d),
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
	if reg == nil {
		reg = prometheus.NewRegistry()
	}
	lm := live.NewMetrics(reg)
	opts := live.Options{Logger: log, Metrics: lm}
	for _, f := range tune {
		f(&opts)
	}
	hub := live.NewHub(d, opts)
	svc := Services(d)
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
