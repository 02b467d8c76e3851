package httpapi

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler/transport"

	"github.com/agenttrust/service/auth"
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

// upgradeWriter is the response writer gqlgen gets for a websocket. Once
// the connection is hijacked it lets go of net/http's writer, so the
// connection's goroutine, which runs as long as the websocket, does not keep
// the HTTP connection's buffers and state reachable.
type upgradeWriter struct{ w http.ResponseWriter }

func (u *upgradeWriter) Header() http.Header {
	if u.w == nil {
		return http.Header{}
	}
	return u.w.Header()
}

func (u *upgradeWriter) Write(b []byte) (int, error) {
	if u.w == nil {
		return 0, http.ErrHijacked
	}
	return u.w.Write(b)
}

func (u *upgradeWriter) WriteHeader(code int) {
	if u.w != nil {
		u.w.WriteHeader(code)
	}
}

// Hijack hands the connection to the websocket.
func (u *upgradeWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	if u.w == nil {
		return nil, nil, http.ErrHijacked
	}
	return http.NewResponseController(u.w).Hijack()
}

// Unwrap lets http.ResponseController reach the writer.
func (u *upgradeWriter) Unwrap() http.ResponseWriter { return u.w }

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

// liveConns tracks the open live connections of one edge: it closes those
// of a key as soon as the process hears of its revocation (revoked), and,
// in case a notification was lost, re-checks their keys in one statement
// every interval; it closes them all at shutdown.
type liveConns struct {
	keys    auth.KeyChecker
	every   time.Duration
	log     *slog.Logger
	metrics *live.Metrics

	mu       sync.Mutex
	conns    map[*liveConn]struct{}
	checking bool
	stopHook func() // ends the OnRevoke calls, while checking
	closing  bool
	wg       sync.WaitGroup
}

// add registers lc; false once shutdown has begun.
func (l *liveConns) add(lc *liveConn) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closing {
		return false
	}
	l.conns[lc] = struct{}{}
	l.wg.Add(1)
	l.metrics.Connections.WithLabelValues(lc.transport).Inc()
	if !l.checking && l.keys != nil {
		l.checking = true
		l.stopHook = l.keys.OnRevoke(l.revoked)
		go l.checkKeys()
	}
	return true
}

func (l *liveConns) remove(lc *liveConn) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.conns, lc)
	l.metrics.Connections.WithLabelValues(lc.transport).Dec()
	l.wg.Done()
}

// checkKeys closes connections whose key was revoked, on every replica,
// within one interval, should the revocation's notification not have
// closed them already. It runs while connections are open.
func (l *liveConns) checkKeys() {
	t := time.NewTicker(l.every)
	defer t.Stop()
	for range t.C {
		l.mu.Lock()
		byKey := map[string][]*liveConn{}
		for lc := range l.conns {
			lc.mu.Lock()
			if lc.keyID != "" {
				byKey[lc.keyID] = append(byKey[lc.keyID], lc)
			}
			lc.mu.Unlock()
		}
		if len(l.conns) == 0 {
			l.checking = false
			l.stopHook()
			l.mu.Unlock()
			return
		}
		l.mu.Unlock()
		if len(byKey) == 0 {
			continue
		}
		ids := make([]string, 0, len(byKey))
		for id := range byKey {
			ids = append(ids, id)
		}
		ctx, cancel := context.WithTimeout(context.Background(), l.every)
		revoked, err := l.keys.RevokedKeys(ctx, ids)
		cancel()
		if err != nil {
			l.log.Warn("live connections: check revoked keys", "err", err)
			continue
		}
		for _, id := range revoked {
			l.log.Info("live events: closing the connections of a revoked key", "key_id", id, "connections", len(byKey[id]))
			for _, lc := range byKey[id] {
				lc.close(closeUnauthorized, failure.Unauthenticated, "API key revoked", nil)
			}
		}
	}
}

// shutdown closes every connection normally and waits for their handlers.
func (l *liveConns) shutdown(ctx context.Context) error {
	l.mu.Lock()
	l.closing = true
	conns := make([]*liveConn, 0, len(l.conns))
	for lc := range l.conns {
		conns = append(conns, lc)
	}
	l.mu.Unlock()
	for _, lc := range conns {
		if lc.transport == "websocket" {
			lc.closeWhenIdle(closeNormal, "server shutting down")
		}
	}
	done := make(chan struct{})
	go func() { l.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		for _, lc := range conns {
			lc.close(closeNormal, "", "server shutting down", nil)
		}
		return ctx.Err()
	}
}

// serveWebsocket runs one websocket connection through gqlgen. The key may
// come with the upgrade request or in connection_init (initFunc).
//
// The connection runs on a goroutine of its own, and the HTTP handler
// returns as soon as the connection is upgraded: net/http then releases what
// it holds per connection while a handler runs (its buffered writer, the
// connection and request state, the handler chain's deep stack), which an
// idle websocket would otherwise keep for its whole life. The request log
// records the upgrade.
func (e *Edge) serveWebsocket(w http.ResponseWriter, r *http.Request) {
	if !originAllowed(e.cfg.WSAllowedOrigins, r) {
		writeGraphQLErrorStatus(w, http.StatusForbidden, failure.Errorf(failure.Forbidden,
			"origin %s may not open websockets here (see WS_ALLOWED_ORIGINS)", r.Header.Get("Origin")))
		return
	}
	// The connection's context is its own, not the request's: net/http
	// cancels that one when the handler returns, and its values (net/http's
	// per-connection state, the request's deadline) would stay reachable for
	// the connection's life. It carries the request's id for the log lines.
	ctx, cancel := context.WithCancel(context.Background())
	if ri, ok := r.Context().Value(requestInfoKey{}).(*requestInfo); ok {
		// The request line is logged when the handler returns; the
		// connection's lines carry the same id and, once authenticated,
		// its organization.
		ctx = context.WithValue(ctx, requestInfoKey{}, &requestInfo{id: ri.id})
	}
	addr := clientAddr(r)
	if fe := e.caps.take(r.Context(), capUnauthenticated, addrBucket(addr)); fe != nil {
		cancel()
		// The connection goes too: a refused client keeps no descriptor or
		// goroutine waiting for its next request.
		w.Header().Set("Connection", "close")
		writeGraphQLErrorStatus(w, fe.Code.HTTPStatus(), fe)
		return
	}
	handoff := make(chan any, 1)
	lc := &liveConn{transport: "websocket", cancel: cancel, handoff: handoff, pendingAddr: addrBucket(addr),
		up: upgrade{addr: addr, header: r.Header.Get("Authorization")}}
	if !e.conns.add(lc) {
		e.settleInit(lc)
		cancel()
		writeGraphQLErrorStatus(w, http.StatusServiceUnavailable, failure.Errorf(failure.Internal, "the server is shutting down: reconnect"))
		return
	}
	ctx = live.WithConn(ctx, lc)
	// Nothing the connection keeps may reach net/http's per-connection
	// state: not the response writer once hijacked, not the body (which
	// limitBody tied to the writer). The request's headers go once the
	// handshake has read them (gorillaWS.Accept).
	r = r.WithContext(ctx)
	r.Body = http.NoBody
	uw := &upgradeWriter{w: w}
	lc.uw = uw
	go e.runWebsocket(uw, r, lc)
	switch p := <-handoff; p.(type) {
	case upgraded: // w belongs to the hijacked connection now
	case nil: // refused before the upgrade: gqlgen answered on w
	default:
		panic(p)
	}
}

// runWebsocket serves one websocket connection on a goroutine of its own,
// then ends lc; if the connection was never upgraded, serveWebsocket is
// told how it ended. Nothing here refers to r once gqlgen has it, so the
// connection's life does not keep the request reachable.
func (e *Edge) runWebsocket(w http.ResponseWriter, r *http.Request, lc *liveConn) {
	ctx := r.Context()
	var p any
	defer func() {
		if p != nil && lc.isUpgraded() {
			// The handler is gone: log what requestLog would have.
			e.deps.Logger.ErrorContext(ctx, "panic", "panic", p)
		}
		lc.cancel()
		e.settleInit(lc)
		e.leaveOrg(lc)
		e.conns.remove(lc)
		lc.mu.Lock()
		lc.tellLocked(p)
		lc.mu.Unlock()
	}()
	defer func() { p = recover() }()
	e.gqlWS.ServeHTTP(w, r)
}

// upgrade is what initFunc needs of the upgrade request.
type upgrade struct{ addr, header string }

// initFunc authenticates a websocket at connection_init: the upgrade
// request's Authorization header, else the payload's (either spelling). A
// refusal closes the connection (4401, or 4429 when the key is over its rate
// of connection attempts) before any operation runs.
func (e *Edge) initFunc(ctx context.Context, payload transport.InitPayload) (context.Context, *transport.InitPayload, error) {
	lc := liveConnFrom(ctx)
	var up upgrade
	if lc != nil {
		defer e.settleInit(lc)
		lc.mu.Lock()
		up, lc.up = lc.up, upgrade{} // the key is not kept for the connection's life
		lc.mu.Unlock()
	}
	header := up.header
	if header == "" {
		header = payload.Authorization()
	}
	refuse := func(code int, fe *failure.Error) (context.Context, *transport.InitPayload, error) {
		msg := fe.Message
		return transport.AppendCloseReason(transport.WithWebsocketCloseCode(ctx, code), msg), nil, fe
	}
	p, fe := principal(ctx, e.deps, e.failures, up.addr, header)
	switch {
	case fe != nil && fe.Code == failure.Internal:
		return refuse(closeInternal, fe)
	case fe != nil && fe.Code == failure.RateLimited:
		return refuse(closeRateLimited, fe)
	case fe != nil:
		return refuse(closeUnauthorized, fe)
	}
	if wait, ok := e.limiter.allowN(p.OrgID, 1); !ok {
		return refuse(closeRateLimited, rateLimited(wait))
	}
	if lc != nil {
		if fe := e.joinOrg(ctx, lc, p.OrgID); fe != nil {
			return refuse(closeRateLimited, fe)
		}
		lc.mu.Lock()
		lc.keyID = p.KeyID
		lc.mu.Unlock()
	}
	authed := auth.WithPrincipal(ctx, p)
	ack, fe := e.ackPayload(authed)
	if fe != nil {
		return refuse(closeInternal, fe)
	}
	return authed, ack, nil
}

// ackPayload is connection_ack's payload: the event log's position now
// ({"position": "pos_…"}), which events(after:) accepts, so that a client
// can stream everything committed from the moment it connected on and
// resume from there even before its first event.
func (e *Edge) ackPayload(ctx context.Context) (*transport.InitPayload, *failure.Error) {
	hub := e.deps.Services.Live
	if hub == nil {
		return nil, nil
	}
	pos, err := hub.Position(ctx)
	if err != nil {
		e.deps.Logger.WarnContext(ctx, "live events: read the log position for connection_ack", "err", err)
		return nil, unavailableError()
	}
	return &transport.InitPayload{"position": pos}, nil
}

// serveSSE runs a graphql-sse ("distinct connections") request as a live
// connection: tracked, and ended with an error event when its key is
// revoked or it falls behind.
func (e *Edge) serveSSE(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !(transport.SSE{}).Supports(r) {
			next.ServeHTTP(w, r)
			return
		}
		p, _ := auth.FromContext(r.Context())
		if fe := e.caps.take(r.Context(), capConnections, p.OrgID); fe != nil {
			writeGraphQLErrorStatus(w, fe.Code.HTTPStatus(), fe)
			return
		}
		defer e.caps.release(capConnections, p.OrgID)
		ctx, cancel := context.WithCancel(r.Context())
		defer cancel()
		sw := &sseWriter{ResponseWriter: w, rc: http.NewResponseController(w), timeout: e.cfg.LiveWriteTimeout, broken: cancel}
		lc := &liveConn{transport: "sse", cancel: cancel, keyID: p.KeyID, sse: sw}
		if !e.conns.add(lc) {
			writeGraphQLErrorStatus(w, http.StatusServiceUnavailable, failure.Errorf(failure.Internal, "the server is shutting down: reconnect"))
			return
		}
		defer e.conns.remove(lc)
		defer sw.end()
		ctx = live.WithConn(ctx, lc)
		next.ServeHTTP(sw, r.WithContext(ctx))
	})
}

// sseWriter lets the edge put an error event before gqlgen's final
// "complete" when it ends a stream early, and gives every write the live
// write deadline: a stream whose peer does not read ends when a write or
// flush cannot finish in time, as a websocket does, instead of holding its
// subscription, goroutine and unsent events.
type sseWriter struct {
	http.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration
	broken  context.CancelFunc // ends the stream's operation: gqlgen ignores write errors

	mu     sync.Mutex
	failed []byte

	// wmu serialises writes with end: gqlgen's keep-alive goroutine may
	// still write after its handler returned, when the response is gone.
	wmu   sync.Mutex
	ended bool
}

func (s *sseWriter) fail(code failure.Code, msg string, closeCode int, ext map[string]any) {
	x := map[string]any{"code": string(code), "closeCode": closeCode}
	for k, v := range ext {
		x[k] = v
	}
	b, _ := json.Marshal(map[string]any{"errors": []map[string]any{{"message": msg, "extensions": x}}})
	s.mu.Lock()
	s.failed = fmt.Appendf(nil, "event: next\ndata: %s\n\n", b)
	s.mu.Unlock()
}

func (s *sseWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	failed := s.failed
	if failed != nil && strings.HasPrefix(string(p), "event: complete") {
		s.failed = nil
	} else {
		failed = nil
	}
	s.mu.Unlock()
	if failed != nil {
		if err := s.write(failed); err != nil {
			return 0, err
		}
	}
	if err := s.write(p); err != nil {
		return 0, err
	}
	return len(p), nil
}

// errStreamEnded refuses a write to an SSE stream whose handler returned.
var errStreamEnded = errors.New("the event stream has ended")

// write writes p within the deadline; a failure ends the stream.
func (s *sseWriter) write(p []byte) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if s.ended {
		return errStreamEnded
	}
	_ = s.rc.SetWriteDeadline(time.Now().Add(s.timeout))
	if _, err := s.ResponseWriter.Write(p); err != nil {
		s.broken()
		return err
	}
	return nil
}

// Flush supports streaming; a flush that cannot finish within the deadline
// ends the stream.
func (s *sseWriter) Flush() {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if s.ended {
		return
	}
	_ = s.rc.SetWriteDeadline(time.Now().Add(s.timeout))
	if err := s.rc.Flush(); err != nil {
		s.broken()
	}
}

// end makes later writes fail: the handler has returned.
func (s *sseWriter) end() {
	s.wmu.Lock()
	s.ended = true
	s.wmu.Unlock()
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (s *sseWriter) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// countWebsocketOperation counts each operation a websocket starts, which
// shutdown and slow-consumer closes wait on. Its rate-limit charge is
// costCharge's, as on every transport.
func (e *Edge) countWebsocketOperation(ctx context.Context, next graphql.OperationHandler) graphql.ResponseHandler {
	if lc := liveConnFrom(ctx); lc != nil && lc.transport == "websocket" {
		lc.opStarted()
	}
	return next(ctx)
}
