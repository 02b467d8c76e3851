package httpapi

import (
	"context"
	"math"
	"net/http"
	"time"

	"github.com/agenttrust/service/auth"
	"github.com/agenttrust/service/failure"
)

// authenticate resolves the bearer key to a principal and applies the
// per-key rate limit before any GraphQL work happens.
func authenticate(d Deps, limiter *rateLimiter, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
		defer cancel()
		key, err := auth.ParseBearer(r.Header.Get("Authorization"))
		var p auth.Principal
		if err == nil {
			p, err = d.Auth.Authenticate(ctx, key)
		}
		if err != nil {
			if failure.CodeOf(err) != failure.Unauthenticated {
				// The key could not be checked: the store is down or slow.
				d.Logger.ErrorContext(ctx, "authenticate", "err", err)
				writeGraphQLErrorStatus(w, http.StatusServiceUnavailable, unavailableError())
				return
			}
			w.Header().Set("WWW-Authenticate", `Bearer realm="agenttrust"`)
			writeGraphQLError(w, err, nil)
			return
		}
		if wait, ok := limiter.allow(p.KeyID); !ok {
			writeGraphQLError(w, failure.RetryAfter(int(math.Ceil(wait.Seconds()))), nil)
			return
		}
		setOrg(r.Context(), p.OrgID)
		next.ServeHTTP(w, r.WithContext(auth.WithPrincipal(r.Context(), p)))
	})
}
