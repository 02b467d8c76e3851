package delivery

import (
	"math/rand/v2"
	"slices"
	"sync"
	"time"
)

// shares keeps, in this process, at most perEndpoint jobs of one endpoint
// and perOrg jobs of one organization running at once, and bounds their
// requests the same way: each request in flight holds one of its endpoint's
// slots and one of its organization's. So a slow or hung endpoint holds at
// most its endpoint's share of the workers and senders, and all of an
// organization's endpoints together at most the organization's share: the
// other organizations go on with the rest. A job turned away snoozes
// (River's JobSnooze, which spends no attempt) for about the time in which
// one of the full share's places may free here.
type shares struct {
	mu        sync.Mutex
	endpoints group
	orgs      group
	now       func() time.Time
}

// group is one kind of share: the holders with jobs running, by key.
type group struct {
	limit int
	m     map[string]*holder
}

// holder is one endpoint's or organization's running jobs here.
type holder struct {
	started []time.Time   // the running jobs' start times
	slots   chan struct{} // a place for each request in flight
}

// place is what an admitted job holds: its start time in both shares and
// the request slots its sends take, the endpoint's then the organization's.
type place struct {
	org, endpoint string
	started       time.Time
	slots         [2]chan struct{}
}

func newShares(perEndpoint, perOrg int) *shares {
	return &shares{endpoints: group{limit: perEndpoint, m: map[string]*holder{}},
		orgs: group{limit: perOrg, m: map[string]*holder{}}, now: time.Now}
}

// The bounds of a turned-away job's snooze. The upper one stays under
// River's scheduler interval, so that a snoozed job stays in the fetchable
// queue instead of waiting for the scheduler to move it back.
const (
	minSnooze = 20 * time.Millisecond
	maxSnooze = 2 * time.Second
)

// admit takes a place for a job of org's endpoint. When the endpoint or the
// organization has all its places taken, it returns how long the job
// should snooze instead.
func (s *shares) admit(org, endpoint string) (p place, snooze time.Duration, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	if oldest, full := s.endpoints.full(endpoint); full {
		return place{}, s.endpoints.snooze(now.Sub(oldest)), false
	}
	if oldest, full := s.orgs.full(org); full {
		return place{}, s.orgs.snooze(now.Sub(oldest)), false
	}
	p = place{org: org, endpoint: endpoint, started: now}
	p.slots[0] = s.endpoints.take(endpoint, now)
	p.slots[1] = s.orgs.take(org, now)
	return p, 0, true
}

// full reports whether key has all its places taken, and when its oldest
// running job started.
func (g *group) full(key string) (oldest time.Time, full bool) {
	h := g.m[key]
	if h == nil || len(h.started) < g.limit {
		return time.Time{}, false
	}
	return h.started[0], true
}

// take records a job of key started at now and returns key's request slots.
func (g *group) take(key string, now time.Time) chan struct{} {
	h := g.m[key]
	if h == nil {
		h = &holder{slots: make(chan struct{}, g.limit)}
		g.m[key] = h
	}
	h.started = append(h.started, now)
	return h.slots
}

// snooze is how long a turned-away job waits when the share's oldest
// running job has run for oldest: about the time in which one of its limit
// places may free at that pace, within [minSnooze, maxSnooze], give or take
// a quarter, so that its waiting jobs do not all come back at once.
func (g *group) snooze(oldest time.Duration) time.Duration {
	d := min(max(oldest/time.Duration(g.limit), minSnooze), maxSnooze)
	return d*3/4 + rand.N(d/2)
}

// leave gives back a job's place.
func (s *shares) leave(p place) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.endpoints.leave(p.endpoint, p.started)
	s.orgs.leave(p.org, p.started)
}

// leave forgets key's job started at started.
func (g *group) leave(key string, started time.Time) {
	h := g.m[key]
	if h == nil {
		return
	}
	if i := slices.Index(h.started, started); i >= 0 {
		h.started = slices.Delete(h.started, i, i+1)
	}
	if len(h.started) == 0 {
		delete(g.m, key)
	}
}
