package httpapi

import (
	"context"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/errcode"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// singleSubscriptionRoot refuses a subscription that selects other than one
// root field (GraphQL's "single root field" rule), fragments and @skip
// included. Without it gqlgen fails the operation at run time, which would
// be answered as INTERNAL for what is a mistake in the document.
type singleSubscriptionRoot struct{}

var _ interface {
	graphql.HandlerExtension
	graphql.OperationContextMutator
} = singleSubscriptionRoot{}

func (singleSubscriptionRoot) ExtensionName() string                   { return "SingleSubscriptionRoot" }
func (singleSubscriptionRoot) Validate(graphql.ExecutableSchema) error { return nil }
func (singleSubscriptionRoot) MutateOperationContext(_ context.Context, oc *graphql.OperationContext) *gqlerror.Error {
	if oc.Operation == nil || oc.Operation.Operation != ast.Subscription {
		return nil
	}
	if n := len(graphql.CollectFields(oc, oc.Operation.SelectionSet, []string{"Subscription"})); n != 1 {
		err := gqlerror.Errorf("a subscription selects exactly one root field, this one selects %d", n)
		errcode.Set(err, errcode.ValidationFailed)
		return err
	}
	return nil
}
