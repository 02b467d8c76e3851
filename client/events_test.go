package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/agenttrust/service/client"
)

// wsServer is a graphql-transport-ws server over an in-memory event log,
// faithful to the protocol: connection_init with the key, connection_ack,
// ping/pong, subscribe with types and after, next, error and complete. It
// replays the events after `after`, then streams new ones live.
type wsServer struct {
	key string

	mu       sync.Mutex
	log      []client.Event
	changed  chan struct{} // closed and replaced on every append
	conns    map[*websocket.Conn]bool
	down     bool     // refuse upgrades with 503
	refused  int      // upgrades refused while down
	afters   []string // the after of every subscribe
	types    [][]string
	pongs    int
	userAgnt string
}

func newWSServer(t *testing.T, key string) (*wsServer, *httptest.Server) {
	s := &wsServer{key: key, changed: make(chan struct{}), conns: map[*websocket.Conn]bool{}}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return s, srv
}

// emit appends events of type typ to the log.
func (s *wsServer) emit(typ string, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for range n {
		id := fmt.Sprintf("evt_%d", len(s.log)+1)
		s.log = append(s.log, client.Event{ID: id, Type: typ, CreatedAt: time.Now().UTC().Truncate(time.Millisecond), Data: json.RawMessage(`{"n":"` + id + `"}`)})
	}
	close(s.changed)
	s.changed = make(chan struct{})
}

// outage drops every connection and refuses new ones until up is called.
func (s *wsServer) outage() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.down = true
	for c := range s.conns {
		c.UnderlyingConn().Close() // no close frame: the network just breaks
	}
}

// waitPongs waits until the server has read n pongs.
func (s *wsServer) waitPongs(t *testing.T, n int) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		s.mu.Lock()
		pongs := s.pongs
		s.mu.Unlock()
		if pongs >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d pongs after 5s, want %d", pongs, n)
		}
	}
}

func (s *wsServer) up() {
	s.mu.Lock()
	s.down = false
	s.mu.Unlock()
}

func (s *wsServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	down := s.down
	if down {
		s.refused++
	}
	s.userAgnt = r.Header.Get("User-Agent")
	s.mu.Unlock()
	if down {
		http.Error(w, "down for maintenance", http.StatusServiceUnavailable)
		return
	}
	up := websocket.Upgrader{Subprotocols: []string{"graphql-transport-ws"}}
	conn, err := up.Upgrade(w, r, nil)
	if err != nil {
		return
	}
	defer conn.Close()
	if conn.Subprotocol() != "graphql-transport-ws" {
		_ = conn.WriteMessage(websocket.CloseMessage, websocket.FormatCloseMessage(4406, "Subprotocol not acceptable"))
		return
	}
	s.mu.Lock()
	s.conns[conn] = true
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.conns, conn)
		s.mu.Unlock()
	}()

	var m struct {
		ID      string          `json:"id"`
		Type    string          `json:"type"`
		Payload json.RawMessage `json:"payload"`
	}
	if conn.ReadJSON(&m) != nil || m.Type != "connection_init" {
		return
	}
	var init map[string]string
	_ = json.Unmarshal(m.Payload, &init)
	if init["Authorization"] != "Bearer "+s.key {
		_ = conn.WriteMessage(websocket.CloseMessage, websocket.FormatCloseMessage(4403, "Forbidden"))
		return
	}
	var wmu sync.Mutex
	send := func(v any) error {
		wmu.Lock()
		defer wmu.Unlock()
		return conn.WriteJSON(v)
	}
	_ = send(map[string]string{"type": "connection_ack"})
	_ = send(map[string]string{"type": "ping"})

	type subscription struct {
		id, after string
		live      int // the log's length when the subscribe was seen: where a stream without after starts
	}
	subscribed := make(chan subscription, 1)
	done := make(chan struct{})
	go func() { // reader
		defer close(done)
		for {
			if conn.ReadJSON(&m) != nil {
				return
			}
			switch m.Type {
			case "pong":
				s.mu.Lock()
				s.pongs++
				s.mu.Unlock()
			case "ping":
				_ = send(map[string]string{"type": "pong"})
			case "subscribe":
				var p struct {
					Query     string
					Variables struct {
						Types []string
						After string
					}
				}
				_ = json.Unmarshal(m.Payload, &p)
				s.mu.Lock()
				s.afters = append(s.afters, p.Variables.After)
				s.types = append(s.types, p.Variables.Types)
				live := len(s.log)
				s.mu.Unlock()
				subscribed <- subscription{m.ID, p.Variables.After, live}
			case "complete":
				return
			}
		}
	}()
	var sub subscription
	select {
	case sub = <-subscribed:
	case <-done:
		return
	}
	s.mu.Lock()
	next := sub.live // no after: live events only, from the subscribe on
	if sub.after != "" {
		next = slices.IndexFunc(s.log, func(e client.Event) bool { return e.ID == sub.after }) + 1
		if next == 0 {
			s.mu.Unlock()
			_ = send(map[string]any{"id": sub.id, "type": "error", "payload": []any{map[string]any{
				"message": "after: unknown event", "extensions": map[string]any{"code": "VALIDATION_FAILED",
					"fieldErrors": []any{map[string]string{"field": "after", "message": "unknown event"}}}}}})
			return
		}
	}
	s.mu.Unlock()
	for {
		s.mu.Lock()
		pending, changed := slices.Clone(s.log[next:]), s.changed
		next = len(s.log)
		s.mu.Unlock()
		for _, e := range pending {
			if send(map[string]any{"id": sub.id, "type": "next", "payload": map[string]any{"data": map[string]any{"events": e}}}) != nil {
				return
			}
		}
		select {
		case <-changed:
		case <-done:
			return
		}
	}
}

// subscribed waits until the server has seen n subscribes.
func (s *wsServer) subscribed(t *testing.T, n int) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(2 * time.Millisecond) {
		s.mu.Lock()
		got := len(s.afters)
		s.mu.Unlock()
		if got >= n {
			return
		}
	}
	t.Fatalf("fewer than %d subscribes", n)
}

// receive reads n events from st, failing after a while.
func receive(t *testing.T, st *client.EventStream, n int) []string {
	t.Helper()
	var ids []string
	for len(ids) < n {
		select {
		case e, ok := <-st.Events():
			if !ok {
				t.Fatalf("stream ended after %v: %v", ids, st.Err())
			}
			if e.Type == "" || e.CreatedAt.IsZero() || string(e.Data) != `{"n":"`+e.ID+`"}` {
				t.Fatalf("event %+v", e)
			}
			ids = append(ids, e.ID)
		case <-time.After(10 * time.Second):
			t.Fatalf("timed out after %v", ids)
		}
	}
	return ids
}

func evtIDs(from, to int) []string {
	var ids []string
	for i := from; i <= to; i++ {
		ids = append(ids, fmt.Sprintf("evt_%d", i))
	}
	return ids
}

// TestSubscribeResumesAcrossOutage drops the connection, commits events
// while the server refuses reconnects, and expects every event once, in order.
func TestSubscribeResumesAcrossOutage(t *testing.T) {
	t.Parallel()
	ws, srv := newWSServer(t, "sekret")
	c, err := client.New(client.Options{APIKey: "sekret", BaseURL: srv.URL, RetryWaitMin: 5 * time.Millisecond, RetryWaitMax: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ws.emit("agent.registered", 2) // before the subscription: not streamed
	st, err := c.Events.Subscribe(context.Background(), client.SubscribeOptions{Types: []string{"agent.registered", "transaction.completed"}})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ws.subscribed(t, 1) // without After, only events after the subscribe arrive

	ws.emit("transaction.completed", 3)
	got := receive(t, st, 3)

	ws.waitPongs(t, 1) // the first connection's ping answered before it breaks
	ws.outage()
	ws.emit("transaction.completed", 3) // committed during the outage
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		ws.mu.Lock()
		refused := ws.refused
		ws.mu.Unlock()
		if refused >= 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the client did not try to reconnect")
		}
	}
	ws.up()
	ws.emit("agent.registered", 2)
	got = append(got, receive(t, st, 5)...)

	// The second connection's ping must be answered before it breaks: a
	// pong still in flight when the outage closes the socket is lost.
	ws.waitPongs(t, 2)
	ws.outage() // a second outage resumes from the latest event
	ws.up()
	ws.emit("agent.registered", 1)
	got = append(got, receive(t, st, 1)...)

	if want := evtIDs(3, 11); !slices.Equal(got, want) {
		t.Fatalf("received %v, want %v", got, want)
	}
	if st.LastEventID() != "evt_11" {
		t.Fatalf("LastEventID %q", st.LastEventID())
	}
	select {
	case e := <-st.Events():
		t.Fatalf("extra event %+v", e)
	case <-time.After(50 * time.Millisecond):
	}
	// Each connection's ping is answered; the last pong may still be on
	// its way when the last event has arrived.
	var afters []string
	var types [][]string
	var pongs int
	var ua string
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		ws.mu.Lock()
		afters, types, pongs, ua = ws.afters, ws.types, ws.pongs, ws.userAgnt
		ws.mu.Unlock()
		if pongs >= 3 || time.Now().After(deadline) {
			break
		}
	}
	if !slices.Equal(afters, []string{"", "evt_5", "evt_10"}) || !slices.Equal(types[1], []string{"agent.registered", "transaction.completed"}) {
		t.Fatalf("subscribes: after %q, types %q", afters, types)
	}
	if pongs < 3 || ua != "agenttrust-go/"+client.Version {
		t.Fatalf("%d pongs, User-Agent %q", pongs, ua)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if _, ok := <-st.Events(); ok || st.Err() != nil {
		t.Fatalf("after Close: open channel or error %v", st.Err())
	}
}

func TestSubscribeRefusals(t *testing.T) {
	t.Parallel()
	ws, srv := newWSServer(t, "sekret")
	ws.emit("agent.registered", 1)
	newClient := func(key string) *client.Client {
		c, err := client.New(client.Options{APIKey: key, BaseURL: srv.URL, RetryWaitMin: time.Millisecond, RetryWaitMax: time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}

	_, err := newClient("wrong").Events.Subscribe(context.Background(), client.SubscribeOptions{})
	var ae *client.AuthenticationError
	if !errors.As(err, &ae) || !errors.Is(err, client.ErrUnauthenticated) {
		t.Fatalf("wrong key: %v", err)
	}

	st, err := newClient("sekret").Events.Subscribe(context.Background(), client.SubscribeOptions{After: "evt_nope"})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := <-st.Events(); ok {
		t.Fatal("an event for an unknown after")
	}
	var ve *client.ValidationError
	if !errors.As(st.Err(), &ve) || len(ve.FieldErrors) != 1 || ve.FieldErrors[0].Field != "after" {
		t.Fatalf("unknown after: %v", st.Err())
	}

	// An upgrade refused with a client error is not retried.
	var upgrades atomic.Int32
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		upgrades.Add(1)
		http.Error(w, "no websockets here", http.StatusBadRequest)
	}))
	defer plain.Close()
	pc, err := client.New(client.Options{APIKey: "k", BaseURL: plain.URL, RetryWaitMin: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	_, err = pc.Events.Subscribe(context.Background(), client.SubscribeOptions{})
	var api *client.APIError
	if !errors.As(err, &api) || api.StatusCode != http.StatusBadRequest || upgrades.Load() != 1 {
		t.Fatalf("plain 400: %v after %d upgrades", err, upgrades.Load())
	}

	// The context ends the stream without an error.
	ctx, cancel := context.WithCancel(context.Background())
	st, err = newClient("sekret").Events.Subscribe(ctx, client.SubscribeOptions{After: "evt_1"})
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	if _, ok := <-st.Events(); ok || st.Err() != nil {
		t.Fatalf("after cancel: %v", st.Err())
	}

	// A server that stays down ends the stream after MaxReconnects.
	st, err = newClient("sekret").Events.Subscribe(context.Background(), client.SubscribeOptions{After: "evt_1", MaxReconnects: 2})
	if err != nil {
		t.Fatal(err)
	}
	ws.outage()
	if _, ok := <-st.Events(); ok || !errors.Is(st.Err(), client.ErrInternal) {
		t.Fatalf("after the server went away: %v", st.Err())
	}
}
