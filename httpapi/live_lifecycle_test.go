package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agenttrust/service/auth"
	"github.com/agenttrust/service/httpapi"
	"github.com/agenttrust/service/live"
)

// Revoking a key ends its live websocket and SSE subscriptions within
// auth.RevocationBound, on every process serving them (the notification
// closes them, not the periodic re-check); other keys' connections stay.
func TestLiveEventsRevokedKeyEndsSubscriptions(t *testing.T) {
	t.Parallel()
	// The periodic re-check is far off: only the notification can close in time.
	b := setupLiveConfig(t, func(c *httpapi.Config) { c.KeyRecheck = time.Hour })
	_, otherProcess := b.process()
	keyID, key, err := b.orgs.CreateKey(t.Context(), b.orgID)
	must(t, err)

	here, _, err := dialWS(t, b.ts, transportWS)
	must(t, err)
	here.init(map[string]any{"Authorization": "Bearer " + key})
	here.subscribe("1", eventsSubscription, nil)
	there, _, err := dialWS(t, otherProcess, legacyWS, "Authorization", "Bearer "+key)
	must(t, err)
	there.init(nil)
	there.subscribe("1", eventsSubscription, nil)
	sse := openSSE(t, b.ts, key, eventsSubscription, nil)
	kept, _, err := dialWS(t, b.ts, transportWS)
	must(t, err)
	kept.init(map[string]any{"Authorization": "Bearer " + b.key})
	kept.subscribe("k", eventsSubscription, nil)
	waitSubscribers(t, b, 3)

	must(t, b.orgs.RevokeKey(t.Context(), keyID))
	revokedAt := time.Now()
	for _, w := range []*wsClient{here, there} {
		if reason := w.expectClose(4401, auth.RevocationBound-time.Since(revokedAt)); !strings.Contains(reason, "revoked") {
			t.Fatalf("close reason %q", reason)
		}
	}
	ev := sse.next(auth.RevocationBound - time.Since(revokedAt))
	if ev.name != "next" || !strings.Contains(ev.data, "UNAUTHENTICATED") || !strings.Contains(ev.data, "4401") {
		t.Fatalf("SSE after revocation: %+v", ev)
	}
	if ev := sse.next(time.Second); ev.name != "complete" {
		t.Fatalf("SSE after the error: %+v", ev)
	}
	b.registerAgent(b.ts, b.key, "still-here")
	if got := kept.events("k", 1, eventWait); got[0].Type != "agent.registered" {
		t.Fatalf("the other key's subscription got %v", got)
	}
}

// burstEvents commits n events of the bundle's organization in one
// transaction (ids evt_burst00001 on) and wakes the hub: it reads them in
// one batch and hands them over at once, far faster than any connection
// drains a small queue.
func burstEvents(t *testing.T, b *liveBundle, n int) {
	t.Helper()
	conn := openSQL(t, b.dbURL)
	_, err := conn.ExecContext(t.Context(), `WITH e AS (
		INSERT INTO events (id, type, org_ids, data) SELECT 'evt_burst' || lpad(g::text, 5, '0'), 'agent.updated', ARRAY[$1], '{}'
		FROM generate_series(1, $2) g RETURNING seq)
		INSERT INTO event_orgs (org_id, event_seq) SELECT $1, seq FROM e`, b.orgID, n)
	must(t, err)
	_, err = conn.ExecContext(t.Context(), `SELECT pg_notify('att_events', '0')`)
	must(t, err)
}

// Subscribers that read promptly receive a burst far larger than their
// queue whole and in order, over websockets and SSE: they catch up from the
// log instead of being closed as slow.
func TestLiveEventsBurstReachesPromptSubscribers(t *testing.T) {
	t.Parallel()
	b := setupLive(t, func(o *live.Options) { o.Buffer = 4 })
	ws, _, err := dialWS(t, b.ts, transportWS)
	must(t, err)
	ws.init(map[string]any{"Authorization": "Bearer " + b.key})
	ws.subscribe("s", eventsSubscription, nil)
	sse := openSSE(t, b.ts, b.key, eventsSubscription, nil)
	waitSubscribers(t, b, 2)

	const burst = 300
	burstEvents(t, b, burst)
	for i, e := range ws.events("s", burst, eventWait) {
		if e.ID != "evt_burst"+leftPad(i+1) {
			t.Fatalf("websocket: event %d is %s", i, e.ID)
		}
	}
	for i := range burst {
		if e := sse.event(t, eventWait); e.ID != "evt_burst"+leftPad(i+1) {
			t.Fatalf("SSE: event %d is %s", i, e.ID)
		}
	}
	if m := metric(t, b, "att_live_slow_consumer_closes_total"); m != 0 {
		t.Fatalf("%v slow-consumer closes", m)
	}
	if m := metric(t, b, "att_live_catch_ups_total"); m < 1 {
		t.Fatalf("catch-ups metric %v: the burst never overflowed a queue", m)
	}
}

// A subscriber that stays behind for SlowAfter and falls Buffer events
// behind is closed with 4420 and the id to resume after; it never holds up
// others, and resuming loses nothing.
func TestLiveEventsSlowConsumer(t *testing.T) {
	t.Parallel()
	// Behind for a nanosecond is too long: any overflow closes.
	b := setupLive(t, func(o *live.Options) { o.Buffer, o.SlowAfter = 4, time.Nanosecond })

	slow, _, err := dialWS(t, b.ts, transportWS)
	must(t, err)
	slow.init(map[string]any{"Authorization": "Bearer " + b.key})
	slow.subscribe("s", eventsSubscription, nil)
	sse := openSSE(t, b.ts, b.key, eventsSubscription, nil)
	waitSubscribers(t, b, 2)

	const burst = 300
	burstEvents(t, b, burst)

	var got []gotEvent
	var reason string
	for reason == "" {
		m := slow.next(eventWait)
		switch m.Type {
		case "next":
			var p struct{ Data struct{ Events gotEvent } }
			must(t, json.Unmarshal(m.Payload, &p))
			got = append(got, p.Data.Events)
		case "close":
			if m.closeCode != 4420 {
				t.Fatalf("closed with %d %q, want 4420", m.closeCode, m.closeReason)
			}
			reason = m.closeReason
		default:
			t.Fatalf("slow subscriber: %+v", m)
		}
	}
	if len(got) >= burst {
		t.Fatalf("the slow subscriber got all %d events", len(got))
	}
	want := "slow consumer: resubscribe"
	if len(got) > 0 {
		want += " with after=" + got[len(got)-1].ID
	}
	if reason != want {
		t.Fatalf("close reason %q, want %q", reason, want)
	}
	// Resume exactly where it stopped.
	again, _, err := dialWS(t, b.ts, transportWS)
	must(t, err)
	again.init(map[string]any{"Authorization": "Bearer " + b.key})
	vars := map[string]any{}
	if len(got) > 0 {
		vars["after"] = got[len(got)-1].ID
	}
	again.subscribe("r", eventsSubscription, vars)
	rest := again.events("r", burst-len(got), eventWait)
	all := append(got, rest...)
	for i, e := range all {
		if e.ID != "evt_burst"+leftPad(i+1) {
			t.Fatalf("event %d is %s after resuming", i, e.ID)
		}
	}
	// The SSE subscriber was slow too: its stream ends with the reason.
	for {
		ev := sse.next(eventWait)
		if ev.name == "next" && strings.Contains(ev.data, "errors") {
			if !strings.Contains(ev.data, "4420") || !strings.Contains(ev.data, "resumeAfter") {
				t.Fatalf("SSE slow-consumer error: %s", ev.data)
			}
			break
		}
		if ev.name != "next" {
			t.Fatalf("SSE stream ended without the slow-consumer error: %+v", ev)
		}
	}
	if m := metric(t, b, "att_live_slow_consumer_closes_total"); m < 2 {
		t.Fatalf("slow consumer closes metric %v", m)
	}
}

func leftPad(i int) string { return fmt.Sprintf("%05d", i) }

// Two processes on one database: a mutation served by one reaches a
// subscriber of the other.
func TestLiveEventsAcrossProcesses(t *testing.T) {
	t.Parallel()
	b := setupLive(t)
	_, other := b.process()
	w, _, err := dialWS(t, other, transportWS)
	must(t, err)
	w.init(map[string]any{"Authorization": "Bearer " + b.key})
	w.subscribe("1", eventsSubscription, map[string]any{"types": []string{"agent.registered"}})
	time.Sleep(200 * time.Millisecond) // the other process's hub registers it
	agentID := b.registerAgent(b.ts, b.key, "cross")
	got := w.events("1", 1, eventWait)
	if !strings.Contains(string(got[0].Data), agentID) {
		t.Fatalf("other process delivered %+v", got[0])
	}
}

// Shutdown stops new subscriptions, sends what was read, completes the
// open ones and closes websockets normally.
func TestLiveEventsShutdown(t *testing.T) {
	t.Parallel()
	b := setupLive(t)
	w, _, err := dialWS(t, b.ts, transportWS)
	must(t, err)
	w.init(map[string]any{"Authorization": "Bearer " + b.key})
	w.subscribe("1", eventsSubscription, nil)
	legacy, _, err := dialWS(t, b.ts, legacyWS, "Authorization", "Bearer "+b.key)
	must(t, err)
	legacy.init(nil)
	legacy.subscribe("2", eventsSubscription, nil)
	sse := openSSE(t, b.ts, b.key, eventsSubscription, nil)
	waitSubscribers(t, b, 3)
	b.registerAgent(b.ts, b.key, "before")
	w.events("1", 1, eventWait)
	// A query on the same connection completes without ending its subscription.
	w.subscribe("q", `{ agents { totalCount } }`, nil)
	w.result("q", eventWait)
	if m := w.next(eventWait); m.Type != "complete" || m.ID != "q" {
		t.Fatalf("query: want complete, got %+v", m)
	}
	legacy.events("2", 1, eventWait)
	sse.event(t, eventWait)

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	start := time.Now()
	must(t, b.srv.Shutdown(ctx))
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("shutdown took %s", d)
	}
	for _, c := range []struct {
		w  *wsClient
		id string
	}{{w, "1"}, {legacy, "2"}} {
		if m := c.w.next(5 * time.Second); m.Type != "complete" || m.ID != c.id {
			t.Fatalf("want complete, got %+v", m)
		}
		c.w.expectClose(1000, 5*time.Second)
	}
	if ev := sse.next(5 * time.Second); ev.name != "complete" {
		t.Fatalf("SSE at shutdown: %+v", ev)
	}
	if _, _, err := dialWS(t, b.ts, transportWS); err == nil {
		t.Fatal("a websocket opened after shutdown")
	}
}

// Killing the listener's connection loses nothing: events committed while
// it reconnects still arrive, once each.
func TestLiveEventsListenerReconnect(t *testing.T) {
	t.Parallel()
	b := setupLive(t)
	conn := openSQL(t, b.dbURL)
	w, _, err := dialWS(t, b.ts, transportWS)
	must(t, err)
	w.init(map[string]any{"Authorization": "Bearer " + b.key})
	w.subscribe("1", eventsSubscription, map[string]any{"types": []string{"agent.registered"}})
	waitSubscribers(t, b, 1)
	first := b.registerAgent(b.ts, b.key, "before")
	if got := w.events("1", 1, eventWait); !strings.Contains(string(got[0].Data), first) {
		t.Fatalf("before the reconnect: %+v", got)
	}
	var killed int
	must(t, conn.QueryRowContext(t.Context(), `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
		WHERE datname = current_database() AND application_name = 'att-listener'`).Scan(&killed))
	if killed != 1 {
		t.Fatalf("terminated %d listener connections, want 1", killed)
	}
	var want []string
	for i := range 3 {
		want = append(want, b.registerAgent(b.ts, b.key, fmt.Sprint("during-", i)))
	}
	got := w.events("1", 3, eventWait)
	for i, e := range got {
		if !strings.Contains(string(e.Data), want[i]) {
			t.Fatalf("after the reconnect, event %d is %s, want agent %s", i, e.Data, want[i])
		}
	}
	w.quiet(300 * time.Millisecond)
}
