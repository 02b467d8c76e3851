package delivery

import (
	"testing"
	"time"
)

// TestEndpointsAdmitUpToTheLimit: an endpoint admits limit jobs, all sharing
// its limit request slots; one more is told to snooze about the time in
// which one of them may end at the pace of the oldest (within
// [minSnooze, maxSnooze], give or take a quarter); other endpoints are not
// held up, and a place left is taken again at once.
func TestEndpointsAdmitUpToTheLimit(t *testing.T) {
	t.Parallel()
	now := time.Unix(1_700_000_000, 0)
	e := newEndpoints(4)
	e.now = func() time.Time { return now }
	var started []time.Time
	for i := range 4 {
		slots, at, _, ok := e.admit("hung")
		if !ok || cap(slots) != 4 {
			t.Fatalf("job %d: admitted %v with %d slots, want admitted with 4", i, ok, cap(slots))
		}
		started = append(started, at)
		now = now.Add(time.Millisecond)
	}
	within := func(what string, got, want time.Duration) {
		t.Helper()
		if got < want*3/4 || got > want*5/4 {
			t.Fatalf("%s: snooze %s, want %s give or take a quarter", what, got, want)
		}
	}
	if _, _, snooze, ok := e.admit("hung"); ok {
		t.Fatal("a fifth job was admitted")
	} else {
		within("at once", snooze, minSnooze)
	}
	now = now.Add(2 * time.Second) // the oldest has run about 2 s: one of 4 may end within 500 ms
	_, _, snooze, _ := e.admit("hung")
	within("after 2 s", snooze, 500*time.Millisecond)
	now = now.Add(time.Minute) // a hung endpoint: bounded
	_, _, snooze, _ = e.admit("hung")
	within("after a minute", snooze, maxSnooze)
	if _, _, _, ok := e.admit("other"); !ok {
		t.Fatal("another endpoint was turned away")
	}
	e.leave("hung", started[0])
	if _, _, _, ok := e.admit("hung"); !ok {
		t.Fatal("a place left was not taken again")
	}
	for _, at := range started[1:] {
		e.leave("hung", at)
	}
	e.leave("hung", now)
	if _, ok := e.m["hung"]; ok {
		t.Fatal("an endpoint with no job running is still kept")
	}
}
