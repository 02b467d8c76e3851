package httpapi

import (
	"context"
	"net/http"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/agenttrust/service/auth"
)

// roleGate checks every root field of an operation against the key's role
// (auth.Operations), and the acting agent of an agent-scoped one, after the
// document checks and before the charge or anything runs. It is an
// operation-level extension of the GraphQL server, so queries, mutations
// and subscriptions over every transport (HTTP, websocket, SSE) pass it; a
// refused operation runs none of its fields.
type roleGate struct{}

var _ interface {
	graphql.HandlerExtension
	graphql.OperationContextMutator
} = roleGate{}

func (roleGate) ExtensionName() string                   { return "RoleGate" }
func (roleGate) Validate(graphql.ExecutableSchema) error { return nil }

func (roleGate) MutateOperationContext(ctx context.Context, oc *graphql.OperationContext) *gqlerror.Error {
	p, err := auth.FromContext(ctx)
	if err != nil || oc.Operation == nil {
		return nil // resolvers refuse the unauthenticated themselves
	}
	root := rootTypeName(oc.Operation.Operation)
	for _, f := range graphql.CollectFields(oc, oc.Operation.SelectionSet, []string{root}) {
		if strings.HasPrefix(f.Name, "__") {
			continue // introspection and __typename read only the schema
		}
		if err := authorizeField(p, root+"."+f.Name, f.ArgumentMap(oc.Variables)); err != nil {
			return gqlerror.WrapIfUnwrapped(err)
		}
	}
	return nil
}

func rootTypeName(op ast.Operation) string {
	switch op {
	case ast.Mutation:
		return "Mutation"
	case ast.Subscription:
		return "Subscription"
	}
	return "Query"
}

// authorizeField decides one root field with its arguments.
func authorizeField(p auth.Principal, op string, args map[string]any) error {
	a, err := auth.Authorize(p, op)
	if err != nil || a.Scope != auth.ScopeArg {
		return err
	}
	agentID, _ := argAt(args, a.Arg).(string)
	return auth.AuthorizeAgent(p, op, agentID)
}

// argAt is the argument at a dotted path ("input.fromAgent"), or nil.
func argAt(args map[string]any, path string) any {
	var v any = args
	for _, name := range strings.Split(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[name]
	}
	return v
}

// restHandler serves a REST route for p, the principal the edge
// authenticated.
type restHandler func(w http.ResponseWriter, r *http.Request, p auth.Principal)

// route adds a REST route to mux behind authorizeRoute: every route of the
// REST edge is added this way.
func route(mux *http.ServeMux, pattern string, h restHandler) {
	mux.HandleFunc(pattern, authorizeRoute(pattern, h))
}

// authorizeRoute wraps a REST route: the key's role must allow pattern, the
// route's entry in auth.Operations (a route missing there is refused to
// every key), or the request is answered 403 before the handler runs; the
// handler is given the principal. The caller authenticates first.
func authorizeRoute(pattern string, h restHandler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		p, err := auth.FromContext(r.Context())
		if err == nil {
			_, err = auth.Authorize(p, pattern)
		}
		if err != nil {
			WriteRESTError(w, err, nil)
			return
		}
		h(w, r, p)
	}
}
