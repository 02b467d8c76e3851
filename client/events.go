package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/gorilla/websocket"
)

// SubscribeOptions select the events of Events.Subscribe.
type SubscribeOptions struct {
	// Types filters by event type; nil or ["*"] streams every type.
	Types []string
	// After replays every stored event after this event id (or a position
	// LastEventID returned) first, then continues live. Empty starts at the
	// moment the first connection was acknowledged, before Subscribe
	// returns: every event committed from then on arrives, also when the
	// connection drops before the first one.
	After string
	// MaxReconnects is how many reconnects in a row may fail before the
	// stream ends with the last error; 0 reconnects until ctx ends.
	MaxReconnects int
}

// EventsService streams the organization's events.
type EventsService struct{ c *Client }

// EventStream is a live stream of events; read Events until it closes, then
// Err says why. Events arrive once each, in order, across reconnects.
type EventStream struct {
	c      *Client
	opts   SubscribeOptions
	events chan Event
	cancel context.CancelFunc
	done   chan struct{}

	mu       sync.Mutex
	err      error
	lastID   string
	position string // the log position the last connection_ack carried
}

// Timings of the websocket protocol.
const (
	pingInterval = 15 * time.Second
	readTimeout  = 3 * pingInterval // silence for this long means the connection is dead
)

const subscribeQuery = `subscription($types: [String!], $after: ID) { events(types: $types, after: $after) { id type createdAt data } }`

// Subscribe opens a graphql-transport-ws connection to /graphql and streams
// the organization's events of opts.Types, from opts.After or else from the
// event log's position when the server acknowledged the connection (its
// connection_ack carries it). When the connection drops it reconnects with
// backoff and resumes after the last event it delivered (or that position),
// so no event is lost or repeated. Subscribe returns once the first
// connection is acknowledged; an invalid key is an *AuthenticationError,
// invalid options a *ValidationError (then, or later from Err). A resume
// point the server no longer replays from ends the stream with a
// *ResyncError. The stream ends when ctx ends or Close is called.
func (s *EventsService) Subscribe(ctx context.Context, opts SubscribeOptions) (*EventStream, error) {
	ctx, cancel := context.WithCancel(ctx)
	st := &EventStream{c: s.c, opts: opts, events: make(chan Event), cancel: cancel, done: make(chan struct{}), lastID: opts.After}
	var conn *websocket.Conn
	for attempt := 0; ; attempt++ {
		var err error
		if conn, err = st.connect(ctx); err == nil {
			break
		}
		if fatal(err) || attempt >= s.c.maxRetries {
			cancel()
			return nil, err
		}
		if !st.sleep(ctx, err, attempt) {
			cancel()
			return nil, fmt.Errorf("agenttrust events.subscribe: %w", errors.Join(ctx.Err(), err))
		}
	}
	go st.run(ctx, conn)
	return st, nil
}

// Events is the stream's channel; it is closed when the stream ends.
func (st *EventStream) Events() <-chan Event { return st.events }

// Err is why the stream ended: nil after Close or the end of its context,
// else the error that made it give up. Call it after Events is closed.
func (st *EventStream) Err() error {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.err
}

// LastEventID is the id of the last event delivered (or SubscribeOptions.After,
// or before the first event the position the stream started at, "pos_…"):
// once Events has handed over an event, LastEventID is that event or a later
// one. Pass it as After to resume in a new stream.
func (st *EventStream) LastEventID() string {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.lastID
}

// Close ends the stream and waits until its connection is closed.
func (st *EventStream) Close() error {
	st.cancel()
	<-st.done
	return nil
}

// wsMessage is a graphql-transport-ws message.
type wsMessage struct {
	ID      string          `json:"id,omitempty"`
	Type    string          `json:"type"`
	Payload json.RawMessage `json:"payload,omitempty"`
}

// run consumes connection after connection until the stream ends.
func (st *EventStream) run(ctx context.Context, conn *websocket.Conn) {
	defer close(st.done)
	defer close(st.events)
	failures := 0
	for {
		start := time.Now()
		delivered, err := st.consume(ctx, conn)
		conn.Close()
		if ctx.Err() != nil {
			return
		}
		if fatal(err) {
			st.fail(st.resync(ctx, err))
			return
		}
		if delivered || time.Since(start) > time.Minute {
			failures = 0
		}
		for {
			st.c.log.WarnContext(ctx, "agenttrust: event stream reconnecting", "after", st.LastEventID(), "attempt", failures+1, "err", err)
			if st.opts.MaxReconnects > 0 && failures >= st.opts.MaxReconnects {
				st.fail(err)
				return
			}
			if !st.sleep(ctx, err, failures) {
				return
			}
			failures++
			if conn, err = st.connect(ctx); err == nil {
				break
			}
			if ctx.Err() != nil {
				return
			}
			if fatal(err) {
				st.fail(st.resync(ctx, err))
				return
			}
		}
	}
}

// resync turns the server's refusal of the resume point (more events
// follow it than the server replays) into a *ResyncError, logged, that
// says where to resubscribe from once the caller has re-read its state;
// other errors pass unchanged.
func (st *EventStream) resync(ctx context.Context, err error) error {
	var ve *ValidationError
	if !errors.As(err, &ve) {
		return err
	}
	for _, f := range ve.FieldErrors {
		if f.Field == "after" {
			st.mu.Lock()
			re := &ResyncError{After: st.lastID, Position: st.position, Err: err}
			st.mu.Unlock()
			st.c.log.WarnContext(ctx, "agenttrust: event stream needs a resync", "after", re.After, "position", re.Position, "err", err)
			return re
		}
	}
	return err
}

func (st *EventStream) fail(err error) {
	st.mu.Lock()
	st.err = err
	st.mu.Unlock()
}

// sleep waits the backoff of attempt (or a rate limit's Retry-After); false
// when ctx ended first.
func (st *EventStream) sleep(ctx context.Context, err error, attempt int) bool {
	wait := st.c.backoff(attempt)
	var rl *RateLimitError
	if errors.As(err, &rl) && rl.RetryAfter > 0 {
		wait = rl.RetryAfter
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// connect dials, initializes and subscribes, resuming after the last
// delivered event.
func (st *EventStream) connect(ctx context.Context) (*websocket.Conn, error) {
	c := st.c
	u := *c.base
	u.Scheme = map[string]string{"http": "ws", "https": "wss"}[u.Scheme]
	u.Path += "/graphql"
	h := http.Header{}
	c.identify(h)
	dialer := websocket.Dialer{
		Subprotocols:     []string{"graphql-transport-ws"},
		HandshakeTimeout: c.timeout,
		Proxy:            http.ProxyFromEnvironment,
	}
	if t, ok := c.http.Transport.(*http.Transport); ok && t != nil {
		dialer.TLSClientConfig = t.TLSClientConfig
		dialer.Proxy = t.Proxy
	}
	dctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	conn, resp, err := dialer.DialContext(dctx, u.String(), h)
	if err != nil {
		if resp != nil {
			defer resp.Body.Close()
			raw, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
			var ga gqlAnswer
			if derr := decodeGraphQL(&ga)(&answer{status: resp.StatusCode, header: resp.Header, body: raw}); derr != nil {
				return nil, derr
			}
		}
		return nil, fmt.Errorf("agenttrust events.subscribe: dial %s: %w", u.Redacted(), err)
	}
	if conn.Subprotocol() != "graphql-transport-ws" {
		conn.Close()
		return nil, fmt.Errorf("agenttrust events.subscribe: server does not speak graphql-transport-ws")
	}
	if err := st.handshake(dctx, conn); err != nil {
		conn.Close()
		return nil, err
	}
	return conn, nil
}

// acked keeps the log position a connection_ack carries; a stream that
// has no resume point yet starts there.
func (st *EventStream) acked(payload json.RawMessage) {
	var p struct {
		Position string `json:"position"`
	}
	if json.Unmarshal(payload, &p) != nil || p.Position == "" {
		return
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	st.position = p.Position
	if st.lastID == "" {
		st.lastID = p.Position
	}
}

// handshake sends connection_init, waits for connection_ack and subscribes.
func (st *EventStream) handshake(ctx context.Context, conn *websocket.Conn) error {
	dl, _ := ctx.Deadline()
	_ = conn.SetWriteDeadline(dl)
	_ = conn.SetReadDeadline(dl)
	init, _ := json.Marshal(map[string]string{"Authorization": "Bearer " + st.c.apiKey})
	if err := conn.WriteJSON(wsMessage{Type: "connection_init", Payload: init}); err != nil {
		return fmt.Errorf("agenttrust events.subscribe: send connection_init: %w", err)
	}
	for acked := false; !acked; {
		var m wsMessage
		if err := conn.ReadJSON(&m); err != nil {
			return closeError("connection_init", err)
		}
		switch m.Type {
		case "connection_ack":
			acked = true
			st.acked(m.Payload)
		case "ping":
			if err := conn.WriteJSON(wsMessage{Type: "pong"}); err != nil {
				return fmt.Errorf("agenttrust events.subscribe: send pong: %w", err)
			}
		case "pong":
		default:
			return fmt.Errorf("agenttrust events.subscribe: unexpected %q before connection_ack", m.Type)
		}
	}
	vars := map[string]any{}
	if len(st.opts.Types) > 0 {
		vars["types"] = st.opts.Types
	}
	if after := st.LastEventID(); after != "" {
		vars["after"] = after
	}
	payload, err := json.Marshal(map[string]any{"query": subscribeQuery, "variables": vars})
	if err != nil {
		return fmt.Errorf("agenttrust events.subscribe: encode: %w", err)
	}
	if err := conn.WriteJSON(wsMessage{ID: "1", Type: "subscribe", Payload: payload}); err != nil {
		return fmt.Errorf("agenttrust events.subscribe: send subscribe: %w", err)
	}
	_ = conn.SetWriteDeadline(time.Time{})
	_ = conn.SetReadDeadline(time.Time{})
	return nil
}

// consume reads one connection's messages and delivers its events until the
// connection ends or ctx does; delivered says whether any event got through.
func (st *EventStream) consume(ctx context.Context, conn *websocket.Conn) (delivered bool, err error) {
	w := &wsWriter{conn: conn, timeout: st.c.timeout}
	stop := make(chan struct{})
	defer close(stop)
	go w.keepAlive(ctx, stop)
	for {
		_ = conn.SetReadDeadline(time.Now().Add(readTimeout))
		var m wsMessage
		if err := conn.ReadJSON(&m); err != nil {
			return delivered, closeError("stream", err)
		}
		switch m.Type {
		case "next":
			ev, err := decodeNext(m.Payload)
			if err != nil {
				return delivered, err
			}
			handed, err := st.hand(ctx, ev)
			delivered = delivered || handed
			if err != nil {
				return delivered, err
			}
		case "error":
			var errs []gqlError
			if err := json.Unmarshal(m.Payload, &errs); err != nil || len(errs) == 0 {
				return delivered, &APIError{Code: CodeInternal, Message: "subscription refused: " + string(m.Payload)}
			}
			return delivered, gqlErr(0, nil, errs[0])
		case "complete":
			return delivered, errors.New("agenttrust events.subscribe: server completed the subscription")
		case "ping":
			if err := w.write(wsMessage{Type: "pong"}); err != nil {
				return delivered, fmt.Errorf("agenttrust events.subscribe: send pong: %w", err)
			}
		case "pong":
		default:
			return delivered, fmt.Errorf("agenttrust events.subscribe: unexpected message %q", m.Type)
		}
	}
}

// hand delivers ev unless it is the event delivered last; handed says
// whether it did. The resume point moves before the hand-over, so that a
// caller who received ev reads it from LastEventID; it moves back if ctx
// ends first.
func (st *EventStream) hand(ctx context.Context, ev Event) (handed bool, err error) {
	st.mu.Lock()
	prev := st.lastID
	if ev.ID == prev {
		st.mu.Unlock()
		return false, nil
	}
	st.lastID = ev.ID
	st.mu.Unlock()
	select {
	case st.events <- ev:
		return true, nil
	case <-ctx.Done():
		st.mu.Lock()
		st.lastID = prev
		st.mu.Unlock()
		return false, ctx.Err()
	}
}

// wsWriter writes to a connection one message at a time: the reader answers
// the server's pings while keepAlive sends its own.
type wsWriter struct {
	mu      sync.Mutex
	conn    *websocket.Conn
	timeout time.Duration
}

func (w *wsWriter) write(m wsMessage) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	_ = w.conn.SetWriteDeadline(time.Now().Add(w.timeout))
	return w.conn.WriteJSON(m)
}

// keepAlive pings the server every pingInterval until stop is closed, and
// closes the connection when ctx ends first.
func (w *wsWriter) keepAlive(ctx context.Context, stop <-chan struct{}) {
	t := time.NewTicker(pingInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			w.mu.Lock()
			_ = w.conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), time.Now().Add(time.Second))
			w.mu.Unlock()
			w.conn.Close()
			return
		case <-stop:
			return
		case <-t.C:
			_ = w.write(wsMessage{Type: "ping"})
		}
	}
}

// decodeNext reads a next message's payload: an event, or the error of an
// execution result that carries one.
func decodeNext(payload json.RawMessage) (Event, error) {
	var r struct {
		Data struct {
			Events *Event `json:"events"`
		} `json:"data"`
		Errors []gqlError `json:"errors"`
	}
	if err := json.Unmarshal(payload, &r); err != nil {
		return Event{}, fmt.Errorf("agenttrust events.subscribe: decode event: %w", err)
	}
	if len(r.Errors) > 0 {
		return Event{}, gqlErr(0, nil, r.Errors[0])
	}
	if r.Data.Events == nil {
		return Event{}, errors.New("agenttrust events.subscribe: next message without an event")
	}
	return *r.Data.Events, nil
}

// closeError explains a read failure. The close codes that refuse the
// connection itself (bad request, bad key, unacceptable protocol) become the
// typed error of their kind, which ends the stream; others (a slow consumer's
// 4420, an init timeout, an internal error) are reconnected.
func closeError(during string, err error) error {
	var ce *websocket.CloseError
	if errors.As(err, &ce) {
		if code, ok := refusals[ce.Code]; ok {
			msg := ce.Text
			if msg == "" {
				msg = fmt.Sprintf("connection closed with code %d", ce.Code)
			}
			return typedError(0, nil, errorDetail{code: code, message: msg})
		}
	}
	return fmt.Errorf("agenttrust events.subscribe: %s: %w", during, err)
}

// refusals maps the graphql-transport-ws close codes that end a stream to
// error codes.
var refusals = map[int]string{
	4400: CodeValidationFailed,   // bad request
	4401: CodeUnauthenticated,    // unauthorized
	4403: CodeUnauthenticated,    // forbidden: connection_init refused
	4406: "PROTOCOL_UNSUPPORTED", // subprotocol not acceptable
	4409: "PROTOCOL_UNSUPPORTED", // subscriber for the id already exists
}

// fatal reports whether err means reconnecting cannot help: the server
// refused the key, the options or the caller.
func fatal(err error) bool {
	var api *APIError
	if !errors.As(err, &api) {
		return false
	}
	switch api.Code {
	case CodeRateLimited, CodeInternal:
		return false
	case "":
		// An upgrade refused without a code: a client error will not go away.
		return api.StatusCode >= 400 && api.StatusCode < 500 &&
			api.StatusCode != http.StatusRequestTimeout && api.StatusCode != http.StatusTooManyRequests
	}
	return true
}
