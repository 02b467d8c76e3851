// Package wire wires the domain services on Postgres to the HTTP edge; the
// binary and the tests build the same handler through it.
package wire

import (
	"log/slog"
	"net/http"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/agenttrust/service/db"
	"github.com/agenttrust/service/httpapi"
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
