package delivery

import (
	"context"
	"time"

	"github.com/agenttrust/service/webhook"
)

// sends is one run of a job: its batch's messages posted at most
// PerEndpoint at once, and at most PerOrganization with the organization's
// other jobs (the endpoint's and the organization's slots, shared with
// their other jobs here), by the process's Workers senders, and its
// attempts as they end.
// One goroutine, the job's, owns it; the senders hand attempts back on done.
type sends struct {
	r            *Runner
	ctx          context.Context
	b            *webhook.Batch
	run          webhook.JobRun
	slots        [2]chan struct{} // the endpoint's, then the organization's
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

func (r *Runner) newSends(ctx context.Context, b *webhook.Batch, slots [2]chan struct{}, run webhook.JobRun) *sends {
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
	for s.next < len(s.b.Messages) {
		if !s.send(tick.C) {
			break
		}
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

// send posts the next message: it takes one of the endpoint's slots and
// one of the organization's (always in that order), then hands the message
// to an idle sender; false once the run may start no more sends. So an
// organization's requests in flight, hung or not, hold at most its share
// of the senders.
func (s *sends) send(tick <-chan time.Time) bool {
	if !put(s, s.slots[0], struct{}{}, tick) {
		return false
	}
	if !put(s, s.slots[1], struct{}{}, tick) {
		<-s.slots[0]
		return false
	}
	q := request{ctx: s.ctx, url: s.b.URL, secrets: s.b.Secrets, msg: s.b.Messages[s.next], slots: s.slots, done: s.done}
	if !put(s, s.r.requests, q, tick) {
		q.release()
		return false
	}
	s.next++
	s.inflight++
	return true
}

// put sends v on ch, taking and recording the attempts that end meanwhile,
// which decide whether to go on; false once the run may start no more
// sends.
func put[T any](s *sends, ch chan<- T, v T, tick <-chan time.Time) bool {
	for {
		for len(s.done) > 0 {
			s.took(<-s.done)
		}
		s.flush(false)
		if s.stop || s.inactive || s.recordErr != nil || s.ctx.Err() != nil || time.Now().After(s.startBy) {
			return false
		}
		select {
		case ch <- v:
			return true
		case a := <-s.done:
			s.took(a)
		case <-tick:
		case <-s.ctx.Done():
		}
	}
}

// request is one message for the senders to post.
type request struct {
	ctx     context.Context
	url     string
	secrets []string
	msg     webhook.Outgoing
	slots   [2]chan struct{} // the endpoint's and the organization's: one of each is given back once the request ends
	done    chan<- webhook.Sent
}

// release gives back the request's slots.
func (q request) release() {
	<-q.slots[0]
	<-q.slots[1]
}

// sender is one of the Workers goroutines that post every job's messages:
// a process has at most Workers requests in flight, and a request is handed
// over only to an idle sender.
func (r *Runner) sender(requests <-chan request) {
	for q := range requests {
		a := r.post.Send(q.ctx, q.url, q.secrets, q.msg)
		q.release()
		q.done <- webhook.Sent{Message: q.msg, Attempt: a, Done: time.Now()}
	}
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
