package chaos

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/shopspring/decimal"

	"github.com/agenttrust/service/bench/promtext"
	"github.com/agenttrust/service/client"
	"github.com/agenttrust/service/event"
)

var liveForm = flag.Bool("chaos.live", false, "run the short form of the live-streams-across-restarts scenario (it takes half a minute, so `go test ./...` skips it; -chaos.long runs its long form)")

// TestLiveStreamsAcrossPostgresRestarts restarts a private Postgres several
// times under concurrent writers while live subscribers of every kind
// stream the organization's events: a websocket and an SSE stream read by
// hand, Go client streams with and without after, and two Go client streams
// behind a proxy that cuts their connections at every outage, one of which
// has received nothing when the first outage starts. Each receives every
// event committed after it opened exactly once and in order, none is closed
// as slow, and each webhook endpoint registered during the run receives
// exactly the events committed after its registration committed (Postgres'
// commit timestamps are the judge).
func TestLiveStreamsAcrossPostgresRestarts(t *testing.T) {
	if !*longForm && !*liveForm {
		t.Skip("run with -chaos.live (short form) or -chaos.long (make chaos)")
	}
	t.Parallel()
	p := current()
	restarts, writers := 3, 8
	if *longForm {
		restarts, writers = 7, 12
	}
	ctx := context.Background()
	sw := newStopwatch(t)
	pg := newCluster(t)
	e := newEnv(t, pg.URL)
	srv := e.startServer("server")
	c := e.client(srv)
	agents := e.agents(ctx, c, 6, nil)
	sw.lap("set up")

	// Every stream opens while nothing is being written, after base: each
	// must receive every event of the log after it.
	base := e.quietLog(ctx, len(agents))
	prx := newCutter(t, srv.addr)
	streams := []eventStream{
		e.goStream(ctx, srv.URL, "go, without after", client.SubscribeOptions{}),
		e.goStream(ctx, srv.URL, "go, after "+base, client.SubscribeOptions{After: base}),
		e.goStream(ctx, prx.URL, "go, cut at every outage", client.SubscribeOptions{}),
		// agent.updated is written only once the first outage is over.
		e.goStream(ctx, prx.URL, "go, cut, nothing yet at the first outage", client.SubscribeOptions{Types: []string{event.AgentUpdated}}),
		openWSStream(t, srv.URL, e.key),
		openSSEStream(t, srv.URL, e.key),
	}
	if !eventually(p.settle, func() bool { return liveSubscriptions(srv) >= float64(len(streams)) }) {
		t.Fatalf("the server counts %v subscriptions, want %d", liveSubscriptions(srv), len(streams))
	}
	sw.lap("streams open")

	l := newLedger()
	next := func(r *rand.Rand) (string, string, decimal.Decimal) {
		i := r.IntN(len(agents))
		return agents[i], agents[(i+1+r.IntN(len(agents)-1))%len(agents)], decimal.New(int64(1+r.IntN(9999)), -2)
	}
	loadCtx, stopLoad := context.WithCancel(ctx)
	var background sync.WaitGroup
	background.Go(func() {
		l.storm(loadCtx, writers, []*client.Client{c}, []string{srv.name}, next, 5*time.Millisecond)
	})
	var endpoints []*endpointAt
	for i := range restarts {
		time.Sleep(p.load)
		endpoints = append(endpoints, e.registerDuring(ctx, c, fmt.Sprintf("during-%d", i+1)))
		mode := []string{"fast", "immediate"}[i%2]
		prx.cut()
		if err := pg.stop(mode); err != nil {
			t.Fatal(err)
		}
		time.Sleep(p.outage)
		if err := pg.start(); err != nil {
			t.Fatal(err)
		}
		prx.restore()
		e.reconnect()
		e.updateAgent(ctx, c, agents[i%len(agents)], fmt.Sprintf("renamed-%d", i+1))
	}
	time.Sleep(p.load)
	endpoints = append(endpoints, e.registerDuring(ctx, c, "last"))
	e.updateAgent(ctx, c, agents[0], "renamed-last")
	time.Sleep(p.load / 2)
	stopLoad()
	background.Wait()
	sw.lap(fmt.Sprintf("%d restarts under %d writers", restarts, writers))

	log := e.settledLog(ctx, p.settle)
	after := log[indexOf(log, base)+1:]
	want := eventIDs(after)
	var updates []string
	for _, ev := range after {
		if ev.Type == event.AgentUpdated {
			updates = append(updates, ev.ID)
		}
	}
	for _, s := range streams {
		w := want
		if s.label() == "go, cut, nothing yet at the first outage" {
			w = updates
		}
		if msg := s.check(w, p.settle); msg != "" {
			t.Errorf("PROMISE BROKEN: %s", msg)
		}
	}
	sw.lap("streams checked")
	m, err := promtext.Scrape(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	if n := m["att_live_slow_consumer_closes_total"]; n != 0 {
		t.Errorf("PROMISE BROKEN: %v subscriptions closed as slow; every subscriber read promptly", n)
	}
	var delivered, dups int
	for _, ep := range endpoints {
		exp, err := e.committedAfter(ctx, ep.xid)
		if err != nil {
			t.Fatal(err)
		}
		var missing []string
		eventually(p.settle, func() bool { missing = ep.sink.missing(exp); return len(missing) == 0 })
		time.Sleep(200 * time.Millisecond)
		got := ep.sink.counts()
		wanted := map[string]bool{}
		for _, id := range exp {
			wanted[id] = true
		}
		var extra []string
		for id := range got {
			if !wanted[id] {
				extra = append(extra, id)
			}
		}
		if len(missing) > 0 || len(extra) > 0 {
			t.Errorf("PROMISE BROKEN: endpoint %s (registered by transaction %s): %d of %d events committed after it missing (e.g. %v), %d committed before it delivered (e.g. %v)",
				ep.sink.name, ep.xid, len(missing), len(exp), first(missing), len(extra), first(extra))
		}
		delivered += len(exp)
		dups += duplicates(got)
	}
	sw.lap("endpoints checked")
	ack, unk, _ := l.counts()
	report(t, "9. live streams across Postgres restarts",
		fmt.Sprintf("%d writers, private cluster restarted %d times (%s down each)", writers, restarts, p.outage),
		fmt.Sprintf("%d executes acknowledged, %d unanswered; %d events after the streams opened, each received once and in order by %d streams (websocket, SSE, Go client with and without after, two cut at every outage); 0 slow-consumer closes, %v catch-ups from the log; %d endpoints registered during the run got exactly the %d events committed after them (%d duplicate deliveries)",
			ack, unk, len(want), len(streams), m["att_live_catch_ups_total"], len(endpoints), delivered, dups))
}

// quietLog waits until the log holds at least n events and no more arrive,
// and returns the id of its last event.
func (e *env) quietLog(ctx context.Context, n int) string {
	e.t.Helper()
	log := e.settledLog(ctx, current().settle)
	if len(log) < n {
		e.t.Fatalf("the log holds %d events, want at least %d", len(log), n)
	}
	return log[len(log)-1].ID
}

// settledLog reads the organization's log once two reads a moment apart
// agree (every writer has stopped and every transaction ended).
func (e *env) settledLog(ctx context.Context, timeout time.Duration) []event.Event {
	e.t.Helper()
	var prev []event.Event
	if !eventually(timeout, func() bool {
		cur, err := e.log(ctx)
		if err != nil {
			return false
		}
		same := len(cur) > 0 && len(cur) == len(prev)
		prev = cur
		if !same {
			time.Sleep(500 * time.Millisecond)
		}
		return same
	}) {
		e.t.Fatalf("the event log did not settle within %s", timeout)
	}
	return prev
}

func indexOf(evs []event.Event, id string) int {
	for i, ev := range evs {
		if ev.ID == id {
			return i
		}
	}
	return -1
}

func first(ids []string) []string { return ids[:min(len(ids), 3)] }

// endpointAt is a webhook endpoint registered during the run, with the
// transaction that registered it.
type endpointAt struct {
	sink *sink
	xid  string
}

// registerDuring registers a new endpoint for every event type, retrying
// while Postgres is down, and reads the id of the transaction that stored
// it.
func (e *env) registerDuring(ctx context.Context, c *client.Client, name string) *endpointAt {
	e.t.Helper()
	s := newSink(e.t, name, answer)
	var w *client.Webhook
	if !eventually(current().settle, func() bool {
		var err error
		w, err = c.Webhooks.Register(ctx, client.RegisterWebhookInput{URL: s.URL(), Events: []string{"*"}})
		if err != nil {
			time.Sleep(100 * time.Millisecond)
		}
		return err == nil
	}) {
		e.t.Fatalf("register %s: the service never accepted it", name)
	}
	s.id = w.ID
	s.secret.Store(&w.Secret)
	ep := &endpointAt{sink: s}
	if err := e.sql.QueryRowContext(ctx, `SELECT xmin::text FROM webhooks WHERE id = $1`, w.ID).Scan(&ep.xid); err != nil {
		e.t.Fatalf("read %s's transaction: %v", name, err)
	}
	return ep
}

// committedAfter lists the organization's events whose transactions
// committed after transaction xid, in log order.
func (e *env) committedAfter(ctx context.Context, xid string) ([]string, error) {
	rows, err := e.sql.QueryContext(ctx, `SELECT e.id FROM events e JOIN event_orgs eo ON eo.event_seq = e.seq
		WHERE eo.org_id = $1 AND pg_xact_commit_timestamp(e.xid::xid) > pg_xact_commit_timestamp($2::xid)
		ORDER BY e.xid, e.seq`, e.orgID, xid)
	if err != nil {
		return nil, fmt.Errorf("events committed after %s: %w", xid, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

// updateAgent renames an agent (an agent.updated event), retrying while the
// service recovers.
func (e *env) updateAgent(ctx context.Context, c *client.Client, id, name string) {
	e.t.Helper()
	if !eventually(current().settle, func() bool {
		_, err := c.Agents.Update(ctx, id, client.UpdateAgentInput{Name: &name})
		if err != nil {
			time.Sleep(100 * time.Millisecond)
		}
		return err == nil
	}) {
		e.t.Fatalf("update agent %s: the service never accepted it", id)
	}
}

// eventStream is one live subscriber of the scenario.
type eventStream interface {
	label() string
	// check waits until the stream received len(want) events and reports
	// how it differs from want ("" when it does not).
	check(want []string, timeout time.Duration) string
}

// goStream subscribes through the client library at base.
func (e *env) goStream(ctx context.Context, base, name string, opts client.SubscribeOptions) eventStream {
	e.t.Helper()
	return e.subscribeAt(ctx, base, name, opts)
}

func (s *subscriber) label() string { return s.name }

// rawStream is a subscription read by hand off the wire, promptly.
type rawStream struct {
	title string
	mu    sync.Mutex
	ids   []string
	ended string // why the server ended the stream ("" while it runs)
}

func (r *rawStream) label() string { return r.title }

func (r *rawStream) add(id string) {
	r.mu.Lock()
	r.ids = append(r.ids, id)
	r.mu.Unlock()
}

func (r *rawStream) end(why string) {
	r.mu.Lock()
	if r.ended == "" {
		r.ended = why
	}
	r.mu.Unlock()
}

func (r *rawStream) check(want []string, timeout time.Duration) string {
	eventually(timeout, func() bool {
		r.mu.Lock()
		defer r.mu.Unlock()
		return len(r.ids) >= len(want) || r.ended != ""
	})
	time.Sleep(200 * time.Millisecond)
	r.mu.Lock()
	got, ended := append([]string(nil), r.ids...), r.ended
	r.mu.Unlock()
	if ended != "" {
		return fmt.Sprintf("%s: closed after %d events: %s", r.title, len(got), ended)
	}
	return compareStreams(r.title, got, want)
}

const rawSubscription = `subscription { events { id } }`

// openWSStream subscribes over graphql-transport-ws.
func openWSStream(t *testing.T, base, key string) *rawStream {
	t.Helper()
	r := &rawStream{title: "websocket"}
	d := websocket.Dialer{Subprotocols: []string{"graphql-transport-ws"}, HandshakeTimeout: 10 * time.Second}
	conn, _, err := d.Dial("ws"+strings.TrimPrefix(base, "http")+"/graphql", http.Header{"Authorization": {"Bearer " + key}})
	if err != nil {
		t.Fatalf("websocket: %v", err)
	}
	t.Cleanup(func() { conn.Close() })
	type msg struct {
		ID      string          `json:"id,omitempty"`
		Type    string          `json:"type"`
		Payload json.RawMessage `json:"payload,omitempty"`
	}
	var wmu sync.Mutex
	write := func(m msg) error {
		wmu.Lock()
		defer wmu.Unlock()
		return conn.WriteJSON(m)
	}
	must := func(err error) {
		if err != nil {
			t.Fatalf("websocket: %v", err)
		}
	}
	must(write(msg{Type: "connection_init"}))
	var ack msg
	must(conn.ReadJSON(&ack))
	if ack.Type != "connection_ack" {
		t.Fatalf("websocket: %s before connection_ack", ack.Type)
	}
	payload, _ := json.Marshal(map[string]string{"query": rawSubscription})
	must(write(msg{ID: "1", Type: "subscribe", Payload: payload}))
	go func() {
		for {
			var m msg
			if err := conn.ReadJSON(&m); err != nil {
				r.end(err.Error())
				return
			}
			switch m.Type {
			case "next":
				var p struct {
					Data   struct{ Events struct{ ID string } }
					Errors []json.RawMessage
				}
				if json.Unmarshal(m.Payload, &p) != nil || len(p.Errors) > 0 {
					r.end("error: " + string(m.Payload))
					return
				}
				r.add(p.Data.Events.ID)
			case "ping":
				_ = write(msg{Type: "pong"})
			case "pong":
			default:
				r.end(m.Type + " " + string(m.Payload))
				return
			}
		}
	}()
	return r
}

// openSSEStream subscribes over graphql-sse's distinct connections.
func openSSEStream(t *testing.T, base, key string) *rawStream {
	t.Helper()
	r := &rawStream{title: "SSE"}
	body, _ := json.Marshal(map[string]string{"query": rawSubscription})
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, base+"/graphql", bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("SSE: %v", err)
	}
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("SSE: HTTP %d %s", resp.StatusCode, b)
	}
	go func() {
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		name := ""
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "event: "):
				name = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: ") && name == "next":
				var p struct {
					Data   struct{ Events struct{ ID string } }
					Errors []json.RawMessage
				}
				data := strings.TrimPrefix(line, "data: ")
				if json.Unmarshal([]byte(data), &p) != nil || len(p.Errors) > 0 {
					r.end("error: " + data)
					return
				}
				r.add(p.Data.Events.ID)
			case name == "complete":
				r.end("complete")
				return
			}
		}
		r.end(fmt.Sprintf("stream ended: %v", sc.Err()))
	}()
	return r
}

// cutter is a TCP proxy to a server that drops every connection through it
// when cut and refuses new ones until restored.
type cutter struct {
	URL   string
	ln    net.Listener
	to    string
	mu    sync.Mutex
	down  bool
	conns map[net.Conn]bool
}

func newCutter(t *testing.T, to string) *cutter {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c := &cutter{URL: "http://" + ln.Addr().String(), ln: ln, to: to, conns: map[net.Conn]bool{}}
	go c.serve()
	t.Cleanup(func() { ln.Close(); c.cut() })
	return c
}

func (c *cutter) serve() {
	for {
		in, err := c.ln.Accept()
		if err != nil {
			return
		}
		c.mu.Lock()
		down := c.down
		c.mu.Unlock()
		if down {
			in.Close()
			continue
		}
		out, err := net.Dial("tcp", c.to)
		if err != nil {
			in.Close()
			continue
		}
		c.mu.Lock()
		c.conns[in], c.conns[out] = true, true
		c.mu.Unlock()
		go func() { _, _ = io.Copy(out, in); out.Close(); in.Close() }()
		go func() { _, _ = io.Copy(in, out); in.Close(); out.Close() }()
	}
}

func (c *cutter) cut() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.down = true
	for conn := range c.conns {
		conn.Close()
		delete(c.conns, conn)
	}
}

func (c *cutter) restore() {
	c.mu.Lock()
	c.down = false
	c.mu.Unlock()
}
