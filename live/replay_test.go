package live_test

import (
	"errors"
	"testing"
	"time"

	"github.com/agenttrust/service/event"
	"github.com/agenttrust/service/failure"
	"github.com/agenttrust/service/live"
)

// A resume point that more than MaxReplay stored events of the
// subscription's types follow (only the organization's own count) is
// refused on after, and the charge is not asked; so is one that more than
// 50 times MaxReplay events of any type follow. Within the bounds the charge
// is asked for the events to read, and its refusal refuses the
// subscription. Nothing is registered either way.
func TestHubReplayBound(t *testing.T) {
	t.Parallel()
	hub, src, ctx := runHub(t, live.Options{Poll: time.Hour, MaxReplay: 3})
	for _, org := range []string{"org_a", "org_a", "org_b", "org_a", "org_a", "org_a"} {
		src.append(event.AgentRegistered, org) // evt_000001..6
	}
	charged := -1
	charge := func(n int) error { charged = n; return nil }
	_, err := hub.Subscribe(ctx, live.Request{OrgID: "org_a", After: "evt_000001", Charge: charge})
	if fe := failure.As(err); fe == nil || fe.Code != failure.ValidationFailed || fe.FieldErrors[0].Field != "after" || charged != -1 {
		t.Fatalf("4 events back: %v (charged %d)", err, charged)
	}
	// A filter that matches none of the 4 sends nothing: it reads them.
	_, err = hub.Subscribe(ctx, live.Request{OrgID: "org_a", After: "evt_000001", Types: []string{event.TransactionCompleted}, Charge: charge})
	if err != nil || charged != 4 {
		t.Fatalf("4 events of other types back: %v (charged %d)", err, charged)
	}
	charged = -1
	for range 3*50 - 3 {
		src.append(event.AgentUpdated, "org_a")
	}
	if _, err := hub.Subscribe(ctx, live.Request{OrgID: "org_a", After: "evt_000001", Types: []string{event.TransactionCompleted}, Charge: charge}); failure.As(err) == nil || charged != -1 {
		t.Fatalf("151 events of other types back: %v (charged %d)", err, charged)
	}
	s, err := hub.Subscribe(ctx, live.Request{OrgID: "org_a", After: "evt_000002", Types: []string{event.AgentRegistered}, Charge: charge})
	if err != nil || charged != 3+147 {
		t.Fatalf("3 events back: %v (charged %d)", err, charged)
	}
	for _, want := range []string{"evt_000004", "evt_000005", "evt_000006"} {
		if ev := <-s.C; ev.ID != want {
			t.Fatalf("replayed %s, want %s", ev.ID, want)
		}
	}
	refused := errors.New("no tokens")
	if _, err := hub.Subscribe(ctx, live.Request{OrgID: "org_a", After: "evt_000004", Types: []string{event.AgentRegistered}, Charge: func(int) error { return refused }}); err != refused {
		t.Fatalf("charge refused: %v", err)
	}
	if n := hub.Subscribers(); n != 2 {
		t.Fatalf("%d subscribers, want the two admitted", n)
	}
}
