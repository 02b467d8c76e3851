package resolvers

import "github.com/99designs/gqlgen/graphql"

// Planned reports whether AgentsPage's writer answers the operation.
func Planned(oc *graphql.OperationContext) bool {
	_, ok := plan(oc)
	return ok
}

// AgentsPageAnswered counts the operations an AgentsPage schema answered
// with its own writer rather than handing them to gqlgen.
func AgentsPageAnswered(es graphql.ExecutableSchema) int64 {
	return es.(agentsPageSchema).answered.Load()
}
