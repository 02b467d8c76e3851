package resolvers

import (
	"context"

	"github.com/99designs/gqlgen/graphql"

	"github.com/agenttrust/service/graph/model"
	"github.com/agenttrust/service/paging"
)

// connectionInfo is a page's PageInfo: its contract endCursor and
// hasNextPage, and the Relay startCursor (its first row's) and
// hasPreviousPage.
func connectionInfo(cursors paging.RowCursors, endCursor string, hasNext, hasPrevious bool) *model.PageInfo {
	p := &model.PageInfo{HasNextPage: hasNext, HasPreviousPage: hasPrevious}
	if endCursor != "" {
		p.EndCursor = &endCursor
	}
	if cursors.Len() > 0 {
		start := cursors.At(0)
		p.StartCursor = &start
	}
	return p
}

// edges pairs a page's nodes with their cursors: the same rows as nodes,
// read once, the edges allocated together; none unless wanted (the
// connection's selection has edges), so that no cursor is sealed for nothing.
func edges[N, E any](wanted bool, nodes []N, cursors paging.RowCursors, edge func(cursor string, node N) E) []*E {
	if !wanted {
		return nil
	}
	slab := make([]E, len(nodes))
	out := make([]*E, len(nodes))
	for i, n := range nodes {
		slab[i] = edge(cursors.At(i), n)
		out[i] = &slab[i]
	}
	return out
}

// selects reports whether the field being resolved selects a field named name.
func selects(ctx context.Context, name string) bool {
	for _, f := range graphql.CollectFieldsCtx(ctx, nil) {
		if f.Name == name {
			return true
		}
	}
	return false
}

// window resolves the paging arguments of the connection field being
// resolved (paging.Args.Window): limit counts as given only when the
// operation wrote it, not when the schema's default filled it.
func window(ctx context.Context, limit, first, last *int, after, before *string) (paging.Window, error) {
	return paging.Args{Limit: limit, First: first, Last: last, LimitSet: argSet(ctx, "limit"),
		After: after, Before: before}.Window()
}

// argSet reports whether the field being resolved was given the argument
// name with a non-null value (a variable's value counts).
func argSet(ctx context.Context, name string) bool {
	fc := graphql.GetFieldContext(ctx)
	if fc == nil || fc.Field.Field == nil {
		return false
	}
	arg := fc.Field.Arguments.ForName(name)
	if arg == nil {
		return false
	}
	v, err := arg.Value.Value(graphql.GetOperationContext(ctx).Variables)
	return err == nil && v != nil
}

func deref[T any](p *T, def T) T {
	if p == nil {
		return def
	}
	return *p
}
