package httpapi

import (
	"bufio"
	"context"
	"net"
	"net/http"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler/transport"

	"github.com/agenttrust/service/auth"
	"github.com/agenttrust/service/failure"
	"github.com/agenttrust/service/live"
)

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

// countWebsocketOperation counts each operation a websocket starts, which
// shutdown and slow-consumer closes wait on. Its rate-limit charge is
// costCharge's, as on every transport.
func (e *Edge) countWebsocketOperation(ctx context.Context, next graphql.OperationHandler) graphql.ResponseHandler {
	if lc := liveConnFrom(ctx); lc != nil && lc.transport == "websocket" {
		lc.opStarted()
	}
	return next(ctx)
}
