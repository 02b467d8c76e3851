package delivery

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/riverqueue/river"

	"github.com/agenttrust/service/failure"
	"github.com/agenttrust/service/webhook"
)

// worker delivers one job: a batch of events to one endpoint.
type worker struct {
	river.WorkerDefaults[webhook.DeliveryJob]
	r *Runner
}

// Work sends the job's events still to deliver, up to PerEndpoint at once
// (and up to PerOrganization with the organization's other jobs here),
// records the attempts as they end, and leaves what failed to River's
// retry, after the schedule's delay (or the endpoint's Retry-After).
func (w *worker) Work(ctx context.Context, job *river.Job[webhook.DeliveryJob]) error {
	r := w.r
	p, snooze, ok := r.shares.admit(job.Args.OrgID, job.Args.WebhookID)
	if !ok {
		// The endpoint or its organization has its share of jobs here:
		// come back when a place may be free, without spending an attempt,
		// and leave this worker to the others.
		return river.JobSnooze(snooze)
	}
	defer r.shares.leave(p)
	seqs, err := job.Args.EventSeqs()
	if err != nil {
		return river.JobCancel(err) // no attempt can mend it
	}
	// River adds this process to AttemptedBy at every fetch, snoozes
	// included: one entry means no earlier run can have recorded attempts.
	firstRun := len(job.AttemptedBy) == 1
	b, err := r.svc.DeliveryBatch(ctx, job.Args.WebhookID, seqs, job.ID, firstRun)
	switch {
	case failure.CodeOf(err) == failure.NotFound:
		return nil // the endpoint was deleted: nothing left to do
	case err != nil:
		return err
	case !b.Active:
		return river.JobCancel(errors.New("endpoint is inactive"))
	}
	run := webhook.JobRun{ID: job.ID, Attempt: job.Attempt}
	return w.outcome(job, r.newSends(ctx, b, p.slots, run).all())
}

// outcome turns what a job's sends came to into what River does next: done,
// cancelled (the endpoint is inactive), retried (some attempt failed, or a
// record did), or snoozed at once (time ran out before every event was
// tried: the rest go again without spending an attempt).
func (w *worker) outcome(job *river.Job[webhook.DeliveryJob], s *sends) error {
	if s.recordErr != nil {
		return s.recordErr
	}
	var failed int
	var last string
	var retryAfter time.Duration
	for _, a := range s.ended {
		if !a.Success() {
			failed, last, retryAfter = failed+1, a.Err, max(retryAfter, a.RetryAfter)
		}
	}
	switch {
	case s.inactive:
		return river.JobCancel(errors.New("endpoint disabled or deleted"))
	case failed > 0:
		if retryAfter > 0 && job.Attempt < job.MaxAttempts {
			// River asks NextRetry (which takes the entry) only when an attempt remains.
			w.r.retryAfter.Store(job.ID, retryAfter)
		}
		return fmt.Errorf("%d of %d attempts failed, the last: %s", failed, len(s.ended), last)
	case s.unsent() > 0:
		return river.JobSnooze(0)
	}
	return nil
}

// NextRetry follows the retry schedule (with jitter and Retry-After).
func (w *worker) NextRetry(job *river.Job[webhook.DeliveryJob]) time.Time {
	var ra time.Duration
	if v, ok := w.r.retryAfter.LoadAndDelete(job.ID); ok {
		ra = v.(time.Duration)
	}
	return time.Now().Add(w.r.svc.Config().Schedule.Delay(job.Attempt, ra))
}

// Timeout is the job's bound: Config.JobTimeout.
func (w *worker) Timeout(*river.Job[webhook.DeliveryJob]) time.Duration { return w.r.cfg.JobTimeout }
