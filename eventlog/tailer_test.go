package eventlog_test

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agenttrust/service/event"
	"github.com/agenttrust/service/eventlog"
)

// heldBack is a log whose one event becomes readable only from the n-th
// read on, as when an older transaction elsewhere holds the horizon back.
type heldBack struct {
	reads   atomic.Int64
	visible int64
}

func (h *heldBack) ReadEvents(_ context.Context, after event.Position, _ int) ([]event.Event, error) {
	n := h.reads.Add(1)
	ev := event.Event{ID: "evt_1", Position: event.Position{XID: 10, Seq: 1}}
	if n < h.visible || !after.Less(ev.Position) {
		return nil, nil
	}
	return []event.Event{ev}, nil
}

// A wake-up whose read finds nothing is followed by re-reads with back-off,
// so the event arrives long before the safety poll.
func TestTailerRereadsAfterAnEmptyWakeUp(t *testing.T) {
	t.Parallel()
	src := &heldBack{visible: 5} // the start read, the wake-up's, then three re-reads
	tl := eventlog.New(src, nil)
	tl.Poll = time.Hour
	got := make(chan event.Event, 1)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go tl.Run(ctx, event.Position{}, func(evs []event.Event) { got <- evs[0] }) //nolint:errcheck
	for src.reads.Load() < 1 {
		time.Sleep(time.Millisecond)
	}
	start := time.Now()
	tl.Wake()
	select {
	case ev := <-got:
		if ev.ID != "evt_1" || time.Since(start) > 2*time.Second {
			t.Fatalf("got %s after %s", ev.ID, time.Since(start))
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("no event after %d reads", src.reads.Load())
	}
	// Once found, the tailer waits for the next wake-up or poll.
	n := src.reads.Load()
	time.Sleep(200 * time.Millisecond)
	if extra := src.reads.Load() - n; extra > 1 {
		t.Fatalf("%d reads after the event was found, with no wake-up", extra)
	}
}

// flaky is a log that fails its first reads, then holds one event.
type flaky struct {
	reads, failing atomic.Int64
}

func (f *flaky) ReadEvents(_ context.Context, after event.Position, _ int) ([]event.Event, error) {
	if f.reads.Add(1) <= f.failing.Load() {
		return nil, errors.New("connection refused")
	}
	ev := event.Event{ID: "evt_1", Position: event.Position{XID: 10, Seq: 1}}
	if !after.Less(ev.Position) {
		return nil, nil
	}
	return []event.Event{ev}, nil
}

// lines is a slog handler that keeps every record's level and message.
type lines struct {
	mu  sync.Mutex
	got []string
}

func (l *lines) Enabled(context.Context, slog.Level) bool { return true }
func (l *lines) Handle(_ context.Context, r slog.Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.got = append(l.got, r.Level.String()+" "+r.Message)
	return nil
}
func (l *lines) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l *lines) WithGroup(string) slog.Handler      { return l }

// An outage of several failed reads is logged once as it starts and once
// as it ends, and the event behind it is still delivered.
func TestTailerLogsAnOutageOnceEachWay(t *testing.T) {
	t.Parallel()
	src := &flaky{}
	src.failing.Store(5)
	log := &lines{}
	tl := eventlog.New(src, slog.New(log))
	tl.Poll = time.Hour
	got := make(chan event.Event, 1)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go tl.Run(ctx, event.Position{}, func(evs []event.Event) { got <- evs[0] }) //nolint:errcheck
	select {
	case <-got:
	case <-time.After(10 * time.Second):
		t.Fatalf("no event after %d reads", src.reads.Load())
	}
	// The recovery is logged once the read that delivered returns.
	time.Sleep(100 * time.Millisecond)
	log.mu.Lock()
	defer log.mu.Unlock()
	if len(log.got) != 2 || !strings.HasPrefix(log.got[0], "WARN ") || !strings.HasPrefix(log.got[1], "INFO ") {
		t.Fatalf("logged %q after %d failed reads, want one warning and one recovery", log.got, src.failing.Load())
	}
}

// A wake-up ends the back-off after a failed read at once (the listener
// wakes the loop when it has reconnected), however long the back-off is.
func TestTailerWakeUpEndsTheBackOff(t *testing.T) {
	t.Parallel()
	src := &flaky{}
	src.failing.Store(2)
	tl := eventlog.New(src, nil)
	tl.Poll, tl.Backoff = time.Hour, time.Hour // the only ways left to read again: a wake-up, or an hour
	got := make(chan event.Event, 1)
	go tl.Run(t.Context(), event.Position{}, func(evs []event.Event) { got <- evs[0] }) //nolint:errcheck
	deadline := time.Now().Add(30 * time.Second)
	for want := int64(2); want <= 3 && time.Now().Before(deadline); want++ {
		for src.reads.Load() < want-1 {
			time.Sleep(time.Millisecond)
		}
		tl.Wake() // ends the back-off after read want-1 (or is taken at once when it starts)
		for src.reads.Load() < want && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
	}
	select {
	case ev := <-got:
		if ev.ID != "evt_1" {
			t.Fatalf("got %s", ev.ID)
		}
	case <-time.After(time.Until(deadline)):
		t.Fatalf("no event after %d reads: the wake-up did not end the back-off", src.reads.Load())
	}
}
