package resolvers

import (
	"context"

	"github.com/agenttrust/service/agent"
	"github.com/agenttrust/service/graph"
)

// AuditEntry returns the AuditEntry field resolver.
func (r *Resolver) AuditEntry() graph.AuditEntryResolver { return &auditEntryResolver{r} }

type auditEntryResolver struct{ *Resolver }

// PreviousHash is null on the first entry of a chain.
func (r *auditEntryResolver) PreviousHash(_ context.Context, e *agent.AuditEntry) (*string, error) {
	if e.PreviousHash == "" {
		return nil, nil
	}
	return &e.PreviousHash, nil
}
