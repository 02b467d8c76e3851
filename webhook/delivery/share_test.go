package delivery

import (
	"testing"
	"time"
)

// TestSharesAdmitUpToTheEndpointsLimit: an endpoint admits perEndpoint jobs,
// all sharing its perEndpoint request slots; one more is told to snooze
// about the time in which one of them may end at the pace of the oldest
// (within [minSnooze, maxSnooze], give or take a quarter); other endpoints
// are not held up, and a place left is taken again at once.
func TestSharesAdmitUpToTheEndpointsLimit(t *testing.T) {
	t.Parallel()
	now := time.Unix(1_700_000_000, 0)
	s := newShares(4, 100)
	s.now = func() time.Time { return now }
	var held []place
	for i := range 4 {
		p, _, ok := s.admit("org", "hung")
		if !ok || cap(p.slots[0]) != 4 || cap(p.slots[1]) != 100 {
			t.Fatalf("job %d: admitted %v with %d and %d slots, want admitted with 4 and 100", i, ok, cap(p.slots[0]), cap(p.slots[1]))
		}
		held = append(held, p)
		now = now.Add(time.Millisecond)
	}
	if _, snooze, ok := s.admit("org", "hung"); ok {
		t.Fatal("a fifth job was admitted")
	} else {
		within(t, "at once", snooze, minSnooze)
	}
	now = now.Add(2 * time.Second) // the oldest has run about 2 s: one of 4 may end within 500 ms
	_, snooze, _ := s.admit("org", "hung")
	within(t, "after 2 s", snooze, 500*time.Millisecond)
	now = now.Add(time.Minute) // a hung endpoint: bounded
	_, snooze, _ = s.admit("org", "hung")
	within(t, "after a minute", snooze, maxSnooze)
	other, _, ok := s.admit("org", "other")
	if !ok {
		t.Fatal("another endpoint was turned away")
	}
	if other.slots[1] != held[0].slots[1] || other.slots[0] == held[0].slots[0] {
		t.Fatal("two endpoints of one organization do not share its slots alone")
	}
	s.leave(held[0])
	if _, _, ok := s.admit("org", "hung"); !ok {
		t.Fatal("a place left was not taken again")
	}
	for _, p := range held[1:] {
		s.leave(p)
	}
	s.leave(place{org: "org", endpoint: "hung", started: now})
	s.leave(other)
	if len(s.endpoints.m) != 0 || len(s.orgs.m) != 0 {
		t.Fatalf("kept %d endpoints and %d organizations with no job running", len(s.endpoints.m), len(s.orgs.m))
	}
}

// TestSharesAdmitUpToTheOrganizationsLimit: an organization admits perOrg
// jobs across its endpoints, each under its endpoint's limit; one more, of
// an endpoint with room, snoozes at the pace of the organization's oldest
// job; another organization is not held up, and a place one of its
// endpoints leaves is taken by any of them.
func TestSharesAdmitUpToTheOrganizationsLimit(t *testing.T) {
	t.Parallel()
	now := time.Unix(1_700_000_000, 0)
	s := newShares(2, 5)
	s.now = func() time.Time { return now }
	var held []place
	for i := range 5 {
		p, _, ok := s.admit("noisy", string(rune('a'+i/2))) // a, a, b, b, c
		if !ok {
			t.Fatalf("job %d turned away under the organization's limit", i)
		}
		held = append(held, p)
		now = now.Add(time.Millisecond)
	}
	now = now.Add(10 * time.Second) // the oldest has run 10 s: one of 5 may end within 2 s
	if _, snooze, ok := s.admit("noisy", "c"); ok {
		t.Fatal("a sixth job of the organization was admitted")
	} else {
		within(t, "at the organization's limit", snooze, 2*time.Second)
	}
	if _, _, ok := s.admit("noisy", "d"); ok {
		t.Fatal("a new endpoint of a full organization was admitted")
	}
	if p, _, ok := s.admit("quiet", "e"); !ok || p.slots[1] == held[0].slots[1] {
		t.Fatalf("another organization: admitted %v, own slots %v", ok, ok && p.slots[1] != held[0].slots[1])
	}
	s.leave(held[0]) // a job of endpoint a ends
	if _, _, ok := s.admit("noisy", "d"); !ok {
		t.Fatal("a place the organization left was not taken by another of its endpoints")
	}
}

// within fails t unless got is want give or take a quarter.
func within(t *testing.T, what string, got, want time.Duration) {
	t.Helper()
	if got < want*3/4 || got > want*5/4 {
		t.Fatalf("%s: snooze %s, want %s give or take a quarter", what, got, want)
	}
}
