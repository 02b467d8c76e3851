package httpapi_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agenttrust/service/httpapi"
	"github.com/agenttrust/service/internal/testkit"
)

// refusedStatus reads a refused HTTP answer's status and GraphQL error.
func refusedStatus(t *testing.T, resp *http.Response) (int, testkit.GQLError) {
	t.Helper()
	if resp == nil {
		t.Fatal("no HTTP answer")
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var body struct{ Errors []testkit.GQLError }
	if err := json.Unmarshal(raw, &body); err != nil || len(body.Errors) != 1 {
		t.Fatalf("HTTP %d %s", resp.StatusCode, raw)
	}
	return resp.StatusCode, body.Errors[0]
}

// wantCapRefusal checks a refusal is RATE_LIMITED naming its setting.
func wantCapRefusal(t *testing.T, what string, status int, e testkit.GQLError, setting string) {
	t.Helper()
	if status != http.StatusTooManyRequests || e.Extensions["code"] != "RATE_LIMITED" ||
		e.Extensions["retryAfter"] == nil || !strings.Contains(e.Message, setting) {
		t.Fatalf("%s: HTTP %d %+v, want 429 RATE_LIMITED naming %s", what, status, e, setting)
	}
}

// Websockets that never send connection_init are capped per client
// address; one that authenticates frees its place.
func TestLiveCapUnauthenticatedPerAddress(t *testing.T) {
	t.Parallel()
	b := setupLiveConfig(t, func(c *httpapi.Config) { c.MaxUnauthenticatedPerAddress = 3 })
	var idle []*wsClient
	for range 3 {
		w, _, err := dialWS(t, b.ts, transportWS)
		must(t, err)
		idle = append(idle, w)
	}
	_, resp, err := dialWS(t, b.ts, transportWS)
	if err == nil {
		t.Fatal("a 4th websocket without connection_init was accepted")
	}
	if !resp.Close {
		t.Error("a refused upgrade keeps its connection open")
	}
	status, e := refusedStatus(t, resp)
	wantCapRefusal(t, "4th unauthenticated websocket", status, e, "LIVE_UNAUTHENTICATED_PER_ADDRESS")
	idle[0].init(map[string]any{"Authorization": "Bearer " + b.key})
	w, _, err := dialWS(t, b.ts, transportWS)
	must(t, err)
	w.init(map[string]any{"Authorization": "Bearer " + b.key})
	if m := metric(t, b, "att_live_cap_refusals_total"); m != 1 {
		t.Fatalf("att_live_cap_refusals_total %v, want 1", m)
	}
}

// Live connections are capped per organization, websockets and SSE
// together; closing one frees its place; another organization is not
// affected.
func TestLiveCapConnectionsPerOrg(t *testing.T) {
	t.Parallel()
	b := setupLiveConfig(t, func(c *httpapi.Config) { c.MaxConnectionsPerOrg = 2 })
	first, _, err := dialWS(t, b.ts, transportWS)
	must(t, err)
	first.init(map[string]any{"Authorization": "Bearer " + b.key})
	sse := openSSE(t, b.ts, b.key, eventsSubscription, nil)
	waitSubscribers(t, b, 1)

	third, _, err := dialWS(t, b.ts, transportWS)
	must(t, err)
	third.send(map[string]any{"type": "connection_init", "payload": map[string]any{"Authorization": "Bearer " + b.key}})
	if reason := third.expectClose(4429, 15*time.Second); !strings.Contains(reason, "LIVE_CONNECTIONS_PER_ORG") {
		t.Fatalf("close reason %q does not name the cap", reason)
	}
	req, _ := http.NewRequest(http.MethodPost, b.ts.URL+"/graphql", strings.NewReader(`{"query":"subscription { events { id } }"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Authorization", "Bearer "+b.key)
	resp, err := b.ts.Client().Do(req)
	must(t, err)
	status, e := refusedStatus(t, resp)
	wantCapRefusal(t, "SSE over the cap", status, e, "LIVE_CONNECTIONS_PER_ORG")

	_, _, otherKey := b.newOrg("other")
	other, _, err := dialWS(t, b.ts, transportWS)
	must(t, err)
	other.init(map[string]any{"Authorization": "Bearer " + otherKey})

	must(t, sse.resp.Body.Close())
	waitSubscribers(t, b, 0)
	deadline := time.Now().Add(eventWait)
	for {
		again, _, err := dialWS(t, b.ts, transportWS)
		must(t, err)
		again.send(map[string]any{"type": "connection_init", "payload": map[string]any{"Authorization": "Bearer " + b.key}})
		if m := again.next(15 * time.Second); m.Type == "connection_ack" {
			break
		} else if time.Now().After(deadline) {
			t.Fatalf("after an SSE stream closed: %+v", m)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Subscriptions are capped per organization across connections and
// transports; the refused one is a RATE_LIMITED error, and completing one
// frees its place.
func TestLiveCapSubscriptionsPerOrg(t *testing.T) {
	t.Parallel()
	b := setupLiveConfig(t, func(c *httpapi.Config) { c.MaxSubscriptionsPerOrg = 2 })
	w, _, err := dialWS(t, b.ts, transportWS)
	must(t, err)
	w.init(map[string]any{"Authorization": "Bearer " + b.key})
	w.subscribe("a", eventsSubscription, nil)
	openSSE(t, b.ts, b.key, eventsSubscription, nil)
	waitSubscribers(t, b, 2)

	w.subscribe("b", eventsSubscription, nil)
	m := w.next(15 * time.Second)
	var p struct{ Errors []testkit.GQLError }
	_ = json.Unmarshal(m.Payload, &p)
	if m.ID != "b" || len(p.Errors) != 1 || p.Errors[0].Extensions["code"] != "RATE_LIMITED" ||
		!strings.Contains(p.Errors[0].Message, "LIVE_SUBSCRIPTIONS_PER_ORG") {
		t.Fatalf("3rd subscription: %+v %s", m, m.Payload)
	}
	if m := w.next(15 * time.Second); m.Type != "complete" || m.ID != "b" {
		t.Fatalf("after the refusal: %+v", m)
	}
	sse := openSSE(t, b.ts, b.key, eventsSubscription, nil)
	if ev := sse.next(15 * time.Second); ev.name != "next" || !strings.Contains(ev.data, "RATE_LIMITED") {
		t.Fatalf("SSE subscription over the cap: %+v", ev)
	}
	if b.srv.Hub.Subscribers() != 2 {
		t.Fatalf("refused subscriptions reached the hub: %d", b.srv.Hub.Subscribers())
	}

	w.send(map[string]any{"type": "complete", "id": "a"})
	if m := w.next(15 * time.Second); m.Type != "complete" || m.ID != "a" {
		t.Fatalf("completing a: %+v", m)
	}
	waitSubscribers(t, b, 1)
	// The place is given back as the operation's context ends, beside the
	// hub's own unregistering: retry a refusal briefly.
	deadline := time.Now().Add(eventWait)
	for i := 0; b.srv.Hub.Subscribers() < 2; i++ {
		id := "c" + strings.Repeat("x", i)
		w.subscribe(id, eventsSubscription, nil)
		if m := w.next(time.Second); m.Type != "" {
			if m.ID != id || !strings.Contains(string(m.Payload), "RATE_LIMITED") {
				t.Fatalf("subscription after one completed: %+v %s", m, m.Payload)
			}
			w.next(15 * time.Second) // its complete
		}
		if time.Now().After(deadline) {
			t.Fatal("a completed subscription's place was not freed")
		}
	}
}
