package httpapi

import (
	"context"
	"net/http"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler"
	"github.com/99designs/gqlgen/graphql/handler/extension"
	"github.com/99designs/gqlgen/graphql/handler/lru"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/agenttrust/service/graph"
	"github.com/agenttrust/service/resolvers"
)

// newGraphQL builds the GraphQL server: its transports, its document and
// operation limits with the rate-limit charge, persisted queries, the error
// presenter and per-operation metrics. Each answer's HTTP status is decided
// by the transport that writes it (answers).
func newGraphQL(e *Edge, m *metrics) *handler.Server {
	schema := graph.NewExecutableSchema(graph.Config{Resolvers: resolvers.New(e.deps.Services, resolvers.Options{
		ExportMaxBytes: e.cfg.ExportMaxBytes, Meter: e.meter, SimulationMax: e.cfg.SimulationMaxTransactions}), Complexity: complexity()})
	srv := handler.New(schema)
	for _, t := range e.transports() {
		srv.AddTransport(countRefusals{Transport: t, m: m})
	}
	e.useLimits(srv, schema)
	srv.SetErrorPresenter(e.present)
	srv.SetRecoverFunc(resolvers.Recover(e.deps.Logger))
	srv.AroundOperations(e.countWebsocketOperation)
	srv.AroundOperations(e.capSubscriptions)
	srv.AroundOperations(m.aroundOperation)
	return srv
}

// transports are the ways GraphQL reaches the server: websockets, SSE,
// OPTIONS, GET and POST.
func (e *Edge) transports() []graphql.Transport {
	cfg := e.cfg
	a := answers{unavailable: e.deps.Unavailable}
	return []graphql.Transport{
		transport.Websocket{
			Implementation:        gorillaWS{ping: cfg.WSPingInterval, write: cfg.LiveWriteTimeout},
			InitFunc:              e.initFunc,
			InitTimeout:           10 * time.Second,
			KeepAlivePingInterval: cfg.WSPingInterval,
			PayloadReadLimit:      &cfg.MaxBodyBytes,
		},
		sseTransport{SSE: transport.SSE{KeepAlivePingInterval: 15 * time.Second}, answers: a},
		transport.Options{},
		getTransport{answers: a},
		postTransport{answers: a},
	}
}

// useLimits adds the parsed-document caches, persisted queries and the
// extensions that check and charge each operation.
func (e *Edge) useLimits(srv *handler.Server, schema graphql.ExecutableSchema) {
	cfg := e.cfg
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
	srv.Use(keyGate{keys: e.deps.Keys, deps: e.deps})
	srv.Use(roleGate{})
	srv.Use(costCharge{limiter: e.limiter})
	srv.Use(singleSubscriptionRoot{})
}

// aroundOperation records each query's and mutation's outcome and latency
// when its response is ready.
//
// A subscription is not wrapped: its goroutine waits for the next event
// inside this chain for the subscription's whole life, and the shallower
// that wait, the smaller the stack the runtime keeps for every idle
// subscription (BENCHMARKS.md, Live events). Its events are counted by the
// att_live_* metrics instead.
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
