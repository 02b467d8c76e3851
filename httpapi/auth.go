package httpapi

import (
	"context"
	"math"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/agenttrust/service/auth"
	"github.com/agenttrust/service/failure"
)

// refuser answers a request refused at the edge in one transport's error
// shape: writeGraphQLErrorStatus or writeRESTError.
type refuser func(w http.ResponseWriter, status int, fe *failure.Error)

// authenticate resolves the bearer key to a principal before any GraphQL
// work happens. A key whose bucket is empty is refused here; each operation
// is charged per root field later (rootFieldCharge), so the edge only checks.
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
//
// A GraphQL request (not charge, not a stream) whose key the store recalls
// (auth.KeyRecaller) starts without a lookup: its key is confirmed within
// the request instead (auth.KeyCheck, confirmKeyFirst, confirmWriter), before
// anything is answered or executed.
func authenticateWith(d Deps, limiter, failures *rateLimiter, refuse refuser, charge bool, next http.Handler) http.Handler {
	recaller, _ := d.Auth.(auth.KeyRecaller)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		addr, header := clientAddr(r), r.Header.Get("Authorization")
		ctx := r.Context()
		p, recalled := auth.Principal{}, false
		if recaller != nil && !charge && !(transport.SSE{}).Supports(r) {
			p, recalled = recall(recaller, failures, addr, header)
		}
		if recalled {
			out := w
			cw := &confirmWriter{ResponseWriter: out, confirm: confirmer(ctx, d, failures, addr, header, p),
				refuse: func(fe *failure.Error) { refuseAuth(out, refuse, fe) }}
			w = cw
			defer cw.check() // a request that wrote nothing is confirmed too
			ctx = context.WithValue(auth.WithKeyCheck(ctx, cw.confirm.check), confirmKey{}, cw.confirm)
		} else {
			var fe *failure.Error
			if p, fe = principal(ctx, d, failures, addr, header); fe != nil {
				refuseAuth(w, refuse, fe)
				return
			}
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

// recall returns the principal the store remembers for the key in header,
// if any, running no statement. An address over its budget of failed
// attempts recalls nothing (principal refuses it).
func recall(recaller auth.KeyRecaller, failures *rateLimiter, addr, header string) (auth.Principal, bool) {
	if _, ok := failures.wait(addr); !ok {
		return auth.Principal{}, false
	}
	key, err := auth.ParseBearer(header)
	if err != nil {
		return auth.Principal{}, false
	}
	return recaller.Recall(key)
}

// keyConfirmer confirms a recalled key once: unless a statement of the
// request already did (auth.Confirm), it looks the key up as principal does
// and answers nil for a live key, or the refusal.
type keyConfirmer struct {
	check  *auth.KeyCheck
	lookup func() (auth.Principal, *failure.Error)
	want   auth.Principal
	mu     sync.Mutex
}

func confirmer(ctx context.Context, d Deps, failures *rateLimiter, addr, header string, p auth.Principal) *keyConfirmer {
	return &keyConfirmer{check: &auth.KeyCheck{KeyID: p.KeyID}, want: p,
		lookup: func() (auth.Principal, *failure.Error) { return principal(ctx, d, failures, addr, header) }}
}

func (c *keyConfirmer) confirm() *failure.Error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if done, live := c.check.State(); done {
		if live {
			return nil
		}
		return failure.As(auth.Revoked())
	}
	p, fe := c.lookup()
	if fe == nil && p != c.want {
		fe = failure.As(auth.Revoked())
	}
	if fe != nil {
		if fe.Code == failure.Unauthenticated {
			c.check.Refuse()
		}
		return fe
	}
	c.check.Live()
	return nil
}

type confirmKey struct{}

// confirmKeyFirst confirms a recalled key before an operation runs, unless
// every root field it selects confirms the key in its own first statement
// (foldsKeyCheck) or touches no data (__typename): any other mutation or
// read never runs for a key that is not confirmed live.
type confirmKeyFirst struct{}

var _ interface {
	graphql.HandlerExtension
	graphql.OperationContextMutator
} = confirmKeyFirst{}

// foldsKeyCheck are the root fields that check a recalled key (auth.Fold)
// in their own first statement — for a mutation, inside its transaction
// before anything is written — so the request needs no lookup of its own.
// A statement that returns no row (an empty page, an unknown agent) says
// nothing about the key; confirmWriter then looks it up before answering.
var foldsKeyCheck = map[ast.Operation]map[string]bool{
	ast.Query:    {"evaluateTrust": true, "agents": true}, // db.readParties, AgentService.List
	ast.Mutation: {"executeTransaction": true},            // db.lockParties
}

func (confirmKeyFirst) ExtensionName() string                   { return "ConfirmKeyFirst" }
func (confirmKeyFirst) Validate(graphql.ExecutableSchema) error { return nil }

func (confirmKeyFirst) MutateOperationContext(ctx context.Context, oc *graphql.OperationContext) *gqlerror.Error {
	c, ok := ctx.Value(confirmKey{}).(*keyConfirmer)
	if !ok || oc.Operation == nil {
		return nil
	}
	folds := foldsKeyCheck[oc.Operation.Operation]
	all := folds != nil
	for name := range rootFields(oc.Operation.SelectionSet, oc.Doc.Fragments) {
		all = all && folds[name]
	}
	if all {
		return nil
	}
	if fe := c.confirm(); fe != nil {
		return gqlerror.WrapIfUnwrapped(fe)
	}
	return nil
}

// confirmWriter holds back a request's answer until its recalled key is
// confirmed, and answers the refusal instead when it is not.
type confirmWriter struct {
	http.ResponseWriter
	confirm *keyConfirmer
	refuse  func(*failure.Error)
	checked bool
	refused bool
}

// check confirms the key on the first call and reports whether the answer may go out.
func (w *confirmWriter) check() bool {
	if !w.checked {
		w.checked = true
		if fe := w.confirm.confirm(); fe != nil {
			w.refused = true
			h := w.ResponseWriter.Header()
			for _, name := range []string{"Retry-After", "Allow", "Content-Type", "Cache-Control", "Content-Length"} {
				h.Del(name)
			}
			w.refuse(fe)
		}
	}
	return !w.refused
}

func (w *confirmWriter) WriteHeader(code int) {
	if w.check() {
		w.ResponseWriter.WriteHeader(code)
	}
}

func (w *confirmWriter) Write(b []byte) (int, error) {
	if !w.check() {
		return len(b), nil
	}
	return w.ResponseWriter.Write(b)
}

func (w *confirmWriter) Flush() {
	if w.check() {
		_ = http.NewResponseController(w.ResponseWriter).Flush()
	}
}

func (w *confirmWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

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
