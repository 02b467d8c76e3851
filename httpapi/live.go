package httpapi

import (
	"context"
	"errors"
	"sync"

	"github.com/agenttrust/service/failure"
	"github.com/agenttrust/service/live"
)

// Close codes of live connections (graphql-transport-ws reserves 4400-4499
// for the application).
const (
	closeNormal       = 1000
	closeInternal     = 1011
	closeUnauthorized = 4401 // missing, bad or revoked API key
	closeRateLimited  = 4429 // too many connection attempts for the key, or a live cap reached
	closeSlowConsumer = 4420 // fell behind: resubscribe with after
)

// liveConn is one websocket or SSE connection serving operations: what the
// edge needs to close it with a reason (revoked key, slow consumer,
// shutdown).
type liveConn struct {
	transport string
	cancel    context.CancelFunc
	uw        *upgradeWriter // websocket: released once the connection is hijacked

	mu sync.Mutex
	// up (websocket) is what connection_init needs of the upgrade request,
	// until it has been answered.
	up upgrade
	// handoff (websocket) tells serveWebsocket how gqlgen's handling of the
	// upgrade request ended: upgraded, or returned (with its panic, if any).
	// It is nil once told.
	handoff chan any
	keyID   string // once authenticated
	// pendingAddr (websocket) is the address counted against the cap of
	// connections without connection_init, until settleInit; orgID is the
	// organization counted against its cap of connections, once joined.
	pendingAddr string
	orgID       string
	ws          *wsConn
	sse         *sseWriter
	closed      bool
	// subs counts operations whose "complete" is not yet written; a
	// pending close waits for them (shutdown) or for the next one (slow
	// consumer), so the events already handed over reach the peer first.
	subs    int
	pending *pendingClose
	// writing counts completes being written: a close waits for them too,
	// or its frame could overtake them on the wire.
	writing int
}

type pendingClose struct {
	code      int
	reason    string
	immediate bool // at the next complete, dropping it; else once subs is 0
}

func liveConnFrom(ctx context.Context) *liveConn {
	lc, _ := live.ConnFrom(ctx).(*liveConn)
	return lc
}

// Transport names the connection's transport for the live metrics.
func (lc *liveConn) Transport() string { return lc.transport }

// upgraded is what attach hands off: the connection is the websocket's now.
type upgraded struct{}

// tellLocked hands v to serveWebsocket, once.
func (lc *liveConn) tellLocked(v any) {
	if lc.handoff != nil {
		lc.handoff <- v
		lc.handoff = nil
	}
}

// attach binds the upgraded websocket, which releases the HTTP handler.
func (lc *liveConn) attach(ws *wsConn) {
	lc.mu.Lock()
	defer lc.mu.Unlock()
	lc.ws = ws
	ws.lc = lc
	if lc.closed {
		_ = ws.Close()
	}
	if lc.uw != nil {
		lc.uw.w = nil
	}
	lc.tellLocked(upgraded{})
}

func (lc *liveConn) isUpgraded() bool {
	lc.mu.Lock()
	defer lc.mu.Unlock()
	return lc.ws != nil
}

// close ends the connection: a websocket gets a close frame with code and
// reason, an SSE stream an error event (errCode, closeCode) before it
// completes.
func (lc *liveConn) close(code int, errCode failure.Code, reason string, ext map[string]any) {
	lc.mu.Lock()
	if lc.closed {
		lc.mu.Unlock()
		return
	}
	lc.closed = true
	ws, sse := lc.ws, lc.sse
	lc.mu.Unlock()
	if ws != nil {
		_ = ws.WriteClose(code, reason)
	}
	if sse != nil {
		sse.fail(errCode, reason, code, ext)
	}
	lc.cancel()
}

// opStarted counts an operation of the connection: gqlgen ends each one,
// subscription or not, with one complete message.
func (lc *liveConn) opStarted() {
	lc.mu.Lock()
	lc.subs++
	lc.mu.Unlock()
}

// EndLive closes the connection of a subscription that fell behind, after
// the events it was handed (the stream's complete marks the point).
func (lc *liveConn) EndLive(reason error, resumeAfter string) {
	msg := "slow consumer: resubscribe"
	if resumeAfter != "" {
		msg += " with after=" + resumeAfter
	}
	if !errors.Is(reason, live.ErrSlowConsumer) {
		msg = reason.Error()
	}
	lc.mu.Lock()
	sse := lc.sse
	if lc.ws != nil && !lc.closed {
		lc.pending = &pendingClose{code: closeSlowConsumer, reason: msg, immediate: true}
	}
	lc.mu.Unlock()
	if sse != nil {
		sse.fail(failure.RateLimited, msg, closeSlowConsumer, map[string]any{"resumeAfter": resumeAfter, "retryAfter": 0})
	}
}

// closeWhenIdle closes a websocket normally once every subscription on it
// has written its complete.
func (lc *liveConn) closeWhenIdle(code int, reason string) {
	lc.mu.Lock()
	if (lc.subs > 0 || lc.writing > 0) && lc.ws != nil && !lc.closed {
		lc.pending = &pendingClose{code: code, reason: reason}
		lc.mu.Unlock()
		return
	}
	lc.mu.Unlock()
	lc.close(code, "", reason, nil)
}

// completing is told by the websocket that it is about to write a complete
// message; it answers whether to write it and whether to close after. A
// complete written without a close after is counted until wroteComplete.
func (lc *liveConn) completing() (write bool, closeAfter *pendingClose) {
	lc.mu.Lock()
	defer lc.mu.Unlock()
	if lc.subs > 0 {
		lc.subs--
	}
	p := lc.pending
	switch {
	case p != nil && p.immediate:
		lc.closed = true
		return false, p
	case p != nil && lc.subs == 0 && lc.writing == 0:
		lc.closed = true
		return true, p
	}
	lc.writing++
	return true, nil
}

// wroteComplete is told that a complete completing counted was written (or
// failed); it answers the close that waited for it, if any.
func (lc *liveConn) wroteComplete() *pendingClose {
	lc.mu.Lock()
	defer lc.mu.Unlock()
	lc.writing--
	if p := lc.pending; p != nil && !lc.closed && lc.subs == 0 && lc.writing == 0 {
		lc.closed = true
		return p
	}
	return nil
}

// tracksCompletes says whether the websocket must look for complete messages.
func (lc *liveConn) tracksCompletes() bool {
	lc.mu.Lock()
	defer lc.mu.Unlock()
	return lc.subs > 0 || lc.pending != nil
}
