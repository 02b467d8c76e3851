package delivery

import "testing"

// TestSlotsGoToTheOldestJobFirst: an endpoint's free slots are taken at
// once; once none is free, each slot given back goes to the waiting job
// with the lowest id, whatever the order they queued in; a job that stops
// waiting leaves its place (or the slot it was granted) to the next, and a
// job waits with the same place again once it has its slot.
func TestSlotsGoToTheOldestJobFirst(t *testing.T) {
	t.Parallel()
	s := &slots{free: 2}
	for _, job := range []int64{7, 3} {
		if !granted(queue(s, job)) {
			t.Fatalf("job %d waits while a slot is free", job)
		}
	}
	late, old, oldest, gone := queue(s, 9), queue(s, 5), queue(s, 1), queue(s, 2)
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
	if !granted(queue(s, 11)) {
		t.Fatal("a slot granted to a job that stopped waiting was not given back")
	}
	// A job waits with the same place again once it has its slot.
	s.wait(old)
	if granted(old) {
		t.Fatal("job 5 was granted a second slot while none was free")
	}
	s.release()
	if !granted(old) {
		t.Fatal("job 5, waiting again with its place, was not granted the slot given back")
	}
	if s.free != 0 || len(s.waiting) != 0 {
		t.Fatalf("free %d, waiting %d; want 0 and 0", s.free, len(s.waiting))
	}
}

// queue queues job for one of s's slots.
func queue(s *slots, job int64) *slotWait {
	w := newSlotWait(job)
	s.wait(w)
	return w
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
