package httpapi

import (
	"context"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/agenttrust/service/auth"
	"github.com/agenttrust/service/failure"
)

// keyGate checks, for every operation a websocket starts, that the key the
// connection authenticated with is still live (auth.KeyChecker's Revoked,
// through the same key cache and listener as the edge's API-key step), so an
// operation that starts after a revocation is refused on every replica
// within auth.RevocationBound, as an HTTP request is. A refused operation
// runs nothing, and its connection is closed with 4401. HTTP and SSE
// requests passed the API-key step moments before and are not checked
// again.
type keyGate struct {
	keys auth.KeyChecker
	deps Deps
}

var _ interface {
	graphql.HandlerExtension
	graphql.OperationContextMutator
} = keyGate{}

func (keyGate) ExtensionName() string                   { return "KeyGate" }
func (keyGate) Validate(graphql.ExecutableSchema) error { return nil }

func (g keyGate) MutateOperationContext(ctx context.Context, _ *graphql.OperationContext) *gqlerror.Error {
	lc := liveConnFrom(ctx)
	p, err := auth.FromContext(ctx)
	if g.keys == nil || lc == nil || lc.transport != "websocket" || err != nil {
		return nil
	}
	revoked, err := g.keys.Revoked(ctx, p.KeyID)
	if err != nil {
		g.deps.Logger.ErrorContext(ctx, "check a websocket's key", "err", err)
		return gqlerror.WrapIfUnwrapped(unavailableError())
	}
	if !revoked {
		return nil
	}
	go lc.close(closeUnauthorized, failure.Unauthenticated, "API key revoked", nil)
	return gqlerror.WrapIfUnwrapped(failure.Errorf(failure.Unauthenticated, "API key revoked"))
}

// revoked closes, with 4401, the live connections (websocket and SSE) of
// the key keyID, which was just revoked on some replica. It is an
// auth.KeyChecker OnRevoke hook, so it must not block: the closes, which
// write to the peers, run on a goroutine of their own.
func (l *liveConns) revoked(keyID string) {
	var closing []*liveConn
	l.mu.Lock()
	for lc := range l.conns {
		lc.mu.Lock()
		if lc.keyID == keyID {
			closing = append(closing, lc)
		}
		lc.mu.Unlock()
	}
	l.mu.Unlock()
	if len(closing) == 0 {
		return
	}
	l.log.Info("live events: closing the connections of a revoked key", "key_id", keyID, "connections", len(closing))
	go func() {
		for _, lc := range closing {
			lc.close(closeUnauthorized, failure.Unauthenticated, "API key revoked", nil)
		}
	}()
}
