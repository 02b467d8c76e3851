package httpapi

import (
	"context"
	"log/slog"
	"sync"

	"github.com/99designs/gqlgen/graphql"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/agenttrust/service/auth"
	"github.com/agenttrust/service/failure"
)

// The live caps, by their metric label.
const (
	capUnauthenticated = "unauthenticated_per_address" // websockets not yet past connection_init, per address
	capConnections     = "connections_per_org"         // websocket and SSE connections, per organization
	capSubscriptions   = "subscriptions_per_org"       // subscriptions, per organization
)

// liveCaps counts what the live caps bound, in this process: every replica
// allows up to its own caps. A count over its cap refuses the next
// connection or subscription with RATE_LIMITED, counts it in
// att_live_cap_refusals_total and logs the first refusal until the count
// drops below the cap again.
type liveCaps struct {
	limits  map[string]int
	log     *slog.Logger
	refused *prometheus.CounterVec

	mu     sync.Mutex
	counts map[capKey]int
	full   map[capKey]bool // reached and logged
}

type capKey struct{ cap, key string }

func newLiveCaps(cfg Config, log *slog.Logger, reg prometheus.Registerer) *liveCaps {
	c := &liveCaps{
		limits: map[string]int{capUnauthenticated: cfg.MaxUnauthenticatedPerAddress,
			capConnections: cfg.MaxConnectionsPerOrg, capSubscriptions: cfg.MaxSubscriptionsPerOrg},
		log: log,
		refused: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "att_live_cap_refusals_total",
			Help: "Live connections and subscriptions refused because a cap was reached, by cap.",
		}, []string{"cap"}),
		counts: map[capKey]int{}, full: map[capKey]bool{},
	}
	reg.MustRegister(c.refused)
	return c
}

// take counts one more against cap for key, or refuses it when the count
// has reached the cap.
func (c *liveCaps) take(ctx context.Context, cap, key string) *failure.Error {
	limit, k := c.limits[cap], capKey{cap, key}
	c.mu.Lock()
	if c.counts[k] < limit {
		c.counts[k]++
		c.mu.Unlock()
		return nil
	}
	first := !c.full[k]
	c.full[k] = true
	c.mu.Unlock()
	c.refused.WithLabelValues(cap).Inc()
	if first {
		c.log.WarnContext(ctx, "live cap reached: refusing more", "cap", cap, "limit", limit, "key", key)
	}
	return capError(cap, limit)
}

// release gives back one count taken for key.
func (c *liveCaps) release(cap, key string) {
	k := capKey{cap, key}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.counts[k]--; c.counts[k] <= 0 {
		delete(c.counts, k)
	}
	if c.counts[k] < c.limits[cap] {
		delete(c.full, k)
	}
}

// capError is the refusal of a cap, naming it and its setting.
func capError(cap string, limit int) *failure.Error {
	var fe *failure.Error
	switch cap {
	case capUnauthenticated:
		fe = failure.Errorf(failure.RateLimited, "too many websocket connections from this address without connection_init (limit %d, LIVE_UNAUTHENTICATED_PER_ADDRESS)", limit)
	case capConnections:
		fe = failure.Errorf(failure.RateLimited, "too many live connections for this organization (limit %d, LIVE_CONNECTIONS_PER_ORG): close some first", limit)
	default:
		fe = failure.Errorf(failure.RateLimited, "too many subscriptions for this organization (limit %d, LIVE_SUBSCRIPTIONS_PER_ORG): end some first", limit)
	}
	fe.Extensions = map[string]any{"retryAfter": 1}
	return fe
}

// settleInit releases lc's count of unauthenticated connections, once: its
// connection_init has been answered, or the connection ended.
func (e *Edge) settleInit(lc *liveConn) {
	lc.mu.Lock()
	addr := lc.pendingAddr
	lc.pendingAddr = ""
	lc.mu.Unlock()
	if addr != "" {
		e.caps.release(capUnauthenticated, addr)
	}
}

// joinOrg counts lc against its organization's connections; leaveOrg gives
// the count back once.
func (e *Edge) joinOrg(ctx context.Context, lc *liveConn, orgID string) *failure.Error {
	if fe := e.caps.take(ctx, capConnections, orgID); fe != nil {
		return fe
	}
	lc.mu.Lock()
	lc.orgID = orgID
	lc.mu.Unlock()
	return nil
}

func (e *Edge) leaveOrg(lc *liveConn) {
	lc.mu.Lock()
	org := lc.orgID
	lc.orgID = ""
	lc.mu.Unlock()
	if org != "" {
		e.caps.release(capConnections, org)
	}
}

// capSubscriptions counts each subscription against its organization's cap
// until the operation's context ends (gqlgen cancels it when the
// subscription completes, on every transport); one over the cap is answered
// with a RATE_LIMITED error and never runs.
func (e *Edge) capSubscriptions(ctx context.Context, next graphql.OperationHandler) graphql.ResponseHandler {
	oc := graphql.GetOperationContext(ctx)
	p, err := auth.FromContext(ctx)
	if err != nil || oc.Operation == nil || oc.Operation.Operation != ast.Subscription {
		return next(ctx)
	}
	if fe := e.caps.take(ctx, capSubscriptions, p.OrgID); fe != nil {
		return graphql.OneShot(&graphql.Response{Errors: gqlerror.List{e.present(ctx, fe)}})
	}
	context.AfterFunc(ctx, func() { e.caps.release(capSubscriptions, p.OrgID) })
	return next(ctx)
}
