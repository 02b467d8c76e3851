package httpapi

import (
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// rateLimiter keeps one token bucket per API key in this process. Limits are
// per replica: N replicas allow up to N times the rate (see README).
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

// allow takes a token for key, or says how long until one is available.
func (l *rateLimiter) allow(key string) (time.Duration, bool) {
	now := time.Now()
	l.mu.Lock()
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
	l.mu.Unlock()

	r := b.lim.ReserveN(now, 1)
	if d := r.DelayFrom(now); d > 0 {
		r.CancelAt(now)
		return d, false
	}
	return 0, true
}
