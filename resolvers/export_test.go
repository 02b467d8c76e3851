package resolvers

import "github.com/99designs/gqlgen/graphql"

// Planned reports whether AgentsPage's writer answers the operation.
func Planned(oc *graphql.OperationContext) bool {
	_, ok := plan(oc)
	return ok
}
