package httpapi

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler"
	"github.com/99designs/gqlgen/graphql/handler/extension"
	"github.com/99designs/gqlgen/graphql/handler/lru"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/agenttrust/service/failure"
	"github.com/agenttrust/service/graph"
	"github.com/agenttrust/service/resolvers"
)

// newGraphQL builds the gqlgen handler: transports, document and operation
// limits (cheap ones first), the rate-limit charge by root fields and cost, persisted
// queries, the error presenter and per-operation metrics.
func newGraphQL(e *Edge, m *metrics) http.Handler {
	cfg, d := e.cfg, e.deps
	schema := graph.NewExecutableSchema(graph.Config{Resolvers: resolvers.New(d.Services, resolvers.Options{ExportMaxBytes: cfg.ExportMaxBytes, Meter: e.meter,
		SimulationMax: cfg.SimulationMaxTransactions}), Complexity: complexity()})
	srv := handler.New(schema)
	for _, t := range []graphql.Transport{
		transport.Websocket{
			Implementation:        gorillaWS{ping: cfg.WSPingInterval, write: cfg.LiveWriteTimeout},
			InitFunc:              e.initFunc,
			InitTimeout:           10 * time.Second,
			KeepAlivePingInterval: cfg.WSPingInterval,
			PayloadReadLimit:      &cfg.MaxBodyBytes,
		},
		transport.SSE{KeepAlivePingInterval: 15 * time.Second},
		transport.Options{},
		transport.GET{},
		postOnce{},
	} {
		srv.AddTransport(countRefusals{Transport: t, m: m})
	}
	cache := &documentCache{maxBytes: cfg.CacheMaxBytes, inner: lru.New[*ast.QueryDocument](1000)}
	srv.SetQueryCache(cache)
	srv.SetParserTokenLimit(cfg.TokenLimit)
	srv.Use(extension.Introspection{})
	srv.Use(extension.AutomaticPersistedQuery{Cache: stringCache{maxBytes: cfg.CacheMaxBytes, inner: lru.New[string](1000)}})
	// Extensions run in the order added: size, tokens and depth before
	// validation; root fields and cost after it; then whether a
	// websocket's key is still live, and the key's role; the charge last.
	srv.Use(documentGate{maxBytes: cfg.MaxQueryBytes, maxTokens: cfg.TokenLimit, maxDepth: cfg.DepthLimit,
		maxSameName: cfg.MaxSameName, maxFragments: cfg.MaxFragments, cache: cache})
	srv.Use(operationLimits{maxCost: int64(cfg.ComplexityLimit), maxRootFields: cfg.MaxRootFields,
		maxSameRoot: cfg.MaxSameRootField, maxMutations: cfg.MaxMutations, schema: schema, lists: introspectionLists(schema.Schema())})
	srv.Use(keyGate{keys: d.Keys, deps: d})
	srv.Use(roleGate{})
	srv.Use(costCharge{limiter: e.limiter})
	srv.Use(singleSubscriptionRoot{})
	srv.SetErrorPresenter(e.present)
	srv.SetRecoverFunc(resolvers.Recover(d.Logger))
	srv.AroundOperations(e.countWebsocketOperation)
	srv.AroundOperations(e.capSubscriptions)
	srv.AroundOperations(m.aroundOperation)
	e.gqlWS = srv

	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		outage := &resolvers.Outage{}
		note := &retryNote{}
		sw := &statusWriter{ResponseWriter: w}
		sw.rewrite = func(code int) int {
			switch {
			case note.secs > 0:
				w.Header().Set("Retry-After", strconv.Itoa(note.secs))
				return http.StatusTooManyRequests
			case code == http.StatusOK && outage.Seen:
				return http.StatusServiceUnavailable
			case code == http.StatusUnprocessableEntity && w.Header().Get("Content-Type") == "application/json":
				// GraphQL over HTTP: with application/json, document and
				// variable errors are 200 (gqlgen answers 422).
				return http.StatusOK
			case code == http.StatusNotAcceptable && r.Method == http.MethodGet:
				// GraphQL over HTTP: a mutation over GET is 405 with Allow: POST.
				// gqlgen's body has no extensions.code, so the edge writes its own.
				w.Header().Set("Allow", "GET, POST")
				sw.discard = true
				return http.StatusMethodNotAllowed
			}
			return code
		}
		srv.ServeHTTP(sw, r.WithContext(withRetryNote(resolvers.WithOutage(r.Context(), outage), note)))
		if sw.discard {
			encodeGraphQLError(w, failure.Invalid("query", "GET runs queries only: send mutations with POST"))
		}
	})
}

// aroundOperation records each query's and mutation's outcome and latency
// when its response is ready.
//
// A subscription is not wrapped: its goroutine waits for the next event
// inside this chain for the subscription's whole life, and a shallower wait
// lets the runtime halve that goroutine's stack (8 to 4 KiB per idle
// subscription). Its events are counted by the att_live_* metrics instead.
func (m *metrics) aroundOperation(ctx context.Context, next graphql.OperationHandler) graphql.ResponseHandler {
	rh := next(ctx)
	oc := graphql.GetOperationContext(ctx)
	if oc.Operation != nil && oc.Operation.Operation == ast.Subscription {
		return rh
	}
	return func(ctx context.Context) *graphql.Response {
		resp := rh(ctx)
		if resp != nil {
			m.observeResponse(oc, resp)
		}
		return resp
	}
}

// observeResponse counts one operation by its label and the code of its
// first error ("ok" without errors).
func (m *metrics) observeResponse(oc *graphql.OperationContext, resp *graphql.Response) {
	outcome := "ok"
	if len(resp.Errors) > 0 {
		if code, ok := resp.Errors[0].Extensions["code"].(string); ok {
			outcome = code
		} else {
			outcome = "error"
		}
	}
	m.observeOperation(operationLabel(oc), outcome, time.Since(oc.Stats.OperationStart))
}

// countRefusals gives a transport an executor that also counts the
// operations refused before they run (invalid, over a limit, unauthorized),
// which never reach aroundOperation. Requests that are not yet an operation
// (a body that is not JSON) are not counted.
type countRefusals struct {
	graphql.Transport
	m *metrics
}

func (t countRefusals) Do(w http.ResponseWriter, r *http.Request, exec graphql.GraphExecutor) {
	t.Transport.Do(w, r, refusalCounter{GraphExecutor: exec, m: t.m})
}

type refusalCounter struct {
	graphql.GraphExecutor
	m *metrics
}

func (e refusalCounter) DispatchError(ctx context.Context, list gqlerror.List) *graphql.Response {
	resp := e.GraphExecutor.DispatchError(ctx, list)
	if resp != nil && graphql.HasOperationContext(ctx) {
		e.m.observeResponse(graphql.GetOperationContext(ctx), resp)
	}
	return resp
}

// operationLabel names an operation for metrics by its type and first root
// field: a bounded set, unlike client-chosen operation names.
func operationLabel(oc *graphql.OperationContext) string {
	if oc.Operation == nil {
		return "invalid"
	}
	label := string(oc.Operation.Operation)
	for _, sel := range oc.Operation.SelectionSet {
		if f, ok := sel.(*ast.Field); ok {
			return label + ":" + f.Name
		}
	}
	return label
}
