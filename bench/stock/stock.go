// Package stock is gqlgen as its own documentation sets it up, serving the
// fields of the dashboard's agents page: the reference bench/read puts beside
// the service, so that every read figure has the engine's own cost next to
// it. Its schema (schema.graphqls) has the service's types for those fields,
// bound to plain struct fields; the one resolver reads a page with one
// statement, joining the trust counters only when the selection asks for
// trust, and scans each row positionally. There is no authentication, no
// limit, no logging, no metrics and no extension: what is left is gqlgen's
// executor, pgx and the handler's transport.
package stock

import (
	"context"
	"net/http"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler"
	"github.com/99designs/gqlgen/graphql/handler/lru"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/agenttrust/service/bench/stock/graph"
)

// Handler serves the reference's schema over POST for the agents of the
// organization orgID, with gqlgen's query cache as its own server template
// sets it.
func Handler(pool *pgxpool.Pool, orgID string) http.Handler {
	srv := handler.New(graph.NewExecutableSchema(graph.Config{Resolvers: &resolver{pool: pool, orgID: orgID}}))
	srv.AddTransport(transport.POST{})
	srv.SetQueryCache(lru.New[*ast.QueryDocument](1000))
	return srv
}

type resolver struct {
	pool  *pgxpool.Pool
	orgID string
}

func (r *resolver) Query() graph.QueryResolver { return r }

const (
	pageSQL = `SELECT a.id, a.name, a.status, a.spending_limit::text, a.currency, a.environment, a.created_at
 FROM agents AS a WHERE a.org_id = $1 ORDER BY a.seq DESC LIMIT $2`
	trustSQL = `SELECT a.id, a.name, a.status, a.spending_limit::text, a.currency, a.environment, a.created_at,
 COALESCE(tc.score, 0), COALESCE(tc.assessment, '')
 FROM agents AS a LEFT JOIN trust_counters AS tc ON tc.agent_id = a.id
 WHERE a.org_id = $1 ORDER BY a.seq DESC LIMIT $2`
)

// Agents reads a page of agents in one statement, with their trust when the
// selection of nodes asks for it.
func (r *resolver) Agents(ctx context.Context, limit int) (*graph.AgentConnection, error) {
	withTrust := false
	for _, f := range graphql.CollectFieldsCtx(ctx, nil) {
		if f.Name != "nodes" {
			continue
		}
		for _, n := range graphql.CollectFields(graphql.GetOperationContext(ctx), f.Selections, nil) {
			withTrust = withTrust || n.Name == "trust"
		}
	}
	sql := pageSQL
	if withTrust {
		sql = trustSQL
	}
	rows, err := r.pool.Query(ctx, sql, r.orgID, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	nodes := make([]*graph.Agent, 0, limit)
	for rows.Next() {
		a := &graph.Agent{}
		dest := []any{&a.ID, &a.Name, &a.Status, &a.SpendingLimit, &a.Currency, &a.Environment, &a.CreatedAt}
		if withTrust {
			a.Trust = &graph.TrustProfile{}
			dest = append(dest, &a.Trust.Score, &a.Trust.Assessment)
		}
		if err := rows.Scan(dest...); err != nil {
			return nil, err
		}
		nodes = append(nodes, a)
	}
	return &graph.AgentConnection{Nodes: nodes}, rows.Err()
}
