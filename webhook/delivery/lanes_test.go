package delivery

import (
	"testing"
	"time"
)

// TestLanesTellTurnedAwayJobsWhenAPlaceMayFree: an endpoint admits limit
// jobs; one more is told to wait about the time in which one of them can be
// expected to end (how long the endpoint's jobs have been taking, or the
// oldest running one has been running, over limit), the jobs behind the
// limit oldest waiting longer by their place in line, within
// [minLaneWait, maxLaneWait]; a place left is taken again at once.
func TestLanesTellTurnedAwayJobsWhenAPlaceMayFree(t *testing.T) {
	t.Parallel()
	now := time.Unix(1_700_000_000, 0)
	l := newLanes(4)
	l.now = func() time.Time { return now }
	var admitJob func(key string, job int64) (time.Time, time.Duration, bool)
	var job int64
	admit := func(key string) (time.Time, time.Duration, bool) {
		t.Helper()
		job++
		return admitJob(key, job)
	}
	admitJob = func(key string, job int64) (time.Time, time.Duration, bool) {
		t.Helper()
		sl, started, wait, ok := l.admit(key, job)
		if ok != (sl != nil) {
			t.Fatalf("admit(%s): slots %v, ok %v", key, sl, ok)
		}
		return started, wait, ok
	}
	var started []time.Time
	for range 4 {
		s, _, ok := admit("hung")
		if !ok {
			t.Fatal("an endpoint with free places turned a job away")
		}
		started = append(started, s)
	}
	if _, wait, ok := admit("hung"); ok || wait != minLaneWait {
		t.Fatalf("a fifth job at once: admitted %v, wait %s; want turned away for %s", ok, wait, minLaneWait)
	}
	now = now.Add(2 * time.Second) // the oldest has run 2 s: one of 4 may end within 500 ms
	if _, wait, ok := admit("hung"); ok || wait != 500*time.Millisecond {
		t.Fatalf("after 2 s: admitted %v, wait %s; want turned away for 500ms", ok, wait)
	}
	// Twelve jobs waiting for the 4 places (the same job asking again
	// counts once): the 4 oldest come back when a place may free, the
	// others later by their place in line.
	for range 10 {
		admit("hung")
	}
	last := job
	for range 2 {
		if _, wait, ok := admitJob("hung", last); ok || wait != 500*time.Millisecond*11/4 {
			t.Fatalf("the 12th in line: admitted %v, wait %s; want turned away for %s", ok, wait, 500*time.Millisecond*11/4)
		}
		if _, wait, ok := admitJob("hung", last-8); ok || wait != 500*time.Millisecond {
			t.Fatalf("the 4th in line: admitted %v, wait %s; want turned away for 500ms", ok, wait)
		}
	}
	now = now.Add(58 * time.Second) // a hung endpoint: bounded
	if _, wait, ok := admit("hung"); ok || wait != maxLaneWait {
		t.Fatalf("after a minute: admitted %v, wait %s; want turned away for %s", ok, wait, maxLaneWait)
	}
	waiter := job
	if _, _, ok := admit("other"); !ok {
		t.Fatal("another endpoint was turned away")
	}
	if n := len(l.m["hung"].waiting); n != 1 {
		t.Fatalf("%d jobs still counted as waiting after a minute, want the last one only", n)
	}
	// A place left: the job waiting longest is named to be woken, once.
	if next := l.leave("hung", started[0]); next != waiter {
		t.Fatalf("leave named job %d to wake, want %d", next, waiter)
	}
	if next := l.leave("hung", started[1]); next != 0 {
		t.Fatalf("leave named job %d to wake with none waiting", next)
	}
	if _, _, ok := admit("hung"); !ok {
		t.Fatal("a place left was not taken again")
	}

	// A healthy endpoint whose jobs take 200 ms: a job turned away comes
	// back after 50 ms.
	var busy []time.Time
	for range 4 {
		s, _, _ := admit("busy")
		busy = append(busy, s)
	}
	for i := range 40 {
		now = now.Add(50 * time.Millisecond)
		l.leave("busy", busy[0])
		busy = busy[1:]
		s, _, ok := admit("busy")
		if !ok {
			t.Fatalf("round %d: a place left was not taken again", i)
		}
		busy = append(busy, s)
	}
	if _, wait, ok := admit("busy"); ok || wait < 49*time.Millisecond || wait > 50*time.Millisecond {
		t.Fatalf("busy endpoint: admitted %v, wait %s; want turned away for about 50ms", ok, wait)
	}
	for _, s := range busy {
		l.leave("busy", s)
	}
	if _, ok := l.m["busy"]; ok {
		t.Fatal("an endpoint with no job running is still kept")
	}
}
