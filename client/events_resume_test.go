package client_test

import (
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agenttrust/service/client"
	"github.com/agenttrust/service/db"
	"github.com/agenttrust/service/db/dbtest"
	"github.com/agenttrust/service/event"
	"github.com/agenttrust/service/live"
	"github.com/agenttrust/service/wire"
)

// outageServer is the real service behind wsOutage, whose websocket
// connections cut drops.
type outageServer struct {
	sw       *wsOutage
	ts       *httptest.Server
	hijacked sync.Map
	c        *client.Client
	db       *db.DB
	orgID    string
}

func newOutageServer(t *testing.T, lo live.Options) *outageServer {
	t.Helper()
	d := dbtest.New(t)
	ctx, srv := runService(t, wire.Options{DB: d, Live: lo})
	o := &outageServer{sw: &wsOutage{next: srv}, db: d}
	o.ts = httptest.NewUnstartedServer(o.sw)
	o.ts.Config.ConnState = func(conn net.Conn, state http.ConnState) {
		if state == http.StateHijacked {
			o.hijacked.Store(conn, true)
		}
	}
	o.ts.Start()
	t.Cleanup(o.ts.Close)
	orgID, _, key, err := db.NewOrgService(d).CreateOrg(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	o.orgID = orgID
	if o.c, err = client.New(client.Options{APIKey: key, BaseURL: o.ts.URL, RetryWaitMin: 10 * time.Millisecond, RetryWaitMax: 50 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	return o
}

// cut drops every websocket and refuses new ones until restore.
func (o *outageServer) cut() {
	o.sw.set(true)
	o.hijacked.Range(func(conn, _ any) bool {
		conn.(net.Conn).Close()
		o.hijacked.Delete(conn)
		return true
	})
}

// restore accepts websockets again once the client has tried one.
func (o *outageServer) restore(t *testing.T) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); o.sw.refusedUpgrades() < 1; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the client did not try to reconnect")
		}
	}
	o.sw.set(false)
}

func (o *outageServer) register(t *testing.T, name string) string {
	t.Helper()
	a, err := o.c.Agents.Register(t.Context(), client.RegisterAgentInput{Name: name, AuthorizedActions: []string{"purchase"},
		SpendingLimit: dec("10"), Currency: "USD", Environment: client.Sandbox})
	if err != nil {
		t.Fatal(err)
	}
	return a.ID
}

// events reads n events of the stream, returning the agent ids they name.
func streamAgents(t *testing.T, st *client.EventStream, n int) []string {
	t.Helper()
	var out []string
	for len(out) < n {
		select {
		case ev, ok := <-st.Events():
			if !ok {
				t.Fatalf("stream ended after %v: %v", out, st.Err())
			}
			i := strings.Index(string(ev.Data), `"id":"agent_`)
			if i < 0 {
				t.Fatalf("event without an agent: %s", ev.Data)
			}
			out = append(out, strings.SplitN(string(ev.Data[i+6:]), `"`, 2)[0])
		case <-time.After(15 * time.Second):
			t.Fatalf("got %v of %d events", out, n)
		}
	}
	return out
}

// A stream opened without After that drops before its first event resumes
// from the moment it was opened: the events committed while it was away
// arrive, once and in order.
func TestSubscribeWithoutAfterDropsBeforeItsFirstEvent(t *testing.T) {
	t.Parallel()
	o := newOutageServer(t, live.Options{})
	st, err := o.c.Events.Subscribe(t.Context(), client.SubscribeOptions{Types: []string{"agent.registered"}})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if p := st.LastEventID(); !strings.HasPrefix(p, "pos_") {
		t.Fatalf("LastEventID before the first event %q, want the position the stream opened at", p)
	}
	o.cut()
	want := []string{o.register(t, "a"), o.register(t, "b"), o.register(t, "c")}
	o.restore(t)
	want = append(want, o.register(t, "d"))
	if got := streamAgents(t, st, len(want)); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("events of %v, want %v", got, want)
	}
}

// A resume point further back than the server replays ends the stream with
// a *ResyncError that names it and the position to subscribe from once the
// state is re-read; a stream from that position gets what follows it.
func TestSubscribeResyncRequired(t *testing.T) {
	t.Parallel()
	o := newOutageServer(t, live.Options{MaxReplay: 2})
	st, err := o.c.Events.Subscribe(t.Context(), client.SubscribeOptions{Types: []string{"agent.registered"}})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	first := o.register(t, "first")
	streamAgents(t, st, 1)
	seen := st.LastEventID()
	o.cut()
	for _, n := range []string{"a", "b", "c"} {
		o.register(t, n)
	}
	// Once log readers see them (a transaction of another test may hold
	// them back a moment), the position of the refusal is after them.
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		evs, err := o.db.ReadOrgEvents(t.Context(), o.orgID, event.Position{}, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(evs) == 4 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of 4 events readable", len(evs))
		}
	}
	o.restore(t)
	select {
	case ev, ok := <-st.Events():
		if ok {
			t.Fatalf("an event after the refused resume: %+v", ev)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("the stream did not end")
	}
	var re *client.ResyncError
	if !errors.As(st.Err(), &re) || !errors.Is(st.Err(), client.ErrResyncRequired) || !errors.Is(st.Err(), client.ErrValidation) {
		t.Fatalf("stream ended with %v, want a *ResyncError", st.Err())
	}
	if re.After != seen || !strings.HasPrefix(re.Position, "pos_") {
		t.Fatalf("resync after %q from %q; the stream saw %s (agent %s)", re.After, re.Position, seen, first)
	}
	again, err := o.c.Events.Subscribe(t.Context(), client.SubscribeOptions{Types: []string{"agent.registered"}, After: re.Position})
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	next := o.register(t, "next")
	if got := streamAgents(t, again, 1); got[0] != next {
		t.Fatalf("first event after resyncing names %s, want %s", got[0], next)
	}
}
