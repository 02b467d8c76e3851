package mandate

import (
	"context"

	"github.com/agenttrust/service/auth"
)

// Service manages mandates for the caller's organization (p's).
type Service interface {
	// Create grants a mandate to one of the caller's agents, with its audit
	// entry and mandate.created event: NotFound for an agent not the
	// caller's, ValidationFailed (CreateInput.Validate) naming input.* fields.
	Create(ctx context.Context, p auth.Principal, in CreateInput) (*Mandate, error)
	// Revoke revokes a mandate of the caller's organization, with its audit
	// entry and mandate.revoked event; revoking a revoked mandate returns it
	// unchanged. NotFound for a mandate not visible, ValidationFailed on reason.
	Revoke(ctx context.Context, p auth.Principal, id string, reason *string) (*Mandate, error)
	// Get returns one mandate of the caller's organization (NotFound otherwise).
	Get(ctx context.Context, p auth.Principal, id string) (*Mandate, error)
	// List returns a page of the organization's mandates, newest first:
	// ValidationFailed (Filter.Validate, or a cursor this list did not return).
	List(ctx context.Context, p auth.Principal, f Filter) (*Page, error)
	// Count counts what List lists under the same filter.
	Count(ctx context.Context, p auth.Principal, f Filter) (int, error)
	// GetMany returns the organization's mandates among ids, in no order
	// (node and nodes); the others are absent.
	GetMany(ctx context.Context, p auth.Principal, ids []string) ([]*Mandate, error)
}
