// Package eventlog tails the durable event log: one reader per process, woken
// by notifications and a slow safety poll, that hands every new event to its
// consumer exactly once and in log order. The live-event hub reads the log
// through it; webhook dispatch reads the same gap-free reader (db.ReadEvents)
// under its own durable cursor instead (webhook/delivery).
package eventlog

import (
	"context"
	"log/slog"
	"time"

	"github.com/agenttrust/service/event"
)

// Source reads the log in Position order, only up to events that no running
// transaction can precede (db.DB implements it).
type Source interface {
	ReadEvents(ctx context.Context, after event.Position, limit int) ([]event.Event, error)
}

// Tailer reads the log from a position onwards. Wake is safe to call from any
// goroutine; Run owns the position.
type Tailer struct {
	src   Source
	wake  chan struct{}
	log   *slog.Logger
	Poll  time.Duration // safety poll, in case a notification is lost (default 2s)
	Batch int           // events per statement (default 500)
	// Gap is the least time between the starts of two reads (default
	// 20ms): a lone commit is read at once, a burst of them waits up to Gap
	// and is read in one statement instead of one per commit.
	Gap time.Duration
}

// New returns a Tailer over src; log may be nil.
func New(src Source, log *slog.Logger) *Tailer {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Tailer{src: src, wake: make(chan struct{}, 1), log: log, Poll: 2 * time.Second, Batch: 500, Gap: 20 * time.Millisecond}
}

// Wake asks Run to read now. It never blocks: wake-ups that arrive while one
// is pending coalesce, which loses nothing because a read takes everything new.
func (t *Tailer) Wake() {
	select {
	case t.wake <- struct{}{}:
	default:
	}
}

// Run reads every event after start and passes each batch, in log order, to
// deliver, until ctx ends. A failed read is retried with back-off from the
// same position, so an outage delays events but never skips one. It returns
// ctx's error.
func (t *Tailer) Run(ctx context.Context, start event.Position, deliver func([]event.Event)) error {
	pos := start
	poll := time.NewTicker(t.Poll)
	defer poll.Stop()
	backoff := 50 * time.Millisecond
	// A wake-up whose read finds nothing means the notified transaction is
	// still held behind an older one still running somewhere in the cluster
	// (the xmin horizon): look again soon, backing off, rather than wait for
	// the safety poll.
	var (
		woke    bool
		recheck time.Duration
		again   <-chan time.Time
	)
	var last time.Time // when the last read started
	for {
		if wait := t.Gap - time.Since(last); wait > 0 {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(wait):
			}
		}
		found := false
		for {
			last = time.Now()
			evs, err := t.src.ReadEvents(ctx, pos, t.Batch)
			if err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				t.log.Warn("read event log", "err", err, "retry_in", backoff)
				select {
				case <-ctx.Done():
					return ctx.Err()
				case <-time.After(backoff):
				}
				backoff = min(2*backoff, 5*time.Second)
				continue
			}
			backoff = 50 * time.Millisecond
			if len(evs) == 0 {
				break
			}
			found = true
			pos = evs[len(evs)-1].Position
			deliver(evs)
			if len(evs) < t.Batch {
				break
			}
		}
		switch {
		case found || !woke:
			recheck, again = 0, nil
		case recheck < time.Second:
			recheck = max(2*recheck, 10*time.Millisecond)
			again = time.After(recheck)
		default:
			again = nil // leave it to the safety poll
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.wake:
			woke, recheck = true, 0
		case <-again:
			woke = true
		case <-poll.C:
			woke = false
		}
	}
}
