// Package live fans the durable event log out to live subscribers: one
// reader per process (an eventlog.Tailer woken by LISTEN and a safety poll)
// hands each batch of new events to every local subscriber of the
// organizations it concerns, through a bounded per-subscriber backlog, with
// no goroutine per idle subscriber. A
// subscriber that asks to resume `after` an event is replayed from the log up
// to the hub's position, then continues live, with no gap and no duplicate.
//
// With no local subscriber the hub sleeps: it reads nothing, however many
// events are committed (a replica serving only requests spends no statement
// and no CPU on the log). The first subscriber wakes it, and it starts again
// from the log's head, exactly as when it first ran.
package live

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agenttrust/service/event"
	"github.com/agenttrust/service/eventlog"
	"github.com/agenttrust/service/failure"
)

// Source is the event log the hub reads (db.DB implements it).
type Source interface {
	eventlog.Source
	ReadOrgEvents(ctx context.Context, orgID string, after event.Position, limit int) ([]event.Event, error)
	EventHead(ctx context.Context) (event.Position, error)
	EventPosition(ctx context.Context, orgID, eventID string) (event.Position, error)
	// CountOrgEvents counts the organization's stored events after a
	// position, stopping at limit, and how many of them have one of types
	// (all when types is empty).
	CountOrgEvents(ctx context.Context, orgID string, after event.Position, types []string, limit int) (all, matching int, err error)
	ListenEvents(ctx context.Context, wake func())
}

// Options tune a Hub; zero fields take the defaults.
type Options struct {
	// Buffer is how many events a subscription holds handed over and not
	// yet taken (default 256). One that falls further behind drops them and
	// catches up from the log instead, unless it has been behind for
	// SlowAfter: then it is closed as slow.
	Buffer int
	// SlowAfter is how long a subscriber may stay behind (a backlog
	// waiting for it, or a catch-up from the log running) before falling
	// Buffer events behind closes it as slow (default 10s).
	SlowAfter time.Duration
	Poll      time.Duration // safety poll of the log (default 2s)
	Batch     int           // events per log read (default 500)
	// MaxReplay is the most stored events a subscription's after may
	// replay (default DefaultMaxReplay): one further back is refused.
	MaxReplay int
	Logger    *slog.Logger
	// Metrics observes deliveries; nil observes nothing.
	Metrics *Metrics
}

// Hub is the process's one live reader of the event log.
type Hub struct {
	src  Source
	opts Options
	log  *slog.Logger

	demand chan struct{}                   // a subscriber asks the sleeping hub to wake (one slot)
	tailer atomic.Pointer[eventlog.Tailer] // the awake hub's reader; nil while asleep

	mu      sync.Mutex
	awake   bool           // the hub is reading the log, and pos is its position
	woken   chan struct{}  // closed when the hub next wakes (or shuts down), then replaced
	waiting int            // Subscribe calls waiting for the hub to wake
	gen     int            // counts wake-ups: a batch read before the last one is stale
	sleep   func()         // stops the awake hub's reader
	pos     event.Position // while awake: every event up to pos has been fanned out
	subs    map[string]map[*Subscription]struct{}
	closing bool
	running sync.WaitGroup // subscriptions whose channel is not yet closed
}

// NewHub returns a hub over src; call Run to start it.
func NewHub(src Source, opts Options) *Hub {
	if opts.Buffer <= 0 {
		opts.Buffer = 256
	}
	if opts.SlowAfter <= 0 {
		opts.SlowAfter = 10 * time.Second
	}
	if opts.Poll <= 0 {
		opts.Poll = 2 * time.Second
	}
	if opts.Batch <= 0 {
		opts.Batch = 500
	}
	if opts.MaxReplay <= 0 {
		opts.MaxReplay = DefaultMaxReplay
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	return &Hub{src: src, opts: opts, log: opts.Logger, demand: make(chan struct{}, 1),
		woken: make(chan struct{}), subs: map[string]map[*Subscription]struct{}{}}
}

// Run listens for new events and, while the hub has subscribers, reads the
// log from its head at the first subscription onwards and fans new events
// out, until ctx ends; then it shuts the hub down (see Shutdown). It returns
// ctx's error.
func (h *Hub) Run(ctx context.Context) error {
	defer h.Shutdown()
	listening := make(chan struct{})
	go func() { h.src.ListenEvents(ctx, h.wake); close(listening) }()
	defer func() { <-listening }()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-h.demand:
		}
		start, err := h.head(ctx)
		if err != nil {
			return err
		}
		tctx, stop := context.WithCancel(ctx)
		h.mu.Lock()
		if h.waiting == 0 || h.closing { // the subscribers gave up
			h.mu.Unlock()
			stop()
			continue
		}
		t := eventlog.New(countedReads{h.src, h.opts.Metrics}, h.log)
		t.Poll, t.Batch = h.opts.Poll, h.opts.Batch
		h.gen++
		gen := h.gen
		h.pos, h.awake, h.sleep = start, true, stop
		h.tailer.Store(t)
		close(h.woken)
		h.woken = make(chan struct{})
		h.mu.Unlock()
		_ = t.Run(tctx, start, func(evs []event.Event) { h.deliver(gen, evs) })
		stop()
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
}

// head reads the log's head, retrying until it succeeds or ctx ends: a hub
// that starts there misses nothing committed afterwards.
func (h *Hub) head(ctx context.Context) (event.Position, error) {
	failed := false
	for {
		start, err := h.src.EventHead(ctx)
		if err == nil {
			if failed {
				h.log.Info("live events: log head readable again")
			}
			return start, nil
		}
		if ctx.Err() != nil {
			return start, ctx.Err()
		}
		if !failed { // one line per outage, not one per attempt
			h.log.Warn("live events: read log head; retrying every second", "err", err)
			failed = true
		}
		select {
		case <-ctx.Done():
			return start, ctx.Err()
		case <-time.After(time.Second):
		}
	}
}

// wake passes a notification to the awake hub's reader; a sleeping hub has
// nothing to read.
func (h *Hub) wake() {
	if t := h.tailer.Load(); t != nil {
		h.opts.Metrics.woke()
		t.Wake()
	}
}

// sleepIfIdleLocked puts the hub to sleep once it has no subscriber and none
// is waiting for it: its reader stops, and the next subscriber starts it
// again from the log's head.
func (h *Hub) sleepIfIdleLocked() {
	if !h.awake || len(h.subs) > 0 || h.waiting > 0 {
		return
	}
	h.awake = false
	h.tailer.Store(nil)
	h.sleep()
}

// deliver fans one batch out. It never blocks: a subscriber with Buffer
// events undelivered catches up from the log (or, behind for too long, is
// ended as slow), and the others go on.
func (h *Hub) deliver(gen int, evs []event.Event) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closing || !h.awake || gen != h.gen {
		return // read before the hub slept
	}
	for i := range evs {
		ev := &evs[i]
		for _, org := range ev.OrgIDs {
			for s := range h.subs[org] {
				if s.wants(ev.Type) {
					h.offerLocked(s, ev)
				}
			}
		}
	}
	h.pos = evs[len(evs)-1].Position
}

// endLocked stops s taking events: it still sends what it was handed, then
// C closes and Err says reason.
func (h *Hub) endLocked(s *Subscription, reason error) {
	h.unregisterLocked(s)
	if s.ended {
		return
	}
	s.ended, s.reason = true, reason
	if !s.pumping { // else the pump finishes s once pending is sent
		h.finishLocked(s)
	}
}

func (h *Hub) unregisterLocked(s *Subscription) {
	if _, ok := h.subs[s.orgID][s]; ok {
		delete(h.subs[s.orgID], s)
		if len(h.subs[s.orgID]) == 0 {
			delete(h.subs, s.orgID)
		}
		h.sleepIfIdleLocked()
	}
}

// Shutdown stops new subscriptions and ends every open one after the events
// already read: each sends what it was handed, then its channel closes with
// ErrShutdown. Wait reports when they have all finished.
func (h *Hub) Shutdown() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closing {
		return
	}
	h.closing = true
	close(h.woken) // subscribers waiting for the hub give up
	for _, set := range h.subs {
		for s := range set {
			h.endLocked(s, ErrShutdown)
		}
	}
}

// Wait blocks until every subscription has ended or ctx ends.
func (h *Hub) Wait(ctx context.Context) error {
	done := make(chan struct{})
	go func() { h.running.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Subscribers returns how many subscriptions are live (for tests and metrics).
func (h *Hub) Subscribers() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, set := range h.subs {
		n += len(set)
	}
	return n
}

// Why a subscription ended, besides its context.
var (
	// ErrSlowConsumer: the subscriber stayed behind for Options.SlowAfter
	// and fell Buffer events behind; it should resubscribe with after set to
	// the last event it received.
	ErrSlowConsumer = errors.New("slow consumer")
	// ErrShutdown: the server is shutting down; reconnect to another replica.
	ErrShutdown = errors.New("server shutting down")
)

// errClosing refuses subscriptions once Shutdown has begun.
var errClosing = failure.Errorf(failure.Internal, "the server is shutting down: reconnect and resume with after")

// countedReads counts the hub's log reads for the statements-per-wake-up metric.
type countedReads struct {
	Source
	m *Metrics
}

func (c countedReads) ReadEvents(ctx context.Context, after event.Position, limit int) ([]event.Event, error) {
	c.m.read()
	return c.Source.ReadEvents(ctx, after, limit)
}
