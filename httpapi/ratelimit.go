package httpapi

import (
	"context"
	"sync"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/gqlerror"
	"golang.org/x/time/rate"

	"github.com/agenttrust/service/auth"
)

// rateLimiter keeps one token bucket per name in this process: the edge's
// limiter names each organization (all its keys share one budget, so minting
// keys adds no rate), the failed-login limiter each client network. Limits
// are per replica: N replicas allow up to N times the rate (docs/operations.md, Replicas).
type rateLimiter struct {
	rps   rate.Limit
	burst int

	mu      sync.Mutex
	buckets map[string]*bucket
	swept   time.Time
}

type bucket struct {
	lim  *rate.Limiter
	seen time.Time
}

func newRateLimiter(rps float64, burst int) *rateLimiter {
	return &rateLimiter{rps: rate.Limit(rps), burst: burst, buckets: map[string]*bucket{}, swept: time.Now()}
}

func (l *rateLimiter) bucket(key string, now time.Time) *rate.Limiter {
	l.mu.Lock()
	defer l.mu.Unlock()
	b, ok := l.buckets[key]
	if !ok {
		b = &bucket{lim: rate.NewLimiter(l.rps, l.burst)}
		l.buckets[key] = b
	}
	b.seen = now
	if now.Sub(l.swept) > time.Minute { // forget idle keys so memory stays bounded
		for k, v := range l.buckets {
			if now.Sub(v.seen) > 10*time.Minute {
				delete(l.buckets, k)
			}
		}
		l.swept = now
	}
	return b.lim
}

// allowN takes n tokens for key, all or none, or says how long until they
// are available. More than the burst can never be taken at once.
func (l *rateLimiter) allowN(key string, n int) (time.Duration, bool) {
	now := time.Now()
	lim := l.bucket(key, now)
	if n > l.burst {
		return time.Duration(float64(n) / float64(l.rps) * float64(time.Second)), false
	}
	r := lim.ReserveN(now, n)
	if d := r.DelayFrom(now); d > 0 {
		r.CancelAt(now)
		return d, false
	}
	return 0, true
}

// wait says how long until key has a token, without taking one: the edge
// refuses an empty bucket before parsing anything.
func (l *rateLimiter) wait(key string) (time.Duration, bool) {
	now := time.Now()
	lim := l.bucket(key, now)
	if t := lim.TokensAt(now); t < 1 {
		return time.Duration((1 - t) / float64(l.rps) * float64(time.Second)), false
	}
	return 0, true
}

// costCharge charges the caller's rate limit for each operation: a token
// per root field (aliases count), or per costPerToken of its cost when that
// is more (charge), after every document check and before anything runs. It
// is an operation-level extension of the GraphQL server, so it applies to
// every transport of that server: HTTP GET and POST, and websocket or SSE
// operations alike.
type costCharge struct{ limiter *rateLimiter }

var _ interface {
	graphql.HandlerExtension
	graphql.OperationContextMutator
} = costCharge{}

func (costCharge) ExtensionName() string                   { return "CostCharge" }
func (costCharge) Validate(graphql.ExecutableSchema) error { return nil }

func (c costCharge) MutateOperationContext(ctx context.Context, oc *graphql.OperationContext) *gqlerror.Error {
	p, err := auth.FromContext(ctx)
	if err != nil || oc.Operation == nil {
		return nil // resolvers refuse the unauthenticated themselves
	}
	n, counted := oc.Stats.GetExtension(chargeStat).(int64)
	if !counted { // a subscription, or operationLimits did not run (it runs first on every server the edge builds)
		for _, v := range rootFields(oc.Operation.SelectionSet, oc.Doc.Fragments) {
			n = satAdd(n, v)
		}
	}
	if wait, ok := c.limiter.allowN(p.OrgID, int(max(n, 1))); !ok {
		return gqlerror.WrapIfUnwrapped(rateLimited(wait))
	}
	return nil
}

// take takes n tokens of key's bucket, waiting for them (in steps no larger
// than the burst), so that work charged as it is done slows to the key's
// rate instead of failing half-way. A wait longer than maxWait (when
// positive) or than ctx's deadline is refused as RateLimited, and that
// step's tokens are not taken.
func (l *rateLimiter) take(ctx context.Context, key string, n int, maxWait time.Duration) error {
	for n > 0 {
		k := min(n, l.burst)
		now := time.Now()
		r := l.bucket(key, now).ReserveN(now, k)
		d := r.DelayFrom(now)
		dl, ok := ctx.Deadline()
		if (maxWait > 0 && d > maxWait) || (ok && now.Add(d).After(dl)) {
			r.CancelAt(now)
			return rateLimited(d)
		}
		if d > 0 {
			t := time.NewTimer(d)
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
				r.Cancel()
				return ctx.Err()
			}
		}
		n -= k
	}
	return nil
}
