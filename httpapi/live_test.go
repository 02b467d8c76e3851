package httpapi_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
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

	gotA := allA.events("1", 2, 10*time.Second)
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
	if got := txOnlyA.events("t", 1, 10*time.Second); got[0].ID != gotA[1].ID {
		t.Fatalf("filtered stream got %v, want only %s", got, gotA[1].ID)
	}
	gotB := allB.events("b", 2, 10*time.Second)
	if gotB[0].Type != "agent.registered" || gotB[1].ID != gotA[1].ID {
		t.Fatalf("org B got %v; the shared transaction event is %s", gotB, gotA[1].ID)
	}
	if sse := []gotEvent{sseB.event(t, 10*time.Second), sseB.event(t, 10*time.Second)}; !slices.Equal(ids(sse), ids(gotB)) {
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
	deadline := time.Now().Add(10 * time.Second)
	for b.srv.Hub.Subscribers() != n {
		if time.Now().After(deadline) {
			t.Fatalf("hub has %d subscriptions, want %d", b.srv.Hub.Subscribers(), n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
