package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/agenttrust/service/auth"
	"github.com/agenttrust/service/failure"
)

// httpStatus is the one table from contract codes to HTTP statuses.
var httpStatus = map[failure.Code]int{
	failure.Unauthenticated:  http.StatusUnauthorized,
	failure.Forbidden:        http.StatusForbidden,
	failure.NotFound:         http.StatusNotFound,
	failure.ValidationFailed: http.StatusUnprocessableEntity,
	failure.Conflict:         http.StatusConflict,
	failure.PolicyDenied:     http.StatusUnprocessableEntity,
	failure.RateLimited:      http.StatusTooManyRequests,
	failure.Internal:         http.StatusInternalServerError,
}

// authenticate resolves the bearer key to a principal before any GraphQL
// work happens. A client address with too many failed attempts is refused
// before its key is even read, and a malformed key never reaches the
// database. A key whose bucket is empty is refused here; the operation is
// charged per root field later (rootFieldCharge).
func authenticate(d Deps, limiter, failures *rateLimiter, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
		defer cancel()
		addr := clientAddr(r)
		if wait, ok := failures.wait(addr); !ok {
			writeRateLimited(w, rateLimited(wait))
			return
		}
		key, err := auth.ParseBearer(r.Header.Get("Authorization"))
		var p auth.Principal
		if err == nil {
			p, err = d.Auth.Authenticate(ctx, key)
		}
		if err != nil {
			if failure.CodeOf(err) != failure.Unauthenticated {
				d.Logger.ErrorContext(ctx, "authenticate", "err", err)
				writeGraphQLError(w, http.StatusServiceUnavailable, failure.Errorf(failure.Internal, "service unavailable, retry shortly"))
				return
			}
			failures.allowN(addr, 1)
			w.Header().Set("WWW-Authenticate", `Bearer realm="agenttrust"`)
			writeGraphQLError(w, http.StatusUnauthorized, failure.As(err))
			return
		}
		if wait, ok := limiter.wait(p.KeyID); !ok {
			writeRateLimited(w, rateLimited(wait))
			return
		}
		setOrg(r.Context(), p.OrgID)
		next.ServeHTTP(w, r.WithContext(auth.WithPrincipal(r.Context(), p)))
	})
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

func writeRateLimited(w http.ResponseWriter, fe *failure.Error) {
	w.Header().Set("Retry-After", strconv.Itoa(fe.Extensions["retryAfter"].(int)))
	writeGraphQLError(w, http.StatusTooManyRequests, fe)
}

// writeGraphQLError answers a request refused before execution with a
// GraphQL-shaped body, so GraphQL clients read the code like any other.
func writeGraphQLError(w http.ResponseWriter, status int, fe *failure.Error) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	encodeGraphQLError(w, fe)
}

// encodeGraphQLError writes the body of writeGraphQLError.
func encodeGraphQLError(w io.Writer, fe *failure.Error) {
	ext := map[string]any{"code": string(fe.Code)}
	if len(fe.FieldErrors) > 0 {
		ext["fieldErrors"] = fe.FieldErrors
	}
	for k, v := range fe.Extensions {
		ext[k] = v
	}
	_ = json.NewEncoder(w).Encode(map[string]any{
		"errors": []map[string]any{{"message": fe.Message, "extensions": ext}},
	})
}

// StatusOf maps an error to its HTTP status through the one table.
func StatusOf(err error) int {
	if errors.Is(err, context.DeadlineExceeded) {
		return http.StatusServiceUnavailable
	}
	return httpStatus[failure.CodeOf(err)]
}
