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

// authenticate resolves the bearer key to a principal before any GraphQL
// work happens. A key whose organization's bucket is empty is refused here; each operation
// is charged by its root fields and cost later (costCharge), so the edge only checks.
func authenticate(d Deps, limiter, failures *rateLimiter, next http.Handler) http.Handler {
	return authenticateWith(d, limiter, failures, writeGraphQLErrorStatus, false, next)
}

// authenticateREST is authenticate for the REST edge: its refusals are
// {"error":{...}} bodies, and each request takes one token of its organization's rate.
func authenticateREST(d Deps, limiter, failures *rateLimiter, next http.Handler) http.Handler {
	return authenticateWith(d, limiter, failures, writeRESTError, true, next)
}

// authenticateWith is authenticate answering refusals with refuse; principal
// says how failed attempts are limited. With charge,
// the request takes a token of its organization's rate; without, it needs one left.
func authenticateWith(d Deps, limiter, failures *rateLimiter, refuse refuser, charge bool, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		p, fe := principal(ctx, d, failures, clientAddr(r), r.Header.Get("Authorization"))
		if fe != nil {
			refuseAuth(w, refuse, fe)
			return
		}
		wait, ok := limiter.wait(p.OrgID)
		if charge {
			wait, ok = limiter.allowN(p.OrgID, 1)
		}
		if !ok {
			fe := rateLimited(wait)
			refuse(w, fe.Code.HTTPStatus(), fe)
			return
		}
		authenticated(w, p)
		next.ServeHTTP(w, r.WithContext(auth.WithPrincipal(ctx, p)))
	})
}

// refuseAuth answers a request whose key was refused or could not be checked.
func refuseAuth(w http.ResponseWriter, refuse refuser, fe *failure.Error) {
	if fe.Code == failure.Internal {
		refuse(w, http.StatusServiceUnavailable, fe)
		return
	}
	if fe.Code == failure.Unauthenticated {
		w.Header().Set("WWW-Authenticate", `Bearer realm="agenttrust"`)
	}
	refuse(w, fe.Code.HTTPStatus(), fe)
}

// principal checks an Authorization header sent from addr, for every way in
// (HTTP, REST and websocket connection_init). Only failures are limited: a
// bad key is UNAUTHENTICATED and counts against the budget of failed
// attempts of addr's network (addrBucket), and a valid key is never refused
// because of other callers' failures. Once the budget is spent, a malformed
// key, and a well-formed one that is not among the live keys this process
// knows of (auth.Authenticator's WasLive), is RATE_LIMITED without any
// lookup, so guesses beyond the budget cost the database nothing; a real key
// is still looked up. A key that cannot be checked (the store is down or
// slow) is INTERNAL.
func principal(ctx context.Context, d Deps, failures *rateLimiter, addr, header string) (auth.Principal, *failure.Error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	bucket := addrBucket(addr)
	key, err := auth.ParseBearer(header)
	if err != nil {
		return auth.Principal{}, failed(failures, bucket, err)
	}
	if wait, ok := failures.wait(bucket); !ok && !d.Auth.WasLive(key) {
		return auth.Principal{}, rateLimited(wait)
	}
	p, err := d.Auth.Authenticate(ctx, key)
	if err != nil {
		if failure.CodeOf(err) != failure.Unauthenticated {
			d.Logger.ErrorContext(ctx, "authenticate", "err", err)
			return auth.Principal{}, unavailableError()
		}
		return auth.Principal{}, failed(failures, bucket, err)
	}
	return p, nil
}

// failed charges a refused key (err, UNAUTHENTICATED) to bucket's budget of
// failed attempts; over the budget, the answer is RATE_LIMITED.
func failed(failures *rateLimiter, bucket string, err error) *failure.Error {
	if wait, ok := failures.allowN(bucket, 1); !ok {
		return rateLimited(wait)
	}
	return failure.As(err)
}

// rateLimited is the contract's RATE_LIMITED error for a wait of d.
func rateLimited(d time.Duration) *failure.Error {
	return failure.RetryAfter(max(int(math.Ceil(d.Seconds())), 1))
}
