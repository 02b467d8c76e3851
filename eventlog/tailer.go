// Package eventlog reads the durable event log: one Loop decides when to
// read (woken by notifications, a slow safety poll, re-reads while events
// are held back, back-off through an outage) and a pass does the reading.
// A Tailer hands every new event to its consumer exactly once and in log
// order (the live-event hub); webhook dispatch runs its own pass on a Loop,
// under its durable cursor (webhook/delivery).
package eventlog

import (
	"context"
	"log/slog"

	"github.com/agenttrust/service/event"
)

// Source reads the log in Position order, only up to events that no running
// transaction can precede (db.DB implements it).
type Source interface {
	ReadEvents(ctx context.Context, after event.Position, limit int) ([]event.Event, error)
}

// Tailer reads the log from a position onwards, on a Loop whose Poll, Batch
// and Gap it shares.
type Tailer struct {
	*Loop
	src Source
}

// New returns a Tailer over src; log may be nil.
func New(src Source, log *slog.Logger) *Tailer {
	return &Tailer{Loop: NewLoop(log), src: src}
}

// Run reads every event after start and passes each batch, in log order, to
// deliver, until ctx ends. A failed read is retried from the same position,
// so an outage delays events but never skips one. It returns ctx's error.
func (t *Tailer) Run(ctx context.Context, start event.Position, deliver func([]event.Event)) error {
	pos := start
	return t.Loop.Run(ctx, func(ctx context.Context, woken bool) (Read, error) {
		evs, err := t.src.ReadEvents(ctx, pos, t.Batch)
		if err != nil {
			return Read{}, err
		}
		if len(evs) > 0 {
			pos = evs[len(evs)-1].Position
			deliver(evs)
		}
		// A wake-up whose read finds nothing means the notified
		// transaction is still held behind an older one somewhere in the
		// cluster: the source cannot tell, so a woken empty read counts
		// as held back.
		return Read{N: len(evs), Held: woken && len(evs) == 0}, nil
	})
}
