package delivery

import (
	"context"

	"github.com/agenttrust/service/eventlog"
)

// dispatch queues delivery jobs for new events on the event log's Loop
// (woken by commits, a slow poll, re-reads while events are held back,
// back-off through an outage) until ctx ends.
func (r *Runner) dispatch(ctx context.Context) {
	idle := false // no active endpoint at the last look
	held := false // the last pass found events held back: this one is a re-read
	_ = r.loop.Run(ctx, func(ctx context.Context, woken bool) (eventlog.Read, error) {
		// While no organization has an active endpoint, a pass would read
		// the events only to route them to no one, in a transaction of
		// several round trips: the dispatcher then passes on the poll only
		// (its cursor stays at most a poll's worth of events behind the
		// log), and a commit's notification costs nothing. Each poll looks
		// again, so the first endpoint registered gets its events within a
		// poll.
		if !woken {
			active, err := r.svc.AnyActive(ctx)
			idle = err == nil && !active
		} else if idle && !held {
			return eventlog.Read{}, nil
		}
		n, pending, err := r.svc.DispatchWebhooks(ctx, r.cfg.Batch)
		held = err == nil && pending
		return eventlog.Read{N: n, Held: held}, err
	})
}
