package httpapi

import (
	"context"
	"net/http"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/errcode"
	"github.com/99designs/gqlgen/graphql/handler"
	"github.com/99designs/gqlgen/graphql/handler/extension"
	"github.com/99designs/gqlgen/graphql/handler/lru"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/99designs/gqlgen/graphql/playground"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/agenttrust/service/agent"
	"github.com/agenttrust/service/failure"
	"github.com/agenttrust/service/graph"
	"github.com/agenttrust/service/paging"
	"github.com/agenttrust/service/resolvers"
	"github.com/agenttrust/service/transaction"
	"github.com/agenttrust/service/trust"
)

// newGraphQL builds the gqlgen handler: transports, limits, persisted
// queries, the error presenter and per-operation metrics.
func newGraphQL(e *Edge, m *metrics) http.Handler {
	cfg, d := e.cfg, e.deps
	c := graph.Config{Resolvers: resolvers.New(d.Services)}
	// A list costs its page size times its element.
	c.Complexity.Query.Agents = func(child int, _ *agent.Status, limit *int, _ *string) int {
		return 1 + child*paging.Cost(limit)
	}
	c.Complexity.Query.Transactions = func(child int, _ *string, _ *transaction.Status, limit *int, _ *string) int {
		return 1 + child*paging.Cost(limit)
	}
	c.Complexity.Query.Disputes = func(child int, _ *string, _ *trust.DisputeStatus, limit *int, _ *string) int {
		return 1 + child*paging.Cost(limit)
	}
	srv := handler.New(graph.NewExecutableSchema(c))
	srv.AddTransport(transport.Websocket{
		Implementation:        gorillaWS{ping: cfg.WSPingInterval},
		InitFunc:              e.initFunc,
		InitTimeout:           10 * time.Second,
		KeepAlivePingInterval: cfg.WSPingInterval,
		PayloadReadLimit:      &cfg.MaxBodyBytes,
	})
	srv.AddTransport(transport.SSE{KeepAlivePingInterval: 15 * time.Second})
	srv.AddTransport(transport.Options{})
	srv.AddTransport(transport.GET{})
	srv.AddTransport(transport.POST{})
	srv.SetQueryCache(lru.New[*ast.QueryDocument](1000))
	srv.Use(extension.Introspection{})
	srv.Use(extension.AutomaticPersistedQuery{Cache: lru.New[string](1000)})
	srv.Use(extension.FixedComplexityLimit(cfg.ComplexityLimit))
	srv.Use(depthLimit{max: cfg.DepthLimit})
	srv.Use(singleSubscriptionRoot{})
	srv.SetErrorPresenter(resolvers.ErrorPresenter(d.Logger, d.Unavailable))
	srv.SetRecoverFunc(resolvers.Recover(d.Logger))
	srv.AroundOperations(e.chargeWebsocketOperation)
	srv.AroundResponses(func(ctx context.Context, next graphql.ResponseHandler) *graphql.Response {
		resp := next(ctx)
		if resp == nil || !graphql.HasOperationContext(ctx) {
			return resp
		}
		oc := graphql.GetOperationContext(ctx)
		outcome := "ok"
		if len(resp.Errors) > 0 {
			if code, ok := resp.Errors[0].Extensions["code"].(string); ok {
				outcome = code
			} else {
				outcome = "error"
			}
		}
		m.observeOperation(operationLabel(oc), outcome, time.Since(oc.Stats.OperationStart))
		return resp
	})

	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		outage := &resolvers.Outage{}
		sw := &statusWriter{ResponseWriter: w}
		sw.rewrite = func(code int) int {
			switch {
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
		srv.ServeHTTP(sw, r.WithContext(resolvers.WithOutage(r.Context(), outage)))
		if sw.discard {
			encodeGraphQLError(w, failure.Invalid("query", "GET runs queries only: send mutations with POST"))
		}
	})
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

// depthLimit refuses operations nested deeper than max fields. Introspection
// is exempt so the playground keeps working.
type depthLimit struct{ max int }

var _ interface {
	graphql.HandlerExtension
	graphql.OperationContextMutator
} = depthLimit{}

func (depthLimit) ExtensionName() string                   { return "DepthLimit" }
func (depthLimit) Validate(graphql.ExecutableSchema) error { return nil }
func (l depthLimit) MutateOperationContext(_ context.Context, oc *graphql.OperationContext) *gqlerror.Error {
	if oc.Operation == nil {
		return nil
	}
	if d := depth(oc.Operation.SelectionSet, oc.Doc.Fragments, 0); d > l.max {
		err := gqlerror.Errorf("operation is nested %d levels deep, more than the limit of %d", d, l.max)
		errcode.Set(err, errcode.ValidationFailed)
		return err
	}
	return nil
}

func depth(set ast.SelectionSet, frags ast.FragmentDefinitionList, level int) int {
	if level > 100 {
		return level
	}
	deepest := level
	for _, sel := range set {
		var d int
		switch s := sel.(type) {
		case *ast.Field:
			if len(s.Name) > 1 && s.Name[:2] == "__" {
				continue
			}
			d = depth(s.SelectionSet, frags, level+1)
		case *ast.InlineFragment:
			d = depth(s.SelectionSet, frags, level)
		case *ast.FragmentSpread:
			if f := frags.ForName(s.Name); f != nil {
				d = depth(f.SelectionSet, frags, level)
			}
		}
		deepest = max(deepest, d)
	}
	return deepest
}

func playgroundHandler() http.Handler {
	return playground.Handler("Agent Trust and Transaction Service", "/graphql")
}
