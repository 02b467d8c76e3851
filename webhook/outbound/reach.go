package outbound

import (
	"context"
	"crypto/tls"
	"errors"
	"net/http/httptrace"
	"net/url"
	"strings"
	"sync/atomic"
)

// What a request that got no HTTP answer is said to have come to. Each says
// how far the request got and nothing of this server's network: no resolver
// address, no dial error, no certificate detail, so that registering a URL
// cannot probe hosts and ports through the answer's wording.
const (
	ReasonForbidden   = "not reachable: " + forbiddenText
	ReasonUnreachable = "not reachable"
	ReasonTLS         = "TLS failed"
	ReasonTimeout     = "timed out waiting for the endpoint"
	ReasonNoAnswer    = "did not answer"
	ReasonBigHeaders  = "the answer's headers are too large"
	ReasonCanceled    = "canceled before the endpoint answered" // the caller's context ended
)

// Error is why a request got no HTTP answer. Its text is Reason, safe to
// show to the endpoint's owner; the cause it wraps is for the server's log.
type Error struct {
	Reason string
	Err    error
}

// Error returns the reason only.
func (e *Error) Error() string { return e.Reason }

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// progress records how far one request got, from the transport's trace
// hooks; a dial may report after the request gave up, hence the atomics.
type progress struct {
	connected, tlsStarted, tlsDone atomic.Bool
}

// trace returns ctx with hooks that record into p.
func (p *progress) trace(ctx context.Context) context.Context {
	return httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		ConnectDone: func(_, _ string, err error) {
			if err == nil {
				p.connected.Store(true)
			}
		},
		GotConn:           func(httptrace.GotConnInfo) { p.connected.Store(true) },
		TLSHandshakeStart: func() { p.tlsStarted.Store(true) },
		TLSHandshakeDone: func(_ tls.ConnectionState, err error) {
			if err == nil {
				p.tlsDone.Store(true)
			}
		},
	})
}

// describe says how far a request that failed with err got.
func (p *progress) describe(err error) *Error {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	reason := ReasonNoAnswer
	switch {
	case errors.Is(err, ErrForbiddenAddress):
		reason = ReasonForbidden
	case errors.Is(err, context.Canceled):
		reason = ReasonCanceled
	case strings.HasPrefix(err.Error(), "net/http: invalid header"):
		// The request's own fault, found before dialing: net/http has no
		// error value for it, and its text names only the header.
		reason = err.Error()
	case !p.connected.Load():
		reason = ReasonUnreachable // no such name, refused, filtered: all alike
	case p.tlsStarted.Load() && !p.tlsDone.Load():
		reason = ReasonTLS
	case errors.Is(err, context.DeadlineExceeded) || isTimeout(err):
		reason = ReasonTimeout
	case strings.Contains(err.Error(), "response headers exceeded"):
		// net/http has no error value for it, only this message.
		reason = ReasonBigHeaders
	}
	return &Error{Reason: reason, Err: err}
}

func isTimeout(err error) bool {
	var t interface{ Timeout() bool }
	return errors.As(err, &t) && t.Timeout()
}
