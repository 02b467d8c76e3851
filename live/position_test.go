package live_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/agenttrust/service/event"
	"github.com/agenttrust/service/failure"
	"github.com/agenttrust/service/live"
)

// A position taken from the hub, asleep (read from the log's head) or
// awake (its own), starts a subscription after exactly that moment: every
// event committed afterwards arrives, however late the subscription comes,
// and none before. A malformed token is VALIDATION_FAILED on after.
func TestHubPositionStartsAfterThatMoment(t *testing.T) {
	t.Parallel()
	hub, src, ctx := runHub(t, live.Options{Poll: time.Hour})
	src.append(event.AgentRegistered, "org_a")
	asleep, err := hub.Position(ctx)
	if err != nil {
		t.Fatal(err)
	}
	src.append(event.AgentRegistered, "org_a") // evt_000002
	other, err := hub.Subscribe(ctx, live.Request{OrgID: "org_b"})
	if err != nil {
		t.Fatal(err)
	}
	src.append(event.AgentRegistered, "org_a") // evt_000003
	src.notify()
	waitHubAt(t, hub, src)
	awake, err := hub.Position(ctx)
	if err != nil {
		t.Fatal(err)
	}
	src.append(event.AgentRegistered, "org_a", "org_b") // evt_000004, committed while nobody of org_a listens
	subs := map[string]*live.Subscription{}
	for name, after := range map[string]string{"asleep": asleep, "awake": awake} {
		if subs[name], err = hub.Subscribe(ctx, live.Request{OrgID: "org_a", After: after}); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	src.append(event.AgentUpdated, "org_a") // evt_000005
	src.notify()
	for name, want := range map[string][]string{
		"asleep": {"evt_000002", "evt_000003", "evt_000004", "evt_000005"},
		"awake":  {"evt_000004", "evt_000005"},
	} {
		var got []string
		for len(got) < len(want) {
			select {
			case ev := <-subs[name].C:
				got = append(got, ev.ID)
			case <-time.After(10 * time.Second):
				t.Fatalf("%s: got %v, want %v", name, got, want)
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("%s: got %v, want %v", name, got, want)
		}
	}
	if ev := <-other.C; ev.ID != "evt_000004" {
		t.Fatalf("org_b got %s first", ev.ID)
	}
	_, err = hub.Subscribe(ctx, live.Request{OrgID: "org_a", After: "pos_!!"})
	var fe *failure.Error
	if !errors.As(err, &fe) || fe.Code != failure.ValidationFailed {
		t.Fatalf("malformed position: %v", err)
	}
}

// waitHubAt waits until the awake hub has fanned out the whole log.
func waitHubAt(t *testing.T, hub *live.Hub, src *memLog) {
	t.Helper()
	head, _ := src.EventHead(t.Context())
	want := live.PositionToken(head)
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		if p, _ := hub.Position(t.Context()); p == want {
			return
		}
	}
	t.Fatal("the hub never reached the log's head")
}
