package httpapi_test

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/agenttrust/service/db"
	"github.com/agenttrust/service/db/dbtest"
	"github.com/agenttrust/service/httpapi"
	"github.com/agenttrust/service/internal/testkit"
	"github.com/agenttrust/service/live"
	"github.com/agenttrust/service/wire"
)

// liveBundle is one test's service with its live hub running behind a real
// HTTP server, and one organization.
type liveBundle struct {
	t     *testing.T
	db    *db.DB
	dbURL string
	orgs  *db.OrgService
	srv   *wire.Server
	ts    *httptest.Server
	orgID string
	keyID string
	key   string
	cfg   func(*httpapi.Config)
}

func setupLive(t *testing.T, tune ...func(*live.Options)) *liveBundle {
	t.Helper()
	return setupLiveConfig(t, nil, tune...)
}

// setupLiveConfig is setupLive with the edge's configuration adjusted by cfg.
func setupLiveConfig(t *testing.T, cfg func(*httpapi.Config), tune ...func(*live.Options)) *liveBundle {
	t.Helper()
	d, u := dbtest.NewWithURL(t)
	b := &liveBundle{t: t, db: d, dbURL: u, orgs: db.NewOrgService(d), cfg: cfg}
	b.start(tune...)
	var err error
	b.orgID, b.keyID, b.key, err = b.orgs.CreateOrg(context.Background(), "acme")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// start runs a service process (handler and hub) on b's database.
func (b *liveBundle) start(tune ...func(*live.Options)) {
	b.srv, b.ts = b.process(tune...)
}

// process runs one more service process on b's database.
func (b *liveBundle) process(tune ...func(*live.Options)) (*wire.Server, *httptest.Server) {
	cfg := httpapi.Config{RateLimitRPS: 10000, RateLimitBurst: 10000, KeyRecheck: 500 * time.Millisecond}
	if b.cfg != nil {
		b.cfg(&cfg)
	}
	var lo live.Options
	for _, f := range tune {
		f(&lo)
	}
	s := wire.NewServer(wire.Options{DB: b.db, Config: cfg, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Live: lo})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = s.Run(ctx); close(done) }()
	ts := httptest.NewServer(s)
	b.t.Cleanup(func() { ts.Close(); cancel(); <-done })
	return s, ts
}

func (b *liveBundle) newOrg(name string) (orgID, keyID, key string) {
	b.t.Helper()
	orgID, keyID, key, err := b.orgs.CreateOrg(context.Background(), name)
	if err != nil {
		b.t.Fatal(err)
	}
	return orgID, keyID, key
}

// do runs a GraphQL operation over HTTP on ts and returns data.field.
func (b *liveBundle) do(ts *httptest.Server, key, query string, vars map[string]any, field string) json.RawMessage {
	b.t.Helper()
	body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	req, _ := http.NewRequest(http.MethodPost, ts.URL+"/graphql", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := ts.Client().Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		Data   map[string]json.RawMessage
		Errors []testkit.GQLError
	}
	raw, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(raw, &out); err != nil || len(out.Errors) > 0 {
		b.t.Fatalf("%s: %d %s", field, resp.StatusCode, raw)
	}
	return out.Data[field]
}

// registerAgent registers an agent as key through ts and returns its id.
func (b *liveBundle) registerAgent(ts *httptest.Server, key, name string) string {
	b.t.Helper()
	in := map[string]any{"name": name, "authorizedActions": []string{"purchase"}, "spendingLimit": "100",
		"currency": "USD", "environment": "sandbox"}
	var a struct{ ID string }
	if err := json.Unmarshal(b.do(ts, key, registerQuery, map[string]any{"input": in}, "registerAgent"), &a); err != nil {
		b.t.Fatal(err)
	}
	return a.ID
}

// gotEvent is an Event as a subscription delivers it.
type gotEvent struct {
	ID        string          `json:"id"`
	Type      string          `json:"type"`
	CreatedAt string          `json:"createdAt"`
	Data      json.RawMessage `json:"data"`
}

const eventsSubscription = `subscription($types: [String!], $after: ID) { events(types: $types, after: $after) { id type createdAt data } }`

// wsMsg is one message of either websocket sub-protocol, or the close.
type wsMsg struct {
	Type    string          `json:"type"`
	ID      string          `json:"id,omitempty"`
	Payload json.RawMessage `json:"payload,omitempty"`

	closeCode   int
	closeReason string
}

// wsClient speaks graphql-transport-ws or the legacy graphql-ws over gorilla.
type wsClient struct {
	t     *testing.T
	c     *websocket.Conn
	proto string
	msgs  chan wsMsg
}

const (
	transportWS = "graphql-transport-ws"
	legacyWS    = "graphql-ws"
)

// dialWS opens a websocket to ts with the sub-protocol and extra header pairs.
func dialWS(t *testing.T, ts *httptest.Server, proto string, header ...string) (*wsClient, *http.Response, error) {
	t.Helper()
	h := http.Header{}
	for i := 0; i+1 < len(header); i += 2 {
		h.Set(header[i], header[i+1])
	}
	d := websocket.Dialer{Subprotocols: []string{proto}, HandshakeTimeout: 5 * time.Second}
	c, resp, err := d.Dial("ws"+strings.TrimPrefix(ts.URL, "http")+"/graphql", h)
	if err != nil {
		return nil, resp, err
	}
	w := &wsClient{t: t, c: c, proto: proto, msgs: make(chan wsMsg, 4096)}
	go w.readLoop()
	t.Cleanup(func() { c.Close() })
	return w, resp, nil
}

func (w *wsClient) readLoop() {
	defer close(w.msgs)
	for {
		var m wsMsg
		_, raw, err := w.c.ReadMessage()
		if err != nil {
			var ce *websocket.CloseError
			if errors.As(err, &ce) {
				w.msgs <- wsMsg{Type: "close", closeCode: ce.Code, closeReason: ce.Text}
			}
			return
		}
		if json.Unmarshal(raw, &m) != nil {
			continue
		}
		if m.Type == "ka" || m.Type == "ping" || m.Type == "pong" {
			if m.Type == "ping" {
				w.send(map[string]any{"type": "pong"})
			}
			continue
		}
		w.msgs <- m
	}
}

func (w *wsClient) send(v any) {
	if err := w.c.WriteJSON(v); err != nil {
		w.t.Logf("ws write: %v", err)
	}
}

// next returns the next protocol message within timeout ("" Type: none).
func (w *wsClient) next(timeout time.Duration) wsMsg {
	w.t.Helper()
	select {
	case m, ok := <-w.msgs:
		if !ok {
			return wsMsg{Type: "eof"}
		}
		return m
	case <-time.After(timeout):
		return wsMsg{}
	}
}

// init sends connection_init with payload and requires connection_ack.
func (w *wsClient) init(payload map[string]any) {
	w.t.Helper()
	w.send(map[string]any{"type": "connection_init", "payload": payload})
	if m := w.next(15 * time.Second); m.Type != "connection_ack" {
		w.t.Fatalf("want connection_ack, got %+v", m)
	}
}

// subscribe starts operation id.
func (w *wsClient) subscribe(id, query string, vars map[string]any) {
	typ := "subscribe"
	if w.proto == legacyWS {
		typ = "start"
	}
	w.send(map[string]any{"type": typ, "id": id, "payload": map[string]any{"query": query, "variables": vars}})
}

// expectClose waits for the connection to close with code; it returns the reason.
func (w *wsClient) expectClose(code int, within time.Duration) string {
	w.t.Helper()
	deadline := time.After(within)
	for {
		select {
		case m, ok := <-w.msgs:
			if !ok {
				w.t.Fatalf("connection ended without close %d", code)
			}
			if m.Type == "close" {
				if m.closeCode != code {
					w.t.Fatalf("closed with %d %q, want %d", m.closeCode, m.closeReason, code)
				}
				return m.closeReason
			}
		case <-deadline:
			w.t.Fatalf("not closed with %d within %s", code, within)
		}
	}
}

// result is one data/next payload of operation id; it fails on anything else.
func (w *wsClient) result(id string, timeout time.Duration) json.RawMessage {
	w.t.Helper()
	m := w.next(timeout)
	for m.Type == "complete" && m.ID != id {
		m = w.next(timeout)
	}
	if (m.Type != "next" && m.Type != "data") || m.ID != id {
		w.t.Fatalf("want a result for %s, got %+v (%s)", id, m, m.Payload)
	}
	return m.Payload
}

// events collects n events of operation id, failing after timeout.
func (w *wsClient) events(id string, n int, timeout time.Duration) []gotEvent {
	w.t.Helper()
	var out []gotEvent
	deadline := time.Now().Add(timeout)
	for len(out) < n {
		left := time.Until(deadline)
		if left <= 0 {
			w.t.Fatalf("got %d of %d events in %s", len(out), n, timeout)
		}
		var p struct {
			Data   struct{ Events gotEvent }
			Errors []testkit.GQLError
		}
		if err := json.Unmarshal(w.result(id, left), &p); err != nil || len(p.Errors) > 0 {
			w.t.Fatalf("event payload: %v %+v", err, p.Errors)
		}
		out = append(out, p.Data.Events)
	}
	return out
}

// quiet fails if any message arrives within d.
func (w *wsClient) quiet(d time.Duration) {
	w.t.Helper()
	if m := w.next(d); m.Type != "" {
		w.t.Fatalf("unexpected message %+v %s", m, m.Payload)
	}
}

// sseStream is a graphql-sse "distinct connections" subscription.
type sseStream struct {
	resp   *http.Response
	events chan sseEvent
}

type sseEvent struct {
	name string
	data string
}

func openSSE(t *testing.T, ts *httptest.Server, key, query string, vars map[string]any) *sseStream {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	req, _ := http.NewRequest(http.MethodPost, ts.URL+"/graphql", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	s := &sseStream{resp: resp, events: make(chan sseEvent, 1024)}
	go func() {
		defer close(s.events)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		var ev sseEvent
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				if ev.name != "" {
					s.events <- ev
				}
				ev = sseEvent{}
			case strings.HasPrefix(line, "event: "):
				ev.name = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: "):
				ev.data = strings.TrimPrefix(line, "data: ")
			}
		}
	}()
	return s
}

// next returns the next SSE event within timeout (name "" if none, "eof" at the end).
func (s *sseStream) next(timeout time.Duration) sseEvent {
	select {
	case ev, ok := <-s.events:
		if !ok {
			return sseEvent{name: "eof"}
		}
		return ev
	case <-time.After(timeout):
		return sseEvent{}
	}
}

func (s *sseStream) event(t *testing.T, timeout time.Duration) gotEvent {
	t.Helper()
	ev := s.next(timeout)
	var p struct {
		Data   struct{ Events gotEvent }
		Errors []testkit.GQLError
	}
	if ev.name != "next" || json.Unmarshal([]byte(ev.data), &p) != nil || len(p.Errors) > 0 {
		t.Fatalf("want an SSE event, got %+v", ev)
	}
	return p.Data.Events
}

func ids(evs []gotEvent) []string {
	out := make([]string, len(evs))
	for i, e := range evs {
		out[i] = e.ID
	}
	return out
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// drain collects the events of operation id until none arrives for d.
func (w *wsClient) drain(id string, d time.Duration) []gotEvent {
	w.t.Helper()
	var out []gotEvent
	for {
		m := w.next(d)
		if m.Type == "" {
			return out
		}
		var p struct{ Data struct{ Events gotEvent } }
		if (m.Type != "next" && m.Type != "data") || m.ID != id || json.Unmarshal(m.Payload, &p) != nil {
			w.t.Fatalf("unexpected message %+v %s", m, m.Payload)
		}
		out = append(out, p.Data.Events)
	}
}

func openSQL(t *testing.T, url string) *sql.DB {
	t.Helper()
	conn, err := sql.Open("pgx", url)
	must(t, err)
	t.Cleanup(func() { conn.Close() })
	return conn
}

// metric reads one unlabelled (or summed) metric from ts's /metrics.
func metric(t *testing.T, b *liveBundle, name string) float64 {
	t.Helper()
	resp, err := b.ts.Client().Get(b.ts.URL + "/metrics")
	must(t, err)
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var sum float64
	for _, line := range strings.Split(string(raw), "\n") {
		if strings.HasPrefix(line, name+" ") || strings.HasPrefix(line, name+"{") {
			var v float64
			fmt.Sscan(line[strings.LastIndexByte(line, ' ')+1:], &v)
			sum += v
		}
	}
	return sum
}

// eventWait bounds the wait for an event. Events become readable once no
// older writing transaction runs anywhere in the Postgres cluster, so on a
// machine shared with other test suites that can take seconds.
const eventWait = 30 * time.Second
