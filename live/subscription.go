package live

import (
	"context"
	"slices"
	"time"

	"github.com/agenttrust/service/event"
)

// Request is what a subscriber asks for.
type Request struct {
	OrgID string
	// Types filters by event type; empty or ["*"] means every type.
	Types []string
	// After, when set, is an event id of OrgID to resume after, or a
	// position token (Hub.Position) to start after.
	After string
	// Charge, when set, is called with the number of stored events the
	// replay will read, before any is sent; its error refuses the
	// subscription (the caller's rate limit, charged like reads).
	Charge func(events int) error
}

// Validate checks the types as webhook endpoints' are checked: absent, or
// non-empty known types, or exactly ["*"]. Errors: failure.ValidationFailed
// naming each bad entry (types[i]).
func (r Request) Validate() error {
	if r.Types == nil {
		return nil
	}
	return event.ValidateTypes("types", r.Types)
}

// Subscription is one subscriber's stream. C yields events in log order and
// closes when the subscription ends; Err then says why.
//
// An idle subscription costs no goroutine: the hub hands each event straight
// to C, whose one slot the consumer (gqlgen's operation goroutine) empties.
// Only while the subscriber is behind (a replay of the log, or events
// arriving faster than the consumer takes them) does a pump goroutine feed C,
// in order: first from the log up to a target position (a catch-up), then
// from pending; it exits once both are done. A subscriber that falls Buffer
// events behind drops pending and catches up from the log instead, so a
// burst (the backlog after an outage, one large transaction) costs it a read
// of the log, not its stream.
type Subscription struct {
	C <-chan *event.Event

	ctx       context.Context // the subscriber's: cancelling it ends the subscription
	transport string          // metrics label
	orgID     string
	types     []string       // nil: all
	after     event.Position // events up to it were seen (After beyond the hub's position)
	ch        chan *event.Event
	stop      func() bool // unregisters the context.AfterFunc that ends s

	// Guarded by the hub's mu.
	pending  []*event.Event // backlog, allocated only while there is one
	pumping  bool           // a pump owns sends on ch and its closing
	catching bool           // the pump must read the log up to catchTo before sending pending
	catchTo  event.Position
	handed   event.Position // the last event handed to ch (or the resume point); the pump's while it runs
	behind   time.Time      // when the running pump started
	ended    bool           // no more events are accepted; reason is set
	closed   bool           // ch is closed and the subscription accounted for
	reason   error
	last     string // id of the last event handed to ch
}

func (s *Subscription) wants(typ string) bool {
	return s.types == nil || slices.Contains(s.types, typ)
}

// Err is why the subscription ended: ErrSlowConsumer, ErrShutdown, or the
// subscriber's context error. Call it only after C has closed.
func (s *Subscription) Err() error { return s.reason }

// Subscribe starts a subscription that lives until ctx ends, the subscriber
// falls behind for too long, or the hub shuts down. Errors:
// failure.ValidationFailed for an unknown type, a malformed position token
// or an After more than MaxReplay stored events back (ReplayTooLong),
// failure.NotFound for an event id the organization cannot see, and the
// request's Charge error.
func (h *Hub) Subscribe(ctx context.Context, req Request) (*Subscription, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	var types []string // nil: all
	if !slices.Contains(req.Types, event.All) && len(req.Types) > 0 {
		types = slices.Clone(req.Types)
	}
	var after event.Position
	if req.After != "" {
		p, err := h.resumePoint(ctx, req)
		if err != nil {
			return nil, err
		}
		if err := h.admitReplay(ctx, req, types, p); err != nil {
			return nil, err
		}
		after = p
	}
	// One slot: the hub hands an event over when the consumer has taken the
	// previous one, and a backlog waits in pending (bounded by Buffer).
	ch := make(chan *event.Event, 1)
	s := &Subscription{C: ch, ch: ch, ctx: ctx, transport: transportOf(ctx), orgID: req.OrgID, last: req.After, types: types}

	// Registering and reading the hub's position under one lock splits the
	// log in two: everything up to head is replayed from the database (a
	// catch-up from after), everything after it arrives from the hub.
	h.mu.Lock()
	if err := h.awaitLocked(ctx); err != nil {
		h.mu.Unlock()
		return nil, err
	}
	head := h.pos
	if h.subs[req.OrgID] == nil {
		h.subs[req.OrgID] = map[*Subscription]struct{}{}
	}
	h.subs[req.OrgID][s] = struct{}{}
	h.running.Add(1)
	h.opts.Metrics.subscribed(ctx, 1)
	// The replay runs in a pump; live events wait in pending behind it. An
	// After beyond head (seen on a replica ahead of this one) replays
	// nothing, and the events up to it are dropped as seen.
	replay := req.After != "" && after.Less(head)
	s.handed = after
	if req.After != "" && !replay {
		s.after = after
	}
	// Ending with ctx costs no goroutine until ctx ends.
	s.stop = context.AfterFunc(ctx, func() { h.cancelled(s) })
	if replay {
		s.catching, s.catchTo = true, head
		h.startPumpLocked(s)
	}
	h.mu.Unlock()
	return s, nil
}

// resumePoint is the position of req.After: an event of the organization,
// or a position token (Position).
func (h *Hub) resumePoint(ctx context.Context, req Request) (event.Position, error) {
	if isPositionToken(req.After) {
		return parsePositionToken(req.After)
	}
	return h.src.EventPosition(ctx, req.OrgID, req.After)
}

// awaitLocked wakes a sleeping hub and waits, with h.mu released, until it
// has read the log's head; it returns with h.mu held and the hub awake, or
// with an error (the hub shut down, or ctx ended).
func (h *Hub) awaitLocked(ctx context.Context) error {
	for !h.awake && !h.closing && ctx.Err() == nil {
		h.waiting++
		woken := h.woken
		select {
		case h.demand <- struct{}{}:
		default:
		}
		h.mu.Unlock()
		select {
		case <-woken:
		case <-ctx.Done():
		}
		h.mu.Lock()
		h.waiting--
	}
	switch {
	case h.closing:
		return errClosing
	case ctx.Err() != nil:
		h.sleepIfIdleLocked()
		return ctx.Err()
	}
	return nil
}

// offerLocked hands ev to s, straight into C if it is free and nothing is
// waiting, else to pending behind a pump. A subscriber with Buffer events
// undelivered drops them and catches up from the log up to ev instead, or is
// ended as slow once it has been behind for SlowAfter. It never blocks.
func (h *Hub) offerLocked(s *Subscription, ev *event.Event) {
	if !s.after.Less(ev.Position) {
		return // seen before the subscription resumed
	}
	if !s.pumping {
		select {
		case s.ch <- ev:
			s.last, s.handed = ev.ID, ev.Position
			h.opts.Metrics.delivered(s.transport, ev)
			return
		default:
		}
	}
	if s.catching || len(s.ch)+len(s.pending) >= h.opts.Buffer {
		if s.pumping && time.Since(s.behind) >= h.opts.SlowAfter {
			h.endLocked(s, ErrSlowConsumer)
			return
		}
		// The events up to ev are in the log: the pump reads them from
		// there once it has sent what C holds.
		if !s.catching {
			h.opts.Metrics.caughtUp()
		}
		s.pending = nil
		s.catching, s.catchTo = true, ev.Position
		h.startPumpLocked(s)
		return
	}
	s.pending = append(s.pending, ev)
	h.startPumpLocked(s)
}

// startPumpLocked starts s's pump unless one runs.
func (h *Hub) startPumpLocked(s *Subscription) {
	if !s.pumping {
		s.pumping, s.behind = true, time.Now()
		go h.pump(s)
	}
}

// pump feeds C: a catch-up from the log (from the last event handed to C up
// to catchTo) whenever one is due, else pending, until both are done. Every
// event sent is strictly after the previous one, so an event the log
// returned and pending also holds is sent once.
func (h *Hub) pump(s *Subscription) {
	h.mu.Lock()
	defer h.mu.Unlock()
	last := s.handed
	send := func(ev *event.Event) bool {
		if !last.Less(ev.Position) || !s.wants(ev.Type) {
			return true
		}
		select {
		case s.ch <- ev:
		case <-s.ctx.Done():
			return false
		}
		// While it runs, the pump alone hands events to ch.
		last, s.last, s.handed = ev.Position, ev.ID, ev.Position
		h.opts.Metrics.delivered(s.transport, ev)
		return true
	}
	for ok := true; ok && !s.ended; {
		switch {
		case s.catching:
			to := s.catchTo
			s.catching = false
			h.mu.Unlock()
			ok = h.replay(s, last, to, send)
			h.mu.Lock()
		case len(s.pending) > 0:
			ev := s.pending[0]
			s.pending[0] = nil
			s.pending = s.pending[1:]
			h.mu.Unlock()
			ok = send(ev)
			h.mu.Lock()
		default:
			ok = false
		}
	}
	// An ended subscription still sends what it was handed.
	for s.ended && len(s.pending) > 0 && s.ctx.Err() == nil {
		ev := s.pending[0]
		s.pending = s.pending[1:]
		h.mu.Unlock()
		send(ev)
		h.mu.Lock()
	}
	// Nothing is due (or the subscriber is gone): ch goes back to the hub.
	s.pumping, s.catching = false, false
	s.pending = nil // an idle subscriber holds no backlog
	if err := s.ctx.Err(); err != nil && !s.ended {
		h.unregisterLocked(s)
		s.ended, s.reason = true, err
	}
	if s.ended {
		h.finishLocked(s)
	}
}

// replay sends the organization's events from after up to head; false when
// the subscriber's context ended.
func (h *Hub) replay(s *Subscription, after, head event.Position, send func(*event.Event) bool) bool {
	last := after
	for last.Less(head) {
		evs, err := h.src.ReadOrgEvents(s.ctx, s.orgID, last, h.opts.Batch)
		if err != nil {
			if s.ctx.Err() != nil {
				return false
			}
			h.log.Warn("live events: replay", "org_id", s.orgID, "err", err)
			select {
			case <-s.ctx.Done():
				return false
			case <-time.After(200 * time.Millisecond):
			}
			continue
		}
		done := len(evs) < h.opts.Batch
		for i := range evs {
			if head.Less(evs[i].Position) {
				done = true
				break
			}
			if !send(&evs[i]) {
				return false
			}
			last = evs[i].Position // skipped types still advance the replay
		}
		if done {
			break
		}
	}
	return true
}

// cancelled ends s when its subscriber's context ends.
func (h *Hub) cancelled(s *Subscription) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.unregisterLocked(s)
	if !s.ended {
		s.ended, s.reason = true, s.ctx.Err()
	}
	s.pending = nil
	if !s.pumping { // else the pump sees ctx end and finishes s
		h.finishLocked(s)
	}
}

// finishLocked closes C after everything handed to it, once no pump owns it.
// A slow consumer's connection is told first, so that it closes with a
// reason instead of completing as if the stream were over.
func (h *Hub) finishLocked(s *Subscription) {
	if s.closed {
		return
	}
	s.closed = true
	s.stop()
	if s.reason == ErrSlowConsumer {
		h.opts.Metrics.slow()
		h.log.InfoContext(s.ctx, "live events: slow consumer closed", "org_id", s.orgID, "resume_after", s.last)
		if c := ConnFrom(s.ctx); c != nil {
			c.EndLive(s.reason, s.last)
		}
	}
	close(s.ch)
	h.opts.Metrics.subscribed(s.ctx, -1)
	h.running.Done()
}

// Conn is the connection subscriptions are served on, which the transport
// puts in their context: it labels their metrics, and it closes with a
// reason when a subscriber is too slow, instead of completing as if the
// stream were over.
type Conn interface {
	// Transport names the transport for metrics ("websocket", "sse").
	Transport() string
	// EndLive closes the connection because of reason, once the events
	// already handed over are written; resumeAfter is the last of them
	// ("" if none).
	EndLive(reason error, resumeAfter string)
}

type connKey struct{}

// WithConn returns ctx carrying c.
func WithConn(ctx context.Context, c Conn) context.Context {
	return context.WithValue(ctx, connKey{}, c)
}

// ConnFrom returns the connection in ctx, or nil.
func ConnFrom(ctx context.Context) Conn {
	c, _ := ctx.Value(connKey{}).(Conn)
	return c
}
