package httpapi

import (
	"context"
	"math"
	"net"
	"net/http"
	"time"

	"github.com/agenttrust/service/auth"
	"github.com/agenttrust/service/failure"
)

// refuser answers a request refused at the edge in one transport's error
// shape: writeGraphQLErrorStatus or writeRESTError.
type refuser func(w http.ResponseWriter, status int, fe *failure.Error)

// authenticate resolves the bearer key to a principal before any GraphQL
// work happens. A key whose bucket is empty is refused here; each operation
// is charged by its root fields and cost later (costCharge), so the edge only checks.
func authenticate(d Deps, limiter, failures *rateLimiter, next http.Handler) http.Handler {
	return authenticateWith(d, limiter, failures, writeGraphQLErrorStatus, false, next)
}

// authenticateREST is authenticate for the REST edge: its refusals are
// {"error":{...}} bodies, and each request takes one token of the key's rate.
func authenticateREST(d Deps, limiter, failures *rateLimiter, next http.Handler) http.Handler {
	return authenticateWith(d, limiter, failures, writeRESTError, true, next)
}

// authenticateWith is authenticate answering refusals with refuse. A client
// address with too many failed attempts (failures) is refused before its key
// is even read, and a malformed key never reaches the database. With charge,
// the request takes a token of the key's rate; without, it needs one left.
func authenticateWith(d Deps, limiter, failures *rateLimiter, refuse refuser, charge bool, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		p, fe := principal(ctx, d, failures, clientAddr(r), r.Header.Get("Authorization"))
		if fe != nil {
			refuseAuth(w, refuse, fe)
			return
		}
		wait, ok := limiter.wait(p.KeyID)
		if charge {
			wait, ok = limiter.allowN(p.KeyID, 1)
		}
		if !ok {
			fe := rateLimited(wait)
			refuse(w, fe.Code.HTTPStatus(), fe)
			return
		}
		setOrg(ctx, p.OrgID)
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
// (HTTP, REST and websocket connection_init): an address over its budget of
// failed attempts is RATE_LIMITED before any lookup, a bad key is
// UNAUTHENTICATED and counts against that budget, and a key that cannot be
// checked (the store is down or slow) is INTERNAL.
func principal(ctx context.Context, d Deps, failures *rateLimiter, addr, header string) (auth.Principal, *failure.Error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if wait, ok := failures.wait(addr); !ok {
		return auth.Principal{}, rateLimited(wait)
	}
	key, err := auth.ParseBearer(header)
	var p auth.Principal
	if err == nil {
		p, err = d.Auth.Authenticate(ctx, key)
	}
	if err != nil {
		if failure.CodeOf(err) != failure.Unauthenticated {
			d.Logger.ErrorContext(ctx, "authenticate", "err", err)
			return auth.Principal{}, unavailableError()
		}
		failures.allowN(addr, 1)
		return auth.Principal{}, failure.As(err)
	}
	return p, nil
}

// clientAddr is the peer's IP address. Forwarding headers are not trusted:
// behind a proxy every client shares the proxy's address and its budget.
func clientAddr(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// rateLimited is the contract's RATE_LIMITED error for a wait of d.
func rateLimited(d time.Duration) *failure.Error {
	return failure.RetryAfter(max(int(math.Ceil(d.Seconds())), 1))
}
