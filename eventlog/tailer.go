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

// heldReads is how many woken reads in a row that find nothing a Tailer
// counts as held back: with the Loop's doubling, about two seconds of
// re-reads.
const heldReads = 9

// Run reads every event after start and passes each batch, in log order, to
// deliver, until ctx ends. A failed read is retried from the same position,
// so an outage delays events but never skips one. It returns ctx's error.
func (t *Tailer) Run(ctx context.Context, start event.Position, deliver func([]event.Event)) error {
	pos := start
	empty := 0 // woken reads in a row that found nothing
	return t.Loop.Run(ctx, func(ctx context.Context, woken bool) (Read, error) {
		evs, err := t.src.ReadEvents(ctx, pos, t.Batch)
		if err != nil {
			return Read{}, err
		}
		if len(evs) > 0 {
			pos = evs[len(evs)-1].Position
			deliver(evs)
		}
		// A wake-up whose read finds nothing most likely means the
		// notified transaction is still held behind an older one somewhere
		// in the cluster. The source cannot tell (the wake-up may also have
		// come for events an earlier read took), so such reads count as
		// held back only up to heldReads in a row; the safety poll covers
		// a longer hold.
		if woken && len(evs) == 0 {
			empty++
		} else {
			empty = 0
		}
		return Read{N: len(evs), Held: empty > 0 && empty <= heldReads}, nil
	})
}
