package delivery_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/agenttrust/service/event"
	"github.com/agenttrust/service/webhook/delivery"
	"github.com/agenttrust/service/webhook/webhooktest"
)

const wait = 15 * time.Second

// logged returns the org's logged event with id, waiting for it to be readable.
func logged(t *testing.T, e *webhooktest.Env, id string) event.Event {
	t.Helper()
	deadline := time.Now().Add(wait)
	for time.Now().Before(deadline) {
		evs, err := e.DB.ReadOrgEvents(context.Background(), e.OrgID, event.Position{}, 1000)
		if err != nil {
			t.Fatal(err)
		}
		for _, ev := range evs {
			if ev.ID == id {
				return ev
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("event %s not in the log", id)
	return event.Event{}
}

func TestDeliversSignedEventsToMatchingEndpoints(t *testing.T) {
	t.Parallel()
	e := webhooktest.NewEnv(t, webhooktest.Options{})
	all, agents, txs := webhooktest.New(t), webhooktest.New(t), webhooktest.New(t)
	_, allSecret := e.Register(all.URL(), "*")
	_, agentSecret := e.Register(agents.URL(), event.AgentRegistered)
	e.Register(txs.URL(), event.TransactionCompleted)
	e.Start(delivery.Config{})

	e.RegisterAgent("a1")
	got := all.Wait(t, 1, wait, event.AgentRegistered)[0]
	webhooktest.Verify(t, got, allSecret)
	ag := agents.Wait(t, 1, wait, event.AgentRegistered)[0]
	webhooktest.Verify(t, ag, agentSecret)
	if webhooktest.Check(ag, allSecret) == nil {
		t.Fatal("one endpoint's delivery verifies under another endpoint's secret")
	}
	if got.Header.Get("webhook-id") != got.Message.ID || got.Message.ID != ag.Message.ID {
		t.Fatalf("webhook-id %q, body id %q, other endpoint's %q: want the same event id", got.Header.Get("webhook-id"), got.Message.ID, ag.Message.ID)
	}
	if ct := got.Header.Get("Content-Type"); ct != "application/json" {
		t.Fatalf("Content-Type %q", ct)
	}
	ev := logged(t, e, got.Message.ID)
	if ev.Type != got.Message.Type || !jsonEqual(ev.Data, got.Message.Data) {
		t.Fatalf("delivered %s %s, logged %s %s", got.Message.Type, got.Message.Data, ev.Type, ev.Data)
	}
	if got.Message.Timestamp != event.FormatTime(ev.CreatedAt) {
		t.Fatalf("timestamp %q, event created %s", got.Message.Timestamp, event.FormatTime(ev.CreatedAt))
	}
	time.Sleep(300 * time.Millisecond)
	if n := len(txs.Requests(event.AgentRegistered)); n != 0 {
		t.Fatalf("endpoint filtering transaction.completed got %d agent.registered deliveries", n)
	}
	if n := len(all.Requests(event.AgentRegistered)); n != 1 {
		t.Fatalf("got %d deliveries of one event, want 1", n)
	}
}

func jsonEqual(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	ja, _ := json.Marshal(x)
	jb, _ := json.Marshal(y)
	return bytes.Equal(ja, jb)
}

var _ = http.StatusOK
