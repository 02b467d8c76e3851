package httpapi_test

import (
	"io"
	"log/slog"
	"net/http"

	"github.com/agenttrust/service/db"
	"github.com/agenttrust/service/httpapi"
	"github.com/agenttrust/service/internal/testkit"
	"github.com/agenttrust/service/wire"
)

// newHandler wires the edge as wire.Handler does, but authenticates through a
// (which may use another pool) while the services use d, so outage tests can
// break one and not the other. It logs nowhere.
func newHandler(cfg httpapi.Config, a *db.OrgService, d *db.DB) http.Handler {
	return newHandlerLog(cfg, a, d, slog.New(slog.NewTextHandler(io.Discard, nil)))
}

// newHandlerLog is newHandler logging to log.
func newHandlerLog(cfg httpapi.Config, a *db.OrgService, d *db.DB, log *slog.Logger) http.Handler {
	return httpapi.NewEdge(cfg, httpapi.Deps{
		Auth:        a,
		Services:    wire.Services(wire.Options{DB: d}),
		Ready:       d.Ready,
		Unavailable: db.Unavailable,
		DBStats:     d.Stats,
		Logger:      log,
	})
}

const registerQuery = `mutation($input: RegisterAgentInput!) { registerAgent(input: $input) { id } }`

// register stores an agent for the kit's organization and returns its id.
func register(b *testkit.Kit, name string) string {
	b.T.Helper()
	return b.Register(map[string]any{"name": name}).ID
}

// count is the organization's agents totalCount as key sees it.
func count(b *testkit.Kit, key string) int {
	b.T.Helper()
	var c struct{ TotalCount int }
	b.Do(key, `{ agents { totalCount } }`, nil).Into(b.T, "agents", &c)
	return c.TotalCount
}
