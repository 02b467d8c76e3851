package httpapi_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agenttrust/service/httpapi"
)

const executeQuery = `mutation($input: ExecuteTransactionInput!) { executeTransaction(input: $input) { id } }`

// Filtering and tenancy over both websocket sub-protocols and SSE: each
// organization sees only its events, a transaction between two
// organizations reaches both once with one id, and types filter exactly.
func TestLiveEventsFilterAndTenancy(t *testing.T) {
	t.Parallel()
	b := setupLive(t)
	_, _, keyB := b.newOrg("globex")

	allA, _, err := dialWS(t, b.ts, transportWS)
	must(t, err)
	allA.init(map[string]any{"Authorization": "Bearer " + b.key})
	allA.subscribe("1", eventsSubscription, nil)

	txOnlyA, _, err := dialWS(t, b.ts, legacyWS, "Authorization", "Bearer "+b.key)
	must(t, err)
	txOnlyA.init(nil)
	txOnlyA.subscribe("t", eventsSubscription, map[string]any{"types": []string{"transaction.completed"}})

	allB, _, err := dialWS(t, b.ts, transportWS)
	must(t, err)
	allB.init(map[string]any{"authorization": "Bearer " + keyB})
	allB.subscribe("b", eventsSubscription, map[string]any{"types": []string{"*"}})

	sseB := openSSE(t, b.ts, keyB, eventsSubscription, nil)
	if sseB.resp.StatusCode != http.StatusOK || !strings.HasPrefix(sseB.resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("SSE answer %d %s", sseB.resp.StatusCode, sseB.resp.Header.Get("Content-Type"))
	}
	waitSubscribers(t, b, 4)

	agentA := b.registerAgent(b.ts, b.key, "payer")
	agentB := b.registerAgent(b.ts, keyB, "payee")
	var tx struct{ ID string }
	must(t, json.Unmarshal(b.do(b.ts, b.key, executeQuery, map[string]any{"input": map[string]any{
		"fromAgent": agentA, "toAgent": agentB, "action": "purchase", "amount": "5", "currency": "USD"}}, "executeTransaction"), &tx))

	gotA := allA.events("1", 2, eventWait)
	if gotA[0].Type != "agent.registered" || gotA[1].Type != "transaction.completed" {
		t.Fatalf("org A got %v", gotA)
	}
	var reg struct{ ID string }
	must(t, json.Unmarshal(gotA[0].Data, &reg))
	if reg.ID != agentA || !strings.HasPrefix(gotA[0].ID, "evt_") || !strings.HasSuffix(gotA[0].CreatedAt, "Z") {
		t.Fatalf("org A's agent.registered: %+v", gotA[0])
	}
	var txData struct{ ID string }
	must(t, json.Unmarshal(gotA[1].Data, &txData))
	if txData.ID != tx.ID {
		t.Fatalf("transaction.completed data %s, want %s", gotA[1].Data, tx.ID)
	}
	if got := txOnlyA.events("t", 1, eventWait); got[0].ID != gotA[1].ID {
		t.Fatalf("filtered stream got %v, want only %s", got, gotA[1].ID)
	}
	gotB := allB.events("b", 2, eventWait)
	if gotB[0].Type != "agent.registered" || gotB[1].ID != gotA[1].ID {
		t.Fatalf("org B got %v; the shared transaction event is %s", gotB, gotA[1].ID)
	}
	if sse := []gotEvent{sseB.event(t, eventWait), sseB.event(t, eventWait)}; !slices.Equal(ids(sse), ids(gotB)) {
		t.Fatalf("SSE got %v, websocket %v", ids(sse), ids(gotB))
	}
	// Trust events may follow the transaction; none of them may be
	// another organization's, and nothing arrives twice.
	b.registerAgent(b.ts, keyB, "second")
	rest := allA.drain("1", time.Second)
	for _, e := range rest {
		if e.Type == "agent.registered" || slices.Contains(ids(gotA), e.ID) {
			t.Fatalf("org A got %s %s after its own events", e.Type, e.ID)
		}
	}
	txOnlyA.quiet(200 * time.Millisecond)
}

// waitSubscribers waits until the hub holds n subscriptions.
func waitSubscribers(t *testing.T, b *liveBundle, n int) {
	t.Helper()
	deadline := time.Now().Add(eventWait)
	for b.srv.Hub.Subscribers() != n {
		if time.Now().After(deadline) {
			t.Fatalf("hub has %d subscriptions, want %d", b.srv.Hub.Subscribers(), n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Every way to fail authentication closes the websocket with 4401 before
// any operation runs (the legacy protocol sends connection_error first);
// SSE answers 401; a foreign browser origin is 403.
func TestLiveEventsAuthFailures(t *testing.T) {
	t.Parallel()
	b := setupLive(t)
	_, revokedID, revoked := b.newOrg("revoked")
	must(t, b.orgs.RevokeKey(t.Context(), revokedID))

	cases := map[string]struct {
		header  []string
		payload map[string]any
	}{
		"no key":                {nil, nil},
		"empty payload":         {nil, map[string]any{}},
		"unknown key":           {nil, map[string]any{"Authorization": "Bearer att_sk_unknown"}},
		"malformed":             {nil, map[string]any{"Authorization": "Basic dXNlcjpwYXNz"}},
		"revoked key":           {nil, map[string]any{"authorization": "Bearer " + revoked}},
		"bad upgrade header":    {[]string{"Authorization", "Bearer nope"}, nil},
		"revoked in header":     {[]string{"Authorization", "Bearer " + revoked}, map[string]any{"Authorization": "Bearer " + b.key}},
		"non-string in payload": {nil, map[string]any{"Authorization": 42}},
	}
	for name, c := range cases {
		for _, proto := range []string{transportWS, legacyWS} {
			w, _, err := dialWS(t, b.ts, proto, c.header...)
			must(t, err)
			w.send(map[string]any{"type": "connection_init", "payload": c.payload})
			w.subscribe("1", eventsSubscription, nil)
			if proto == legacyWS {
				if m := w.next(15 * time.Second); m.Type != "connection_error" || !strings.Contains(string(m.Payload), "UNAUTHENTICATED") {
					t.Errorf("%s over %s: want connection_error naming the API key, got %+v %s", name, proto, m, m.Payload)
				}
			}
			if reason := w.expectClose(4401, 15*time.Second); !strings.Contains(reason, "API key") && !strings.Contains(reason, "Authorization") {
				t.Errorf("%s over %s: close reason %q", name, proto, reason)
			}
		}
	}
	if n := b.srv.Hub.Subscribers(); n != 0 {
		t.Fatalf("a refused connection subscribed: %d", n)
	}

	for key, status := range map[string]int{"": http.StatusUnauthorized, "att_sk_unknown": http.StatusUnauthorized, revoked: http.StatusUnauthorized} {
		s := openSSE(t, b.ts, key, eventsSubscription, nil)
		if s.resp.StatusCode != status {
			t.Errorf("SSE with key %q: %d, want %d", key, s.resp.StatusCode, status)
		}
	}

	_, resp, err := dialWS(t, b.ts, transportWS, "Origin", "https://evil.example")
	if err == nil || resp == nil || resp.StatusCode != http.StatusForbidden {
		t.Fatalf("foreign origin: %v %v", resp, err)
	}
	w, _, err := dialWS(t, b.ts, transportWS, "Origin", b.ts.URL)
	must(t, err) // the service's own origin is allowed
	w.init(map[string]any{"Authorization": "Bearer " + b.key})
}

// Bad arguments are refused with the contract's codes, and the connection
// stays usable: queries and mutations also run over it.
func TestLiveEventsArgumentsAndOperations(t *testing.T) {
	t.Parallel()
	b := setupLive(t)
	_, _, keyB := b.newOrg("globex")
	// An event id org A cannot see: org B's, read from org B's stream.
	wb, _, err := dialWS(t, b.ts, transportWS)
	must(t, err)
	wb.init(map[string]any{"Authorization": "Bearer " + keyB})
	wb.subscribe("b", eventsSubscription, nil)
	waitSubscribers(t, b, 1)
	b.registerAgent(b.ts, keyB, "theirs")
	foreign := wb.events("b", 1, eventWait)[0].ID

	for i, proto := range []string{transportWS, legacyWS} {
		w, _, err := dialWS(t, b.ts, proto)
		must(t, err)
		w.init(map[string]any{"Authorization": "Bearer " + b.key})
		for id, c := range map[string]struct {
			vars map[string]any
			code string
			text string
		}{
			"unknown-type": {map[string]any{"types": []string{"agent.registered", "agent.exploded"}}, "VALIDATION_FAILED", "agent.exploded"},
			"empty-types":  {map[string]any{"types": []string{}}, "VALIDATION_FAILED", "types"},
			"foreign":      {map[string]any{"after": foreign}, "NOT_FOUND", foreign},
			"missing":      {map[string]any{"after": "evt_doesnotexist"}, "NOT_FOUND", "evt_doesnotexist"},
		} {
			w.subscribe(id, eventsSubscription, c.vars)
			m := w.next(15 * time.Second)
			if m.ID != id || !strings.Contains(string(m.Payload), c.code) || !strings.Contains(string(m.Payload), c.text) {
				t.Fatalf("%s over %s: want %s naming %s, got %+v %s", id, proto, c.code, c.text, m, m.Payload)
			}
			if m.Type == "next" || m.Type == "data" { // gqlgen sends the resolver's error as a result, then complete
				if c := w.next(15 * time.Second); c.Type != "complete" || c.ID != id {
					t.Fatalf("%s: want complete, got %+v", id, c)
				}
			}
		}
		w.subscribe("q", `{ agents { totalCount } }`, nil)
		if p := w.result("q", 15*time.Second); !strings.Contains(string(p), fmt.Sprintf(`"totalCount":%d`, i)) {
			t.Fatalf("query over %s: %s", proto, p)
		}
		w.subscribe("m", registerQuery, map[string]any{"input": map[string]any{"name": "ws", "authorizedActions": []string{"purchase"},
			"spendingLimit": "1", "currency": "USD", "environment": "sandbox"}})
		if p := w.result("m", 15*time.Second); !strings.Contains(string(p), `"agent_`) {
			t.Fatalf("mutation over %s: %s", proto, p)
		}
	}
	if n := b.srv.Hub.Subscribers(); n != 1 {
		t.Fatalf("refused subscriptions were registered: %d", n)
	}
}

// Connection attempts and every operation over a websocket take a token
// from the key's rate limit.
func TestLiveEventsRateLimit(t *testing.T) {
	t.Parallel()
	b := setupLiveConfig(t, func(c *httpapi.Config) { c.RateLimitRPS, c.RateLimitBurst = 0.01, 3 })
	w, _, err := dialWS(t, b.ts, transportWS)
	must(t, err)
	w.init(map[string]any{"Authorization": "Bearer " + b.key}) // token 1
	w.subscribe("1", eventsSubscription, nil)                  // token 2
	w.subscribe("q", `{ agents { totalCount } }`, nil)         // token 3
	if p := w.result("q", 15*time.Second); !strings.Contains(string(p), `"totalCount":0`) {
		t.Fatalf("query within the limit: %s", p)
	}
	w.subscribe("over", `{ agents { totalCount } }`, nil)
	m := w.next(15 * time.Second)
	for m.Type == "complete" && m.ID == "q" {
		m = w.next(15 * time.Second)
	}
	if m.ID != "over" || !strings.Contains(string(m.Payload), "RATE_LIMITED") || !strings.Contains(string(m.Payload), "retryAfter") {
		t.Fatalf("operation over the limit: %+v %s", m, m.Payload)
	}
	again, _, err := dialWS(t, b.ts, legacyWS)
	must(t, err)
	again.send(map[string]any{"type": "connection_init", "payload": map[string]any{"Authorization": "Bearer " + b.key}})
	if m := again.next(15 * time.Second); m.Type != "connection_error" || !strings.Contains(string(m.Payload), "rate limit") {
		t.Fatalf("connection over the limit: %+v %s", m, m.Payload)
	}
	again.expectClose(4429, 15*time.Second)
}

// WS_ALLOWED_ORIGINS admits the listed browser origins besides the service's own.
func TestLiveEventsAllowedOrigins(t *testing.T) {
	t.Parallel()
	b := setupLiveConfig(t, func(c *httpapi.Config) { c.WSAllowedOrigins = []string{"https://app.example.com"} })
	for origin, ok := range map[string]bool{"https://app.example.com": true, "https://evil.example": false, b.ts.URL: true} {
		_, resp, err := dialWS(t, b.ts, transportWS, "Origin", origin)
		if ok != (err == nil) || (!ok && (resp == nil || resp.StatusCode != http.StatusForbidden)) {
			t.Errorf("origin %s: %v %v", origin, resp, err)
		}
	}
}

// Failed keys at connection_init count against the address's budget of
// failed attempts, like bad keys over HTTP: once it is spent an unknown key
// is refused (4429) without a lookup, while a valid key is still served.
func TestLiveEventsFailedAuthLimit(t *testing.T) {
	t.Parallel()
	b := setupLiveConfig(t, func(c *httpapi.Config) { c.AuthFailureBurst = 2; c.AuthFailuresPerMinute = 1 })
	initWith := func(key string) *wsClient {
		w, _, err := dialWS(t, b.ts, transportWS)
		must(t, err)
		w.send(map[string]any{"type": "connection_init", "payload": map[string]any{"Authorization": "Bearer " + key}})
		return w
	}
	for i := range 2 {
		initWith("att_sk_"+strings.Repeat("x", 40+i)).expectClose(4401, 15*time.Second)
	}
	initWith("att_sk_"+strings.Repeat("x", 50)).expectClose(4429, 15*time.Second)
	w := initWith(b.key)
	if m := w.next(15 * time.Second); m.Type != "connection_ack" {
		t.Fatalf("valid key after the address's budget is spent: %+v", m)
	}
}
