package live_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agenttrust/service/event"
	"github.com/agenttrust/service/live"
)

// memLog is an in-memory log that counts the statements a hub issues.
type memLog struct {
	mu    sync.Mutex
	evs   []event.Event
	reads atomic.Int64 // ReadEvents calls: the hub's statements
	wake  func()
	ready chan struct{}
}

func (m *memLog) append(typ string, orgs ...string) {
	m.mu.Lock()
	n := len(m.evs) + 1
	m.evs = append(m.evs, event.Event{ID: fmt.Sprintf("evt_%06d", n), Type: typ, OrgIDs: orgs,
		Position: event.Position{XID: uint64(n), Seq: int64(n)}, CreatedAt: time.Now()})
	m.mu.Unlock()
}

func (m *memLog) ReadEvents(_ context.Context, after event.Position, limit int) ([]event.Event, error) {
	m.reads.Add(1)
	return m.read("", after, limit), nil
}

func (m *memLog) read(org string, after event.Position, limit int) []event.Event {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []event.Event
	for _, e := range m.evs {
		if after.Less(e.Position) && len(out) < limit && (org == "" || contains(e.OrgIDs, org)) {
			out = append(out, e)
		}
	}
	return out
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

func (m *memLog) ReadOrgEvents(_ context.Context, org string, after event.Position, limit int) ([]event.Event, error) {
	return m.read(org, after, limit), nil
}

func (m *memLog) CountOrgEvents(_ context.Context, org string, after event.Position, types []string, limit int) (all, matching int, err error) {
	for _, e := range m.read(org, after, limit) {
		all++
		if len(types) == 0 || contains(types, e.Type) {
			matching++
		}
	}
	return all, matching, nil
}

func (m *memLog) EventHead(context.Context) (event.Position, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.evs) == 0 {
		return event.Position{}, nil
	}
	return m.evs[len(m.evs)-1].Position, nil
}

func (m *memLog) EventPosition(_ context.Context, org, id string) (event.Position, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, e := range m.evs {
		if e.ID == id && contains(e.OrgIDs, org) {
			return e.Position, nil
		}
	}
	return event.Position{}, fmt.Errorf("not found")
}

func (m *memLog) ListenEvents(ctx context.Context, wake func()) {
	m.mu.Lock()
	m.wake = wake
	m.mu.Unlock()
	close(m.ready)
	<-ctx.Done()
}

func (m *memLog) notify() {
	m.mu.Lock()
	w := m.wake
	m.mu.Unlock()
	w()
}

// One read per wake-up whatever the number of subscribers and
// organizations; a subscriber that never reads holds up nobody, and is
// dropped as slow once its queue overflows; the others get every event of
// their organization once, in order.
func TestHubFanOut(t *testing.T) {
	t.Parallel()
	hub, src, ctx := runHub(t, live.Options{Buffer: 16, SlowAfter: 50 * time.Millisecond, Poll: time.Hour})

	const orgs, perOrg = 50, 20
	subs := make([]*live.Subscription, 0, orgs*perOrg)
	for o := range orgs {
		for range perOrg {
			s, err := hub.Subscribe(ctx, live.Request{OrgID: fmt.Sprint("org_", o)})
			if err != nil {
				t.Fatal(err)
			}
			subs = append(subs, s)
		}
	}
	stuck, err := hub.Subscribe(ctx, live.Request{OrgID: "org_0"})
	if err != nil {
		t.Fatal(err)
	}
	// The first subscriber woke the hub, which reads once as it starts.
	for deadline := time.Now().Add(5 * time.Second); src.reads.Load() == 0 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	got := make([][]string, len(subs))
	var wg sync.WaitGroup
	for i, s := range subs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ev := range s.C {
				got[i] = append(got[i], ev.ID)
				if len(got[i]) == 3*4 {
					return
				}
			}
		}()
	}
	const waves = 4
	for range waves {
		before := src.reads.Load()
		for o := range orgs {
			src.append(event.AgentRegistered, fmt.Sprint("org_", o))
			src.append(event.TransactionCompleted, fmt.Sprint("org_", o), fmt.Sprint("org_", (o+1)%orgs))
		}
		src.notify()
		deadline := time.Now().Add(5 * time.Second)
		for src.reads.Load() == before && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
		time.Sleep(20 * time.Millisecond)
		if n := src.reads.Load() - before; n != 1 {
			t.Fatalf("%d reads for one wake-up with %d subscribers", n, len(subs)+1)
		}
	}
	wg.Wait()
	for i, ids := range got {
		if len(ids) != 3*waves {
			t.Fatalf("subscriber %d got %d events, want %d", i, len(ids), 3*waves)
		}
		for j := 1; j < len(ids); j++ {
			if ids[j] <= ids[j-1] {
				t.Fatalf("subscriber %d: %s after %s", i, ids[j], ids[j-1])
			}
		}
	}
	// The stuck subscriber holds 12 events; 20 more overflow its queue.
	for range 20 {
		src.append(event.AgentUpdated, "org_0")
	}
	src.notify()
	// It and org_0's readers, who stopped reading at 12, overflow.
	deadline := time.Now().Add(5 * time.Second)
	for hub.Subscribers() > len(subs)+1-1-perOrg && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	n := 0
	for range stuck.C {
		n++
	}
	// Its queue of 16, plus perhaps the one its stream held at the overflow.
	if stuck.Err() != live.ErrSlowConsumer || n < 16 || n > 17 {
		t.Fatalf("stuck subscriber: %d events then %v", n, stuck.Err())
	}
}

// A burst far larger than a subscription's buffer, read by the hub in one
// batch (the backlog after an outage, one large transaction), reaches a
// subscriber that reads promptly whole and in order: it catches up from
// the log instead of being closed as slow. So does one resuming with after,
// whose replay runs while the burst arrives, and one filtering by type.
func TestHubPromptSubscriberKeepsUpThroughABurst(t *testing.T) {
	t.Parallel()
	hub, src, ctx := runHub(t, live.Options{Buffer: 16, Batch: 500, Poll: time.Hour})
	for range 40 {
		src.append(event.AgentRegistered, "org_a")
	}
	all, err := hub.Subscribe(ctx, live.Request{OrgID: "org_a"})
	if err != nil {
		t.Fatal(err)
	}
	resumed, err := hub.Subscribe(ctx, live.Request{OrgID: "org_a", After: "evt_000001"})
	if err != nil {
		t.Fatal(err)
	}
	updates, err := hub.Subscribe(ctx, live.Request{OrgID: "org_a", Types: []string{event.AgentUpdated}})
	if err != nil {
		t.Fatal(err)
	}
	var want, wantUpdates []string
	for i := range 499 {
		typ := event.AgentRegistered
		if i%3 == 0 {
			typ = event.AgentUpdated
		}
		src.append(typ, "org_a", "org_b")
		id := fmt.Sprintf("evt_%06d", 41+i)
		want = append(want, id)
		if typ == event.AgentUpdated {
			wantUpdates = append(wantUpdates, id)
		}
	}
	src.notify()
	var wantResumed []string
	for i := 2; i <= 40; i++ {
		wantResumed = append(wantResumed, fmt.Sprintf("evt_%06d", i))
	}
	wantResumed = append(wantResumed, want...)
	for _, c := range []struct {
		name string
		s    *live.Subscription
		want []string
	}{{"all", all, want}, {"resumed", resumed, wantResumed}, {"updates", updates, wantUpdates}} {
		var got []string
		timeout := time.After(30 * time.Second)
		for len(got) < len(c.want) {
			select {
			case ev, ok := <-c.s.C:
				if !ok {
					t.Fatalf("%s: closed after %d of %d events: %v", c.name, len(got), len(c.want), c.s.Err())
				}
				got = append(got, ev.ID)
			case <-timeout:
				t.Fatalf("%s: %d of %d events", c.name, len(got), len(c.want))
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Fatalf("%s: got %v,\nwant %v", c.name, got, c.want)
		}
	}
	if n := hub.Subscribers(); n != 3 {
		t.Fatalf("%d subscribers left, want 3", n)
	}
}

func TestRequestValidate(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		types []string
		ok    bool
	}{
		{nil, true},
		{[]string{"*"}, true},
		{[]string{"agent.registered", "transaction.completed"}, true},
		{[]string{}, false},
		{[]string{"agent.exploded"}, false},
		{[]string{"*", "agent.registered"}, false},
		{[]string{"webhook.test"}, false},
	} {
		if err := (live.Request{OrgID: "org_a", Types: c.types}).Validate(); (err == nil) != c.ok {
			t.Errorf("types %q: %v", c.types, err)
		}
	}
}

// Resuming after an event this hub has not fanned out yet (another replica
// was ahead) replays nothing and drops the live events up to it: none is
// sent twice. Without after, a subscriber gets what the hub fans out next.
func TestHubResumeAheadOfHub(t *testing.T) {
	t.Parallel()
	hub, src, ctx := runHub(t, live.Options{Poll: time.Hour})
	// A subscriber keeps the hub awake at the log's head (it would start
	// from the new head on waking otherwise).
	if _, err := hub.Subscribe(ctx, live.Request{OrgID: "org_b"}); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		src.append(event.AgentRegistered, "org_a") // evt_000001..3, not yet fanned out
	}
	// The subscription's own context, so that ending it cannot race the
	// hub's shutdown (which would end it with ErrShutdown instead).
	subCtx, unsubscribe := context.WithCancel(t.Context())
	defer unsubscribe()
	ahead, err := hub.Subscribe(subCtx, live.Request{OrgID: "org_a", After: "evt_000002"})
	if err != nil {
		t.Fatal(err)
	}
	src.append(event.AgentRegistered, "org_a")
	src.notify()
	for _, want := range []string{"evt_000003", "evt_000004"} {
		select {
		case ev := <-ahead.C:
			if ev.ID != want {
				t.Fatalf("got %s, want %s", ev.ID, want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("no %s", want)
		}
	}
	unsubscribe()
	for range ahead.C {
		t.Fatal("an event after the end")
	}
	if ahead.Err() != context.Canceled {
		t.Fatalf("ended with %v", ahead.Err())
	}
}

// With no subscriber the hub reads nothing, however many notifications
// arrive. The first subscriber wakes it at the log's head: it gets what is
// committed after it subscribed, and a subscriber resuming after an event
// committed while the hub slept gets the rest from the log, once each. When
// the last subscriber leaves, the hub sleeps again.
func TestHubSleepsWithoutSubscribers(t *testing.T) {
	t.Parallel()
	hub, src, ctx := runHub(t, live.Options{Poll: time.Hour})
	for range 5 {
		src.append(event.AgentRegistered, "org_a") // evt_000001..5
		src.notify()
	}
	time.Sleep(50 * time.Millisecond)
	if n := src.reads.Load(); n != 0 {
		t.Fatalf("%d reads with no subscriber", n)
	}
	subCtx, unsubscribe := context.WithCancel(ctx)
	fresh, err := hub.Subscribe(subCtx, live.Request{OrgID: "org_a"})
	if err != nil {
		t.Fatal(err)
	}
	resumed, err := hub.Subscribe(subCtx, live.Request{OrgID: "org_a", After: "evt_000003"})
	if err != nil {
		t.Fatal(err)
	}
	src.append(event.AgentRegistered, "org_a") // evt_000006
	src.notify()
	next := func(s *live.Subscription, want string) {
		t.Helper()
		select {
		case ev := <-s.C:
			if ev.ID != want {
				t.Fatalf("got %s, want %s", ev.ID, want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("no %s", want)
		}
	}
	next(fresh, "evt_000006")
	for _, want := range []string{"evt_000004", "evt_000005", "evt_000006"} {
		next(resumed, want)
	}
	unsubscribe()
	for range fresh.C {
		t.Fatal("an event after the end")
	}
	for range resumed.C {
		t.Fatal("an event after the end")
	}
	time.Sleep(20 * time.Millisecond)
	before := src.reads.Load()
	for range 3 {
		src.append(event.AgentRegistered, "org_a")
		src.notify()
	}
	time.Sleep(50 * time.Millisecond)
	if n := src.reads.Load() - before; n != 0 {
		t.Fatalf("%d reads after the last subscriber left", n)
	}
}

// runHub starts a hub over an empty log and returns once it has read the
// log's head; it stops with the test, whose context it returns.
func runHub(t *testing.T, opts live.Options) (*live.Hub, *memLog, context.Context) {
	src := &memLog{ready: make(chan struct{})}
	hub := live.NewHub(src, opts)
	go hub.Run(t.Context()) //nolint:errcheck
	<-src.ready
	return hub, src, t.Context()
}
