package delivery

import "testing"

// TestSlotsGoToTheOldestJobFirst: an endpoint's free slots are taken at
// once; once none is free, each slot given back goes to the waiting job
// with the lowest id, whatever the order they queued in, and a job that
// stops waiting leaves its place (or the slot it was granted) to the next.
func TestSlotsGoToTheOldestJobFirst(t *testing.T) {
	t.Parallel()
	s := &slots{free: 2}
	for _, job := range []int64{7, 3} {
		if !granted(s.wait(job)) {
			t.Fatalf("job %d waits while a slot is free", job)
		}
	}
	late, old, oldest, gone := s.wait(9), s.wait(5), s.wait(1), s.wait(2)
	for _, w := range []*slotWait{late, old, oldest, gone} {
		if granted(w) {
			t.Fatalf("job %d was granted a slot while none was free", w.job)
		}
	}
	s.cancel(gone) // job 2 stops waiting before any slot comes back
	s.release()
	if !granted(oldest) || granted(old) || granted(late) {
		t.Fatal("the first slot back did not go to job 1, the oldest waiting")
	}
	s.release()
	if !granted(old) {
		t.Fatal("the second slot back did not go to job 5")
	}
	// Job 9 is granted the third slot but stops waiting without taking
	// it: the slot is free again, for the next job to take at once.
	s.release()
	s.cancel(late)
	if !granted(s.wait(11)) {
		t.Fatal("a slot granted to a job that stopped waiting was not given back")
	}
	if s.free != 0 || len(s.waiting) != 0 {
		t.Fatalf("free %d, waiting %d; want 0 and 0", s.free, len(s.waiting))
	}
}

// granted takes w's grant if it has come.
func granted(w *slotWait) bool {
	select {
	case <-w.granted:
		return true
	default:
		return false
	}
}
