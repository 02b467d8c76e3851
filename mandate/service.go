package mandate

import "context"

// Service manages mandates for the caller's organization (the principal in ctx).
type Service interface {
	// Create grants a mandate to one of the caller's agents, with its audit
	// entry and mandate.created event: NotFound for an agent not the
	// caller's, ValidationFailed (CreateInput.Validate) naming input.* fields.
	Create(ctx context.Context, in CreateInput) (*Mandate, error)
	// Revoke revokes a mandate of the caller's organization, with its audit
	// entry and mandate.revoked event; revoking a revoked mandate returns it
	// unchanged. NotFound for a mandate not visible, ValidationFailed on reason.
	Revoke(ctx context.Context, id string, reason *string) (*Mandate, error)
	// Get returns one mandate of the caller's organization (NotFound otherwise).
	Get(ctx context.Context, id string) (*Mandate, error)
	// List returns a page of the organization's mandates, newest first:
	// ValidationFailed (Filter.Validate, or a cursor this list did not return).
	List(ctx context.Context, f Filter) (*Page, error)
	// Count counts what List lists under the same filter.
	Count(ctx context.Context, f Filter) (int, error)
	// GetMany returns the organization's mandates among ids, in no order
	// (node and nodes); the others are absent.
	GetMany(ctx context.Context, ids []string) ([]*Mandate, error)
}
