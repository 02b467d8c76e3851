package delivery

import (
	"math/rand/v2"
	"slices"
	"sync"
	"time"
)

// endpoints keeps at most limit jobs per endpoint running at once in this
// process, and gives those jobs limit request slots to share: a slow or hung
// endpoint holds at most limit workers and limit requests, and the others
// go on. A job turned away snoozes (River's JobSnooze, which spends no
// attempt) for about the time in which one of the endpoint's places may
// free here.
type endpoints struct {
	mu    sync.Mutex
	limit int
	m     map[string]*endpoint
	now   func() time.Time
}

// endpoint is one endpoint's running jobs here.
type endpoint struct {
	started []time.Time   // the running jobs' start times
	slots   chan struct{} // a place for each request in flight
}

func newEndpoints(limit int) *endpoints {
	return &endpoints{limit: limit, m: map[string]*endpoint{}, now: time.Now}
}

// The bounds of a turned-away job's snooze. The upper one stays under
// River's scheduler interval, so that a snoozed job stays in the fetchable
// queue instead of waiting for the scheduler to move it back.
const (
	minSnooze = 20 * time.Millisecond
	maxSnooze = 2 * time.Second
)

// admit takes one of key's places for a job: its request slots and its
// start time, for leave. When all are taken it returns how long the job
// should snooze instead.
func (e *endpoints) admit(key string) (slots chan struct{}, started time.Time, snooze time.Duration, ok bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	now := e.now()
	ep := e.m[key]
	if ep == nil {
		ep = &endpoint{slots: make(chan struct{}, e.limit)}
		e.m[key] = ep
	}
	if len(ep.started) < e.limit {
		ep.started = append(ep.started, now)
		return ep.slots, now, 0, true
	}
	return nil, time.Time{}, e.snooze(now.Sub(ep.started[0])), false
}

// snooze is how long a turned-away job waits when the endpoint's oldest
// running job has run for oldest: about the time in which one of its limit
// places may free at that pace, within [minSnooze, maxSnooze], give or take
// a quarter, so that its waiting jobs do not all come back at once.
func (e *endpoints) snooze(oldest time.Duration) time.Duration {
	d := min(max(oldest/time.Duration(e.limit), minSnooze), maxSnooze)
	return d*3/4 + rand.N(d/2)
}

// leave gives back the place of key's job admitted at started.
func (e *endpoints) leave(key string, started time.Time) {
	e.mu.Lock()
	defer e.mu.Unlock()
	ep := e.m[key]
	if ep == nil {
		return
	}
	if i := slices.Index(ep.started, started); i >= 0 {
		ep.started = slices.Delete(ep.started, i, i+1)
	}
	if len(ep.started) == 0 {
		delete(e.m, key)
	}
}
