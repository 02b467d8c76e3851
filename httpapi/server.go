// Package httpapi is the HTTP edge: routing, authentication, rate limiting,
// metrics, logging and the GraphQL handler over the resolvers.
package httpapi

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"net/netip"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler/transport"

	"github.com/gorilla/websocket"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/agenttrust/service/auth"
	"github.com/agenttrust/service/failure"
	"github.com/agenttrust/service/httpapi/console"
	"github.com/agenttrust/service/httpapi/playground"
	"github.com/agenttrust/service/live"
	"github.com/agenttrust/service/resolvers"
)

// Config tunes the edge; zero fields take the documented defaults.
type Config struct {
	RateLimitRPS     float64 // per organization (its keys share it), charged per root field; default 50
	RateLimitBurst   int     // per organization; default 100
	MaxBodyBytes     int64   // request body limit; default 64 KiB
	MaxQueryBytes    int     // GraphQL document size limit; default 32 KiB
	TokenLimit       int     // GraphQL document token limit; default 5000
	CacheMaxBytes    int     // largest document kept in the parsed-document caches; default 4 KiB
	MaxSameName      int     // fields with one response name (alias or name) per document; default 50
	MaxFragments     int     // fragment spreads plus inline fragments per document; default 200
	ComplexityLimit  int     // GraphQL operation cost limit; default 50000
	DepthLimit       int     // GraphQL selection depth limit; default 12
	MaxRootFields    int     // root fields per operation, aliases included; default 50
	MaxSameRootField int     // times one root field may appear in an operation; default 10
	MaxMutations     int     // mutation root fields per operation; default 10
	ExportMaxBytes   int     // exportTransactions' content bound; default transaction.DefaultExportMaxBytes
	// SimulationMaxTransactions bounds the transactions simulatePolicy
	// replays; default agent.DefaultSimulationMax.
	SimulationMaxTransactions int
	// AuthFailuresPerMinute and AuthFailureBurst bound failed authentication
	// attempts per client address (an IPv6 address's /64); defaults 30 and 30.
	AuthFailuresPerMinute float64
	AuthFailureBurst      int
	// WSAllowedOrigins are the browser origins that may open websockets
	// besides the service's own ("*": any). Requests without Origin pass.
	WSAllowedOrigins []string
	WSPingInterval   time.Duration // websocket ping frames and legacy keep-alives; default 20s
	// TrustedProxies are the proxies whose X-Forwarded-For names the client
	// (the rightmost hop not among them); none by default: the peer is the client.
	TrustedProxies []netip.Prefix
	// KeyRecheck is how often live connections' keys are re-checked in case
	// a revocation's notification was lost; default 500ms.
	KeyRecheck time.Duration
	// Live connection caps, per replica: websockets not yet past
	// connection_init per client address (an IPv6 address's /64), default
	// 64; websocket and SSE connections per organization, default 1,000;
	// subscriptions per organization, default 10,000.
	MaxUnauthenticatedPerAddress int
	MaxConnectionsPerOrg         int
	MaxSubscriptionsPerOrg       int
	// LiveWriteTimeout bounds one write to a websocket or SSE stream; a peer
	// that does not read within it is disconnected. Default 10s.
	LiveWriteTimeout time.Duration
}

func (c *Config) defaults() {
	if c.RateLimitRPS <= 0 {
		c.RateLimitRPS = 50
	}
	if c.RateLimitBurst <= 0 {
		c.RateLimitBurst = 100
	}
	if c.MaxBodyBytes <= 0 {
		c.MaxBodyBytes = 64 << 10
	}
	defaultInt(&c.MaxQueryBytes, 32<<10)
	defaultInt(&c.TokenLimit, 5000)
	defaultInt(&c.CacheMaxBytes, 4<<10)
	defaultInt(&c.MaxSameName, 50)
	defaultInt(&c.MaxFragments, 200)
	defaultInt(&c.ComplexityLimit, 50000)
	defaultInt(&c.DepthLimit, 12)
	defaultInt(&c.MaxRootFields, 50)
	defaultInt(&c.MaxSameRootField, 10)
	defaultInt(&c.MaxMutations, 10)
	defaultInt(&c.AuthFailureBurst, 30)
	if c.AuthFailuresPerMinute <= 0 {
		c.AuthFailuresPerMinute = 30
	}
	if c.WSPingInterval <= 0 {
		c.WSPingInterval = 20 * time.Second
	}
	if c.KeyRecheck <= 0 {
		c.KeyRecheck = 500 * time.Millisecond
	}
	defaultInt(&c.MaxUnauthenticatedPerAddress, 64)
	defaultInt(&c.MaxConnectionsPerOrg, 1000)
	defaultInt(&c.MaxSubscriptionsPerOrg, 10000)
	if c.LiveWriteTimeout <= 0 {
		c.LiveWriteTimeout = 10 * time.Second
	}
}

// Deps are what the edge calls into.
type Deps struct {
	Auth     auth.Authenticator
	Services resolvers.Services
	// Ready reports whether the database answers and migrations are applied.
	Ready func(context.Context) error
	// Unavailable reports whether an error means the database is unreachable.
	Unavailable func(error) bool
	// DBStats feeds the pool gauges; may be nil.
	DBStats func() sql.DBStats
	Logger  *slog.Logger
	// Registry receives the metrics; nil makes a private one.
	Registry *prometheus.Registry
	// Keys re-checks the keys of live connections, for each websocket
	// operation and on revocation; nil never re-checks.
	Keys auth.KeyChecker
	// LiveMetrics are the live-event metrics (registered in Registry by the
	// caller, who shares them with the hub); nil makes them here.
	LiveMetrics *live.Metrics
}

// Edge is the service's whole HTTP handler, with the live connections it
// serves (Shutdown drains them).
type Edge struct {
	cfg     Config
	deps    Deps
	limiter *rateLimiter
	// failures limits failed authentication attempts per client address.
	failures *rateLimiter
	gql      http.Handler // the GraphQL server, over HTTP and SSE
	gqlWS    http.Handler // the same server, for websockets (serveWebsocket)
	conns    *liveConns
	caps     *liveCaps
	present  graphql.ErrorPresenterFunc // the GraphQL answers' error presenter
	handler  http.Handler
}

// NewEdge returns the service's whole HTTP handler as an Edge.
func NewEdge(cfg Config, d Deps) *Edge {
	cfg.defaults()
	d = d.defaults()
	m := newMetrics(d.Registry, d.DBStats)
	e := &Edge{cfg: cfg, deps: d, limiter: newRateLimiter(cfg.RateLimitRPS, cfg.RateLimitBurst),
		failures: newRateLimiter(cfg.AuthFailuresPerMinute/60, cfg.AuthFailureBurst)}
	e.caps = newLiveCaps(cfg, d.Logger, d.Registry)
	e.present = resolvers.ErrorPresenter(d.Logger)
	e.conns = &liveConns{keys: d.Keys, every: cfg.KeyRecheck, log: d.Logger, metrics: d.LiveMetrics,
		conns: map[*liveConn]struct{}{}}
	srv := newGraphQL(e, m)
	e.gql, e.gqlWS = srv, srv
	mux := http.NewServeMux()
	e.apiRoutes(mux)
	pageRoutes(mux)
	d.healthRoutes(mux)
	mux.Handle("GET /metrics", promhttp.HandlerFor(d.Registry, promhttp.HandlerOpts{}))
	e.handler = requestLog(d.Logger, m, cfg.TrustedProxies, limitBody(cfg.MaxBodyBytes, mux))
	return e
}

// defaults fills in what d leaves out: the default logger, a private
// registry, the live metrics; its logger is built on LogHandler.
func (d Deps) defaults() Deps {
	if d.Logger == nil {
		d.Logger = slog.Default()
	}
	d.Logger = slog.New(LogHandler(d.Logger.Handler()))
	if d.Registry == nil {
		d.Registry = prometheus.NewRegistry()
	}
	if d.LiveMetrics == nil {
		d.LiveMetrics = live.NewMetrics(d.Registry)
	}
	return d
}

// apiRoutes serves the API: GraphQL over HTTP, SSE and websockets, the
// webhook routes and the export stream.
func (e *Edge) apiRoutes(mux *http.ServeMux) {
	cfg, d := e.cfg, e.deps
	authed := authenticate(d, e.limiter, e.failures, readBody(cfg.MaxBodyBytes, e.serveSSE(e.gql)))
	mux.HandleFunc("/graphql", func(w http.ResponseWriter, r *http.Request) {
		if websocket.IsWebSocketUpgrade(r) {
			streamDeadlines(w, true)
			e.serveWebsocket(w, r)
			return
		}
		if (transport.SSE{}).Supports(r) {
			streamDeadlines(w, false)
		}
		authed.ServeHTTP(w, r)
	})
	rest := authenticateREST(d, e.limiter, e.failures, webhookRoutes(d))
	mux.Handle("/webhooks", rest)
	mux.Handle("/webhooks/", rest)
	// An export lifts the server's write timeout: it streams for as long as
	// its rows take, each batch bounded by exportWriteTimeout instead.
	exports := authenticateREST(d, e.limiter, e.failures, exportRoutes(d, e.streamMeter))
	mux.HandleFunc("/transactions/export", func(w http.ResponseWriter, r *http.Request) {
		streamDeadlines(w, false)
		exports.ServeHTTP(w, r)
	})
}

// pageRoutes serves the playground and the console.
func pageRoutes(mux *http.ServeMux) {
	pg := playground.Handler("/graphql")
	mux.Handle("GET /{$}", pg)
	mux.Handle("GET "+playground.AssetPrefix, pg)
	cons := console.Handler()
	mux.Handle("GET "+console.Path, cons)
	mux.Handle("GET "+console.Path+"/", cons)
}

// healthRoutes serves /healthz (the process answers) and /readyz (the
// database answers and migrations are applied).
func (d Deps) healthRoutes(mux *http.ServeMux) {
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		_, _ = w.Write([]byte("ok\n"))
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
		defer cancel()
		w.Header().Set("Content-Type", "text/plain")
		if err := d.Ready(ctx); err != nil {
			d.Logger.WarnContext(ctx, "not ready", "err", err)
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = w.Write([]byte("not ready\n"))
			return
		}
		_, _ = w.Write([]byte("ready\n"))
	})
}

func (e *Edge) ServeHTTP(w http.ResponseWriter, r *http.Request) { e.handler.ServeHTTP(w, r) }

// Shutdown drains live connections: no new ones are accepted, every
// subscription sends the events already read and completes, then websockets
// close normally (1000). It returns when all have ended or ctx ends.
func (e *Edge) Shutdown(ctx context.Context) error {
	e.conns.mu.Lock()
	e.conns.closing = true
	e.conns.mu.Unlock()
	if h := e.deps.Services.Live; h != nil {
		h.Shutdown()
		if err := h.Wait(ctx); err != nil {
			return errors.Join(err, e.conns.shutdown(ctx))
		}
	}
	return e.conns.shutdown(ctx)
}

// streamDeadlines lifts the HTTP server's read and write timeouts for a
// long-lived stream: a websocket (both) or an SSE subscription (writing).
// Idle and ping handling of the streams bound them instead.
func streamDeadlines(w http.ResponseWriter, read bool) {
	rc := http.NewResponseController(w)
	_ = rc.SetWriteDeadline(time.Time{})
	if read {
		_ = rc.SetReadDeadline(time.Time{})
	}
}

func defaultInt(v *int, def int) {
	if *v <= 0 {
		*v = def
	}
}

func limitBody(n int64, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body != nil {
			r.Body = http.MaxBytesReader(w, r.Body, n)
		}
		next.ServeHTTP(w, r)
	})
}

// readBody reads a GraphQL POST body before gqlgen does, so that a body over
// the limit is answered 413 and one that is not JSON 400, both as
// VALIDATION_FAILED: gqlgen would report either as an internal error. It runs
// after authentication, so anonymous callers cannot make the service read.
func readBody(n int64, next http.Handler) http.Handler {
	tooLarge := func() *failure.Error { return failure.Invalid("body", "must be at most %d bytes", n) }
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Body == nil || r.Body == http.NoBody {
			next.ServeHTTP(w, r)
			return
		}
		if r.ContentLength > n {
			writeGraphQLErrorStatus(w, http.StatusRequestEntityTooLarge, tooLarge())
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, n))
		var mbe *http.MaxBytesError
		switch {
		case errors.As(err, &mbe):
			writeGraphQLErrorStatus(w, http.StatusRequestEntityTooLarge, tooLarge())
			return
		case err != nil:
			writeGraphQLErrorStatus(w, http.StatusBadRequest, failure.Invalid("body", "could not be read"))
			return
		case isJSON(r):
			if err := checkEnvelope(body); err != nil {
				writeGraphQLErrorStatus(w, http.StatusBadRequest, err)
				return
			}
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		next.ServeHTTP(w, r)
	})
}

// envelope is a GraphQL POST body as gqlgen decodes it (encoding/json, so
// member names match case-insensitively), each member kept raw.
type envelope struct {
	Query         json.RawMessage `json:"query"`
	OperationName json.RawMessage `json:"operationName"`
	Variables     json.RawMessage `json:"variables"`
	Extensions    json.RawMessage `json:"extensions"`
}

// checkEnvelope refuses, in one pass over the body, a POST body that is not
// JSON, or valid JSON but not a GraphQL request: not an object, or
// query/operationName not strings, or variables/extensions not objects (null
// stands for absent). gqlgen would answer those as INTERNAL; they are the
// caller's mistake. It returns a ValidationFailed error naming the member, or nil.
func checkEnvelope(body []byte) *failure.Error {
	if plainEnvelope(body) {
		return nil
	}
	return decodeEnvelope(body)
}

// decodeEnvelope is checkEnvelope by decoding the body.
func decodeEnvelope(body []byte) *failure.Error {
	var env envelope
	err := json.Unmarshal(body, &env)
	var syntax *json.SyntaxError
	if errors.As(err, &syntax) {
		return failure.Invalid("body", "is not valid JSON")
	}
	if err != nil || bytes.TrimLeft(body, " \t\r\n")[0] != '{' {
		return failure.Invalid("body", "must be a JSON object such as {\"query\": \"...\", \"variables\": {...}}")
	}
	for _, m := range [...]struct {
		name string
		v    json.RawMessage
		want byte
	}{{"query", env.Query, '"'}, {"operationName", env.OperationName, '"'}, {"variables", env.Variables, '{'}, {"extensions", env.Extensions, '{'}} {
		if len(m.v) == 0 || string(m.v) == "null" || m.v[0] == m.want {
			continue
		}
		kind := "a string"
		if m.want == '{' {
			kind = "an object"
		}
		return failure.Invalid("body."+m.name, "must be %s", kind)
	}
	return nil
}

func isJSON(r *http.Request) bool {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	return err == nil && mt == "application/json"
}
