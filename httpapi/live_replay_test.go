package httpapi_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agenttrust/service/httpapi"
	"github.com/agenttrust/service/live"
)

// seedEvents stores n events of orgID in one transaction, behind the
// service's back, and returns every stored event id of orgID in log order.
func seedEvents(t *testing.T, b *liveBundle, orgID string, n int) []string {
	t.Helper()
	conn := openSQL(t, b.dbURL)
	_, err := conn.Exec(`WITH e AS (
			INSERT INTO events (id, type, org_ids, data, created_at)
			SELECT 'evt_seed' || lpad(g::text, 6, '0'), 'agent.updated', ARRAY[$1], '{"seeded":true}', now()
			FROM generate_series(1, $2) g RETURNING seq)
		INSERT INTO event_orgs (org_id, event_seq) SELECT $1, seq FROM e`, orgID, n)
	must(t, err)
	rows, err := conn.Query(`SELECT e.id FROM events e JOIN event_orgs eo ON eo.event_seq = e.seq
		WHERE eo.org_id = $1 ORDER BY e.xid, e.seq`, orgID)
	must(t, err)
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		must(t, rows.Scan(&id))
		out = append(out, id)
	}
	return out
}

// refusedReplay fails unless payload is the replay bound's refusal:
// VALIDATION_FAILED on after, naming the bound and telling the client to resync.
func refusedReplay(t *testing.T, how string, payload []byte) {
	t.Helper()
	var p struct {
		Errors []struct {
			Message    string
			Extensions struct {
				Code        string
				FieldErrors []struct{ Field string }
			}
		}
	}
	if err := json.Unmarshal(payload, &p); err != nil || len(p.Errors) != 1 {
		t.Fatalf("%s: want the replay refused, got %s", how, payload)
	}
	e := p.Errors[0]
	if e.Extensions.Code != "VALIDATION_FAILED" || len(e.Extensions.FieldErrors) != 1 || e.Extensions.FieldErrors[0].Field != "after" ||
		!strings.Contains(e.Message, "more than 5 stored events") || !strings.Contains(e.Message, "resync from the list queries") {
		t.Fatalf("%s: want VALIDATION_FAILED on after naming the bound, got %s", how, payload)
	}
}

// A replay is at most LIVE_REPLAY_MAX_EVENTS stored events: an after within
// the bound replays exactly the events after it, one further back ends the
// subscription with VALIDATION_FAILED on after before any event is sent,
// over both websocket protocols and SSE.
func TestLiveEventsReplayBound(t *testing.T) {
	t.Parallel()
	b := setupLive(t, func(o *live.Options) { o.MaxReplay = 5 })
	seeded := seedEvents(t, b, b.orgID, 8)
	within, beyond := seeded[len(seeded)-6], seeded[len(seeded)-7]

	for _, proto := range []string{transportWS, legacyWS} {
		w, _, err := dialWS(t, b.ts, proto)
		must(t, err)
		w.init(map[string]any{"Authorization": "Bearer " + b.key})
		w.subscribe("far", eventsSubscription, map[string]any{"after": beyond})
		m := w.next(15 * time.Second)
		if m.ID != "far" || (m.Type != "next" && m.Type != "data") {
			t.Fatalf("%s: want the refusal first, got %+v %s", proto, m, m.Payload)
		}
		refusedReplay(t, proto, m.Payload)
		if c := w.next(15 * time.Second); c.Type != "complete" || c.ID != "far" {
			t.Fatalf("%s: want complete after the refusal, got %+v", proto, c)
		}
		w.subscribe("near", eventsSubscription, map[string]any{"after": within})
		if got := ids(w.events("near", 5, eventWait)); !slices.Equal(got, seeded[len(seeded)-5:]) {
			t.Fatalf("%s: replayed %v, want %v", proto, got, seeded[len(seeded)-5:])
		}
	}

	far := openSSE(t, b.ts, b.key, eventsSubscription, map[string]any{"after": beyond})
	ev := far.next(15 * time.Second)
	if ev.name != "next" {
		t.Fatalf("sse: want the refusal first, got %+v", ev)
	}
	refusedReplay(t, "sse", []byte(ev.data))
	if ev := far.next(15 * time.Second); ev.name != "complete" {
		t.Fatalf("sse: want complete after the refusal, got %+v", ev)
	}
	near := openSSE(t, b.ts, b.key, eventsSubscription, map[string]any{"after": within})
	for _, want := range seeded[len(seeded)-5:] {
		if got := near.event(t, eventWait); got.ID != want {
			t.Fatalf("sse replay: got %s, want %s", got.ID, want)
		}
	}
}

// A replay is charged like reads, one token per 200 stored events, before
// any event is sent: one the key's bucket cannot pay for is RATE_LIMITED.
func TestLiveEventsReplayCharged(t *testing.T) {
	t.Parallel()
	b := setupLiveConfig(t, func(c *httpapi.Config) { c.RateLimitRPS, c.RateLimitBurst = 0.001, 4 })
	seeded := seedEvents(t, b, b.orgID, 402)
	w, _, err := dialWS(t, b.ts, transportWS)
	must(t, err)
	w.init(map[string]any{"Authorization": "Bearer " + b.key}) // 1 token
	// 1 token for the field; 401 events to replay cost 3 more, and 2 are left.
	w.subscribe("long", eventsSubscription, map[string]any{"after": seeded[0]})
	m := w.next(15 * time.Second)
	if m.ID != "long" || !strings.Contains(string(m.Payload), "RATE_LIMITED") {
		t.Fatalf("replay over the rate: %+v %s", m, m.Payload)
	}
	// 1 token for the field, 1 for 199 events: the last 2 tokens.
	w.subscribe("short", eventsSubscription, map[string]any{"after": seeded[len(seeded)-200]})
	if got := w.events("short", 199, eventWait); got[0].ID != seeded[len(seeded)-199] || got[198].ID != seeded[len(seeded)-1] {
		t.Fatalf("replay within the rate: %s..%s", got[0].ID, got[198].ID)
	}
}
