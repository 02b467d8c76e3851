package delivery

import (
	"context"
	"time"

	"github.com/agenttrust/service/webhook"
)

// sends is one run of a job: its batch's messages posted at most
// PerEndpoint at once (the endpoint's slots, shared with its other jobs
// here) and Workers at once in the process, and its attempts as they end.
// One goroutine, the job's, owns it; each request runs in a goroutine of
// its own and hands its attempt back on done.
type sends struct {
	r            *Runner
	ctx          context.Context
	b            *webhook.Batch
	run          webhook.JobRun
	slots        chan struct{} // the endpoint's
	done         chan webhook.Sent
	startBy      time.Time // no send starts later
	disableAfter int

	next     int  // messages started
	inflight int  // started, not yet ended
	failures int  // failed in a row, counting the endpoint's before the job
	stop     bool // the endpoint is sure to be disabled: a 410, or disableAfter failures in a row
	ended    []webhook.Sent

	// What recording found (record.go): the attempts not yet recorded and
	// when the oldest of them ended, the endpoint found inactive, a record
	// that failed.
	pending   []webhook.Sent
	since     time.Time
	inactive  bool
	recordErr error
}

func (r *Runner) newSends(ctx context.Context, b *webhook.Batch, slots chan struct{}, run webhook.JobRun) *sends {
	return &sends{r: r, ctx: ctx, b: b, run: run, slots: slots, done: make(chan webhook.Sent, len(b.Messages)),
		startBy: time.Now().Add(r.cfg.JobTimeout / 2), disableAfter: r.svc.Config().DisableAfter,
		failures: b.ConsecutiveFailures, ended: make([]webhook.Sent, 0, len(b.Messages))}
}

// all posts every message it may, records every attempt, and returns s.
// It starts no send once half the job's timeout has passed (so that the
// last ends within it), once ctx ends, once the endpoint is sure to be
// disabled, or once a record found it inactive or failed.
func (s *sends) all() *sends {
	// The ticker wakes a job that waits (for a slot, or for its last
	// answers) with attempts pending, so they are recorded within about
	// recordWait even while a hung endpoint holds every slot.
	tick := time.NewTicker(recordWait / 2)
	defer tick.Stop()
	for s.next < len(s.b.Messages) && s.acquire(tick.C) {
		s.start(s.b.Messages[s.next])
	}
	for s.inflight > 0 {
		select {
		case a := <-s.done:
			s.took(a)
		case <-tick.C:
		}
		s.flush(false)
	}
	s.flush(true)
	return s
}

// unsent is how many of the batch's messages the run did not try.
func (s *sends) unsent() int { return len(s.b.Messages) - s.next }

// acquire takes one of the endpoint's slots, then one of the process's;
// false once the run may start no more sends.
func (s *sends) acquire(tick <-chan time.Time) bool {
	if !s.wait(s.slots, tick) {
		return false
	}
	if !s.wait(s.r.sends, tick) {
		<-s.slots
		return false
	}
	return true
}

// wait takes a place in sem, taking and recording the attempts that end
// meanwhile, which decide whether to go on; false once the run may start
// no more sends.
func (s *sends) wait(sem chan struct{}, tick <-chan time.Time) bool {
	for {
		for len(s.done) > 0 {
			s.took(<-s.done)
		}
		s.flush(false)
		if s.stop || s.inactive || s.recordErr != nil || s.ctx.Err() != nil || time.Now().After(s.startBy) {
			return false
		}
		select {
		case sem <- struct{}{}:
			return true
		case a := <-s.done:
			s.took(a)
		case <-tick:
		case <-s.ctx.Done():
		}
	}
}

// start posts msg in a goroutine holding the places acquire took.
func (s *sends) start(msg webhook.Outgoing) {
	s.next++
	s.inflight++
	go func() {
		a := s.r.sender.Send(s.ctx, s.b.URL, s.b.Secrets, msg)
		<-s.r.sends
		<-s.slots
		s.done <- webhook.Sent{Message: msg, Attempt: a, Done: time.Now()}
	}()
}

// took counts an ended attempt.
func (s *sends) took(a webhook.Sent) {
	s.inflight--
	s.ended = append(s.ended, a)
	if len(s.pending) == 0 {
		s.since = a.Done
	}
	s.pending = append(s.pending, a)
	s.failures++
	if a.Success() {
		s.failures = 0
	}
	s.stop = s.stop || a.Gone() || s.failures >= s.disableAfter
}
