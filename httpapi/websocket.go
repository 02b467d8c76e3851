package httpapi

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/gorilla/websocket"
)

// gorillaWS is gqlgen's websocket transport on github.com/gorilla/websocket.
type gorillaWS struct {
	ping  time.Duration // websocket ping interval; a peer silent for two of them is dropped
	write time.Duration // the live write deadline: a message not written within it closes the connection
}

var _ transport.WebsocketImplementation = gorillaWS{}

// writeBuffers lends write buffers only while a message is written, so an
// idle connection holds none.
var writeBuffers sync.Pool

// wsReadBuffer is each connection's read buffer: a client sends little (an
// init, a few operations, pongs), and larger messages are read through it.
// Given a size, gorilla does not keep the HTTP server's 4 KiB reader, which
// the server then frees with the rest of the connection's HTTP state.
const wsReadBuffer = 256

// Accept upgrades the request; the origin was checked before.
func (g gorillaWS) Accept(w http.ResponseWriter, r *http.Request, o transport.WebsocketAcceptOptions) (transport.WebsocketConn, error) {
	up := websocket.Upgrader{
		HandshakeTimeout: 10 * time.Second,
		ReadBufferSize:   wsReadBuffer,
		WriteBufferPool:  &writeBuffers,
		Subprotocols:     o.Subprotocols,
		CheckOrigin:      func(*http.Request) bool { return true },
	}
	c, err := up.Upgrade(w, r, o.ResponseHeader)
	if err != nil {
		return nil, err
	}
	// gqlgen keeps the request's headers for the connection's life, to hand
	// to each operation; nothing here reads them after the handshake.
	r.Header = nil
	ws := &wsConn{c: c, idle: 2*g.ping + 5*time.Second, write: g.write}
	_ = c.SetReadDeadline(time.Now().Add(ws.idle))
	c.SetPongHandler(func(string) error { return c.SetReadDeadline(time.Now().Add(ws.idle)) })
	ws.pinger = time.AfterFunc(g.ping, func() { ws.pingEvery(g.ping) })
	if lc := liveConnFrom(r.Context()); lc != nil {
		lc.attach(ws)
	}
	return ws, nil
}

// wsConn adapts a gorilla connection to gqlgen's transport.WebsocketConn.
// gqlgen serialises its writes; control frames (ping, close) may be written
// concurrently, which gorilla allows.
type wsConn struct {
	c         *websocket.Conn
	idle      time.Duration
	write     time.Duration
	pinger    *time.Timer
	closeSent atomic.Bool
	lc        *liveConn // set by attach; nil outside the edge
}

// pingEvery sends a ping frame from a timer, not a goroutine: an idle
// connection costs no stack.
func (ws *wsConn) pingEvery(d time.Duration) {
	if err := ws.c.WriteControl(websocket.PingMessage, nil, time.Now().Add(5*time.Second)); err != nil {
		return
	}
	ws.pinger.Reset(d)
}

// NextReader returns the next message; any message from the peer extends
// the read deadline. A normal close is transport.ErrWebsocketClosed.
func (ws *wsConn) NextReader() (int, io.Reader, error) {
	mt, r, err := ws.c.NextReader()
	if err != nil {
		if websocket.IsCloseError(err, websocket.CloseNormalClosure, websocket.CloseGoingAway, websocket.CloseNoStatusReceived) {
			return 0, nil, transport.ErrWebsocketClosed
		}
		return 0, nil, err
	}
	_ = ws.c.SetReadDeadline(time.Now().Add(ws.idle))
	return mt, r, nil
}

func (ws *wsConn) Subprotocol() string { return ws.c.Subprotocol() }

// SetReadLimit bounds one message from the client.
func (ws *wsConn) SetReadLimit(n int64) { ws.c.SetReadLimit(n) }

// WriteJSON writes one message; a write that cannot finish within the live
// write deadline closes the connection, so a stuck peer cannot hold its subscriptions open.
func (ws *wsConn) WriteJSON(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	write, after, counted := true, (*pendingClose)(nil), false
	// Both sub-protocols' messages encode "type" last, and a complete
	// carries no payload.
	if bytes.HasSuffix(b, []byte(`"type":"complete"}`)) && ws.lc != nil && ws.lc.tracksCompletes() {
		write, after = ws.lc.completing()
		counted = write && after == nil
	}
	if write {
		_ = ws.c.SetWriteDeadline(time.Now().Add(ws.write))
		err := ws.c.WriteMessage(websocket.TextMessage, b)
		if counted {
			after = ws.lc.wroteComplete()
		}
		if err != nil {
			_ = ws.c.Close()
			return err
		}
	}
	if after != nil {
		_ = ws.WriteClose(after.code, after.reason)
		_ = ws.c.Close()
	}
	return nil
}

// WriteClose sends the close frame once; later calls (gqlgen's own
// "terminated" after the edge closed with a reason) are dropped.
func (ws *wsConn) WriteClose(code int, msg string) error {
	if !ws.closeSent.CompareAndSwap(false, true) {
		return nil
	}
	if len(msg) > 123 { // a close frame's reason is at most 123 bytes
		msg = msg[:123]
	}
	return ws.c.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, msg), time.Now().Add(time.Second))
}

func (ws *wsConn) Close() error {
	ws.pinger.Stop()
	return ws.c.Close()
}

// originAllowed applies WS_ALLOWED_ORIGINS: requests without an Origin
// (non-browser clients) pass, "*" allows any, and otherwise a browser must
// come from a listed origin or the service's own host.
func originAllowed(allowed []string, r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true
	}
	for _, a := range allowed {
		if a == "*" || strings.EqualFold(strings.TrimSuffix(a, "/"), origin) {
			return true
		}
	}
	u, err := url.Parse(origin)
	return err == nil && strings.EqualFold(u.Host, r.Host)
}
