package httpapi

import (
	"context"
	"math"
	"net/http"
	"time"

	"github.com/agenttrust/service/auth"
	"github.com/agenttrust/service/failure"
)

// refuser answers a request refused at the edge in one transport's error
// shape: writeGraphQLErrorStatus or writeRESTError.
type refuser func(w http.ResponseWriter, status int, fe *failure.Error)

// authenticate resolves the bearer key to a principal and applies the
// per-key rate limit before any GraphQL work happens.
func authenticate(d Deps, limiter *rateLimiter, next http.Handler) http.Handler {
	return authenticateWith(d, limiter, writeGraphQLErrorStatus, next)
}

// authenticateREST is authenticate for the REST edge: its refusals are
// {"error":{...}} bodies.
func authenticateREST(d Deps, limiter *rateLimiter, next http.Handler) http.Handler {
	return authenticateWith(d, limiter, writeRESTError, next)
}

// authenticateWith is authenticate answering refusals with refuse.
func authenticateWith(d Deps, limiter *rateLimiter, refuse refuser, next http.Handler) http.Handler {
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
				refuse(w, http.StatusServiceUnavailable, unavailableError())
				return
			}
			w.Header().Set("WWW-Authenticate", `Bearer realm="agenttrust"`)
			fe := failure.As(err)
			refuse(w, fe.Code.HTTPStatus(), fe)
			return
		}
		if wait, ok := limiter.allow(p.KeyID); !ok {
			fe := failure.RetryAfter(int(math.Ceil(wait.Seconds())))
			refuse(w, fe.Code.HTTPStatus(), fe)
			return
		}
		setOrg(r.Context(), p.OrgID)
		next.ServeHTTP(w, r.WithContext(auth.WithPrincipal(r.Context(), p)))
	})
}
