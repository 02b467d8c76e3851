package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"math"
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

// authenticate resolves the bearer key to a principal and applies the
// per-key rate limit before any GraphQL work happens.
// writeErr answers a refusal in the edge's own error shape.
func authenticate(d Deps, limiter *rateLimiter, writeErr func(http.ResponseWriter, int, *failure.Error), next http.Handler) http.Handler {
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
				d.Logger.ErrorContext(ctx, "authenticate", "err", err)
				writeErr(w, http.StatusServiceUnavailable, failure.Errorf(failure.Internal, "service unavailable, retry shortly"))
				return
			}
			w.Header().Set("WWW-Authenticate", `Bearer realm="agenttrust"`)
			writeErr(w, http.StatusUnauthorized, failure.As(err))
			return
		}
		if wait, ok := limiter.allow(p.KeyID); !ok {
			secs := int(math.Ceil(wait.Seconds()))
			w.Header().Set("Retry-After", strconv.Itoa(secs))
			fe := failure.Errorf(failure.RateLimited, "rate limit exceeded: retry in %d s", secs)
			fe.Extensions = map[string]any{"retryAfter": secs}
			writeErr(w, http.StatusTooManyRequests, fe)
			return
		}
		setOrg(r.Context(), p.OrgID)
		next.ServeHTTP(w, r.WithContext(auth.WithPrincipal(r.Context(), p)))
	})
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
