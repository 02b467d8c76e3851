package eventlog

import (
	"context"
	"log/slog"
	"time"
)

// Read is what one pass over the log found.
type Read struct {
	// N is how many events the pass took; a full Batch means more may be
	// readable now, and the next pass follows at once.
	N int
	// Held says committed events wait behind older transactions still
	// running (the xmin horizon): the loop looks again soon, backing off
	// up to Recheck, rather than wait for the next wake-up or poll.
	Held bool
}

// Pass reads the log once, from where the previous pass left off. woken is
// true when a notification asked for it (or a re-read after one), false on
// the first pass, the safety poll and the pass after a full batch.
type Pass func(ctx context.Context, woken bool) (Read, error)

// Loop decides when the log is read: at once on start, whenever woken (at
// most one pass per Gap, so a burst of commits is read by one pass), again
// at once after a full batch, soon after a pass that found events held
// back, on a slow safety poll in case a notification is lost, and after a
// failure with back-off. Wake is safe to call from any goroutine; Run owns
// the passes.
type Loop struct {
	wake  chan struct{}
	log   *slog.Logger
	Poll  time.Duration // safety poll, in case a notification is lost (default 2s)
	Batch int           // events per pass (default 500)
	// Gap is the least time between the starts of two passes (default
	// 20ms): a lone commit is read at once, a burst of them waits up to Gap
	// and is read in one pass instead of one per commit.
	Gap time.Duration
	// Recheck is the longest wait between re-reads while a pass reports
	// events held back (default 1s).
	Recheck time.Duration
	// Backoff is the wait after a first failed pass (default 50ms); it
	// doubles with each further failure, up to 100 times Backoff. A wake-up
	// ends the wait at once: the listener wakes its callers when it has
	// reconnected, so the log is read as soon as the database answers again
	// rather than at the end of the back-off.
	Backoff time.Duration
}

// NewLoop returns a Loop with the default timings; log may be nil.
func NewLoop(log *slog.Logger) *Loop {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Loop{wake: make(chan struct{}, 1), log: log, Poll: 2 * time.Second, Batch: 500, Gap: 20 * time.Millisecond,
		Recheck: time.Second, Backoff: 50 * time.Millisecond}
}

// Wake asks Run for a pass now. It never blocks: wake-ups that arrive while
// one is pending coalesce, which loses nothing because a pass takes
// everything new.
func (l *Loop) Wake() {
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

// Re-reads while events are held back start minRecheck apart and double
// up to Recheck; back-off after a failure starts at Backoff and doubles up
// to backoffGrowth times it.
const (
	minRecheck    = 5 * time.Millisecond
	backoffGrowth = 100
)

// Run calls pass until ctx ends, and returns ctx's error. A failed pass is
// retried with back-off, cut short by a wake-up, so an outage delays events
// but never skips one; the outage is logged once when it starts and once
// when it ends, not at every failed pass.
func (l *Loop) Run(ctx context.Context, pass Pass) error {
	poll := time.NewTicker(l.Poll)
	defer poll.Stop()
	var (
		last    time.Time // when the last pass started
		woken   bool
		recheck time.Duration
		again   <-chan time.Time
		out     outage
	)
	for {
		if !sleep(ctx, l.Gap-time.Since(last)) {
			return ctx.Err()
		}
		last = time.Now()
		rd, err := pass(ctx, woken)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			switch l.backOff(ctx, out.failed(l.log, err, l.Backoff)) {
			case stopped:
				return ctx.Err()
			case wokenUp:
				woken = true
			}
			continue
		}
		out.recovered(l.log)
		switch {
		case rd.N >= l.Batch:
			woken, last = false, time.Time{}
			continue
		case rd.Held:
			recheck = min(max(2*recheck, minRecheck), l.Recheck)
			again = time.After(recheck)
		default:
			recheck, again = 0, nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-l.wake:
			woken, recheck = true, 0
		case <-again:
			woken = true
		case <-poll.C:
			woken = false
		}
	}
}

// outage is a loop's run of failed passes.
type outage struct {
	failures int
	since    time.Time
	backoff  time.Duration
}

// failed counts a failed pass, logs the first of a run, and returns how
// long to wait before the next: first, then doubling up to backoffGrowth
// times first.
func (o *outage) failed(log *slog.Logger, err error, first time.Duration) time.Duration {
	if o.failures == 0 {
		o.since, o.backoff = time.Now(), first
		log.Warn("read event log failed; retrying until it succeeds", "err", err)
	} else {
		o.backoff = min(2*o.backoff, backoffGrowth*first)
	}
	o.failures++
	return o.backoff
}

// recovered ends a run of failed passes, logging its end.
func (o *outage) recovered(log *slog.Logger) {
	if o.failures > 0 {
		log.Info("read event log again", "failed_passes", o.failures, "after", time.Since(o.since).Round(time.Millisecond))
		*o = outage{}
	}
}

// How a back-off ended.
const (
	elapsed = iota
	wokenUp
	stopped
)

// backOff waits d after a failed pass, or less when Wake is called
// meanwhile (the listener reconnected, or a commit was announced: either
// way the database answers again).
func (l *Loop) backOff(ctx context.Context, d time.Duration) int {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return stopped
	case <-l.wake:
		return wokenUp
	case <-t.C:
		return elapsed
	}
}

// sleep waits d (nothing when d <= 0), and reports false if ctx ended first.
func sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
