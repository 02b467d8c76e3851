package client_test

import (
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/agenttrust/service/client"
	"github.com/agenttrust/service/db"
	"github.com/agenttrust/service/db/dbtest"
	"github.com/agenttrust/service/wire"
)

// wsOutage refuses websocket upgrades with 503 while down, like a service
// whose live edge went away, and counts the upgrades it refused; plain HTTP
// requests pass, so events keep being committed.
type wsOutage struct {
	next    http.Handler
	mu      sync.Mutex
	down    bool
	refused int
}

func (o *wsOutage) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if websocket.IsWebSocketUpgrade(r) {
		o.mu.Lock()
		down := o.down
		if down {
			o.refused++
		}
		o.mu.Unlock()
		if down {
			http.Error(w, "unavailable", http.StatusServiceUnavailable)
			return
		}
	}
	o.next.ServeHTTP(w, r)
}

func (o *wsOutage) set(down bool) {
	o.mu.Lock()
	o.down, o.refused = down, 0
	o.mu.Unlock()
}

func (o *wsOutage) refusedUpgrades() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.refused
}

// TestSubscribeRealServerResume streams events from the real service, forces
// a disconnect, commits events while the service refuses reconnects, and
// expects every event once and in log order.
func TestSubscribeRealServerResume(t *testing.T) {
	t.Parallel()
	d := dbtest.New(t)
	ctx, srv := runService(t, wire.Options{DB: d})
	sw := &wsOutage{next: srv}
	ts := httptest.NewUnstartedServer(sw)
	var hijacked sync.Map // the websocket connections
	ts.Config.ConnState = func(conn net.Conn, state http.ConnState) {
		if state == http.StateHijacked {
			hijacked.Store(conn, true)
		}
	}
	ts.Start()
	t.Cleanup(ts.Close)
	_, _, key, err := db.NewOrgService(d).CreateOrg(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.New(client.Options{APIKey: key, BaseURL: ts.URL, RetryWaitMin: 10 * time.Millisecond, RetryWaitMax: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	var registered []string
	register := func() {
		t.Helper()
		a, err := c.Agents.Register(ctx, client.RegisterAgentInput{Name: "a", AuthorizedActions: []string{"purchase"},
			SpendingLimit: dec("10"), Currency: "USD", Environment: client.Sandbox})
		if err != nil {
			t.Fatal(err)
		}
		registered = append(registered, a.ID)
	}
	st, err := c.Events.Subscribe(ctx, client.SubscribeOptions{Types: []string{"agent.registered"}})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()

	var got, eventIDs []string
	next := func() {
		t.Helper()
		select {
		case ev, ok := <-st.Events():
			if !ok {
				t.Fatalf("stream ended: %v", st.Err())
			}
			if ev.Type != "agent.registered" || ev.CreatedAt.IsZero() {
				t.Fatalf("event %+v", ev)
			}
			i := slices.IndexFunc(registered, func(id string) bool { return strings.Contains(string(ev.Data), id) })
			if i < 0 {
				t.Fatalf("event of no registered agent: %s", ev.Data)
			}
			got = append(got, registered[i])
			eventIDs = append(eventIDs, ev.ID)
		case <-time.After(15 * time.Second):
			t.Fatalf("no event after %v", got)
		}
	}
	// The subscription starts live: register until its first event arrives.
	for len(got) == 0 {
		register()
		if len(registered) > 100 {
			t.Fatal("no event for 100 registrations")
		}
		func() {
			select {
			case ev, ok := <-st.Events():
				if !ok {
					t.Fatalf("stream ended: %v", st.Err())
				}
				i := slices.IndexFunc(registered, func(id string) bool { return strings.Contains(string(ev.Data), id) })
				if i < 0 {
					t.Fatalf("event of no registered agent: %s", ev.Data)
				}
				got, eventIDs = append(got, registered[i]), append(eventIDs, ev.ID)
			case <-time.After(100 * time.Millisecond):
			}
		}()
	}
	start := slices.Index(registered, got[0])
	register()
	register()
	for len(got) < len(registered)-start {
		next()
	}

	sw.set(true)
	hijacked.Range(func(conn, _ any) bool { // the websocket connection drops
		conn.(net.Conn).Close()
		return true
	})
	for range 3 {
		register() // committed during the outage
	}
	for deadline := time.Now().Add(10 * time.Second); sw.refusedUpgrades() < 2; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the client did not try to reconnect")
		}
	}
	sw.set(false)
	register()
	for len(got) < len(registered)-start {
		next()
	}
	if want := registered[start:]; !slices.Equal(got, want) {
		t.Fatalf("events of %v, want %v", got, want)
	}
	if st.LastEventID() != eventIDs[len(eventIDs)-1] || len(slices.Compact(slices.Clone(eventIDs))) != len(eventIDs) {
		t.Fatalf("event ids %v, last %s", eventIDs, st.LastEventID())
	}
	select {
	case ev := <-st.Events():
		t.Fatalf("extra event %+v", ev)
	case <-time.After(200 * time.Millisecond):
	}
}

// TestSubscribeRealServerRefusals: a bad key fails Subscribe at once; an
// unknown event type ends the stream with the server's validation error.
func TestSubscribeRealServerRefusals(t *testing.T) {
	t.Parallel()
	d := dbtest.New(t)
	ctx, srv := runService(t, wire.Options{DB: d})
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	_, _, key, err := db.NewOrgService(d).CreateOrg(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}

	bad, _ := client.New(client.Options{APIKey: "att_sk_wrong", BaseURL: ts.URL})
	if _, err := bad.Events.Subscribe(ctx, client.SubscribeOptions{}); !errors.Is(err, client.ErrUnauthenticated) {
		t.Fatalf("bad key: %v", err)
	}

	c, _ := client.New(client.Options{APIKey: key, BaseURL: ts.URL})
	st, err := c.Events.Subscribe(ctx, client.SubscribeOptions{Types: []string{"no.such_type"}})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case _, ok := <-st.Events():
		if ok {
			t.Fatal("an event for an unknown type")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the stream did not end")
	}
	if !errors.Is(st.Err(), client.ErrValidation) {
		t.Fatalf("unknown type: %v", st.Err())
	}
}
