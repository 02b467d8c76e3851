package live_test

import (
	"errors"
	"testing"
	"time"

	"github.com/agenttrust/service/event"
	"github.com/agenttrust/service/failure"
	"github.com/agenttrust/service/live"
)

// A resume point more than MaxReplay stored events back (of any type, and
// only the organization's own count) is refused on after, and the charge is
// not asked; within the bound the charge is asked for the events to replay,
// and its refusal refuses the subscription. Nothing is registered either way.
func TestHubReplayBound(t *testing.T) {
	t.Parallel()
	hub, src, ctx := runHub(t, live.Options{Poll: time.Hour, MaxReplay: 3})
	for _, org := range []string{"org_a", "org_a", "org_b", "org_a", "org_a", "org_a"} {
		src.append(event.AgentRegistered, org) // evt_000001..6
	}
	charged := -1
	charge := func(n int) error { charged = n; return nil }
	_, err := hub.Subscribe(ctx, live.Request{OrgID: "org_a", After: "evt_000001", Types: []string{event.TransactionCompleted}, Charge: charge})
	if fe := failure.As(err); fe == nil || fe.Code != failure.ValidationFailed || fe.FieldErrors[0].Field != "after" || charged != -1 {
		t.Fatalf("4 events back: %v (charged %d)", err, charged)
	}
	s, err := hub.Subscribe(ctx, live.Request{OrgID: "org_a", After: "evt_000002", Charge: charge})
	if err != nil || charged != 3 {
		t.Fatalf("3 events back: %v (charged %d)", err, charged)
	}
	for _, want := range []string{"evt_000004", "evt_000005", "evt_000006"} {
		if ev := <-s.C; ev.ID != want {
			t.Fatalf("replayed %s, want %s", ev.ID, want)
		}
	}
	refused := errors.New("no tokens")
	if _, err := hub.Subscribe(ctx, live.Request{OrgID: "org_a", After: "evt_000004", Charge: func(int) error { return refused }}); err != refused {
		t.Fatalf("charge refused: %v", err)
	}
	if n := hub.Subscribers(); n != 1 {
		t.Fatalf("%d subscribers, want the one admitted", n)
	}
}
