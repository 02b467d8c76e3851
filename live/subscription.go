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
	// After, when set, is an event id of OrgID to resume after.
	After string
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
type Subscription struct {
	C <-chan *event.Event

	orgID  string
	types  []string // nil: all
	queue  chan *event.Event
	out    chan *event.Event
	reason error // set by the hub before it closes queue
	last   string
}

func (s *Subscription) wants(typ string) bool {
	return s.types == nil || slices.Contains(s.types, typ)
}

// Err is why the subscription ended: ErrSlowConsumer, ErrShutdown, or the
// subscriber's context error. Call it only after C has closed.
func (s *Subscription) Err() error { return s.reason }

// LastID is the id of the last event sent on C ("" if none, then the
// request's After). Call it only after C has closed.
func (s *Subscription) LastID() string { return s.last }

// Subscribe starts a subscription that lives until ctx ends, the subscriber
// falls behind, or the hub shuts down. Errors: failure.ValidationFailed for
// an unknown type, failure.NotFound for an After the organization cannot see.
func (h *Hub) Subscribe(ctx context.Context, req Request) (*Subscription, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	var after event.Position
	if req.After != "" {
		p, err := h.src.EventPosition(ctx, req.OrgID, req.After)
		if err != nil {
			return nil, err
		}
		after = p
	}
	select {
	case <-h.ready:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	s := &Subscription{orgID: req.OrgID, queue: make(chan *event.Event, h.opts.Buffer),
		out: make(chan *event.Event), last: req.After}
	if !slices.Contains(req.Types, event.All) && len(req.Types) > 0 {
		s.types = slices.Clone(req.Types)
	}
	s.C = s.out

	// Registering and reading the hub's position under one lock splits the
	// log in two: everything up to head is replayed from the database,
	// everything after it arrives through the queue.
	h.mu.Lock()
	if h.closing {
		h.mu.Unlock()
		return nil, errClosing
	}
	head := h.pos
	if h.subs[req.OrgID] == nil {
		h.subs[req.OrgID] = map[*Subscription]struct{}{}
	}
	h.subs[req.OrgID][s] = struct{}{}
	h.running.Add(1)
	h.mu.Unlock()

	if req.After == "" {
		after = head
	}
	h.opts.Metrics.subscribed(ctx, 1)
	go h.stream(ctx, s, after, head)
	return s, nil
}

// stream replays the log from after up to head, then forwards the queue.
// Every event sent is strictly after the previous one, so an event the
// replay returned and the queue also carries is sent once.
func (h *Hub) stream(ctx context.Context, s *Subscription, after, head event.Position) {
	defer func() {
		if s.reason == ErrSlowConsumer {
			h.opts.Metrics.slow()
			h.log.InfoContext(ctx, "live events: slow consumer closed", "org_id", s.orgID, "resume_after", s.last)
			if e, ok := ctx.Value(enderKey{}).(Ender); ok {
				e.EndLive(s.reason, s.last) // before the stream completes normally
			}
		}
		close(s.out)
		h.opts.Metrics.subscribed(ctx, -1)
		h.running.Done()
	}()
	last := after
	send := func(ev *event.Event) bool {
		if !last.Less(ev.Position) || !s.wants(ev.Type) {
			return true
		}
		select {
		case s.out <- ev:
		case <-ctx.Done():
			return false
		}
		last, s.last = ev.Position, ev.ID
		h.opts.Metrics.delivered(ctx, ev)
		return true
	}
	for last.Less(head) {
		evs, err := h.src.ReadOrgEvents(ctx, s.orgID, last, h.opts.Batch)
		if err != nil {
			if ctx.Err() != nil {
				h.remove(s)
				s.reason = ctx.Err()
				return
			}
			h.log.Warn("live events: replay", "org_id", s.orgID, "err", err)
			select {
			case <-ctx.Done():
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
				h.remove(s)
				s.reason = ctx.Err()
				return
			}
			last = evs[i].Position // skipped types still advance the replay
		}
		if done {
			break
		}
	}
	for {
		select {
		case ev, ok := <-s.queue:
			if !ok {
				return // the hub set s.reason before closing
			}
			if !send(ev) {
				h.remove(s)
				s.reason = ctx.Err()
				return
			}
		case <-ctx.Done():
			h.remove(s)
			s.reason = ctx.Err()
			return
		}
	}
}

// Ender ends the connection a subscription is served on; the transport puts
// one in the context so that a slow consumer's connection closes with a
// reason instead of completing as if the stream were over.
type Ender interface {
	// EndLive closes the connection because of reason, once the events
	// already handed over are written; resumeAfter is the last of them
	// ("" if none).
	EndLive(reason error, resumeAfter string)
}

type enderKey struct{}

// WithEnder returns ctx carrying e.
func WithEnder(ctx context.Context, e Ender) context.Context {
	return context.WithValue(ctx, enderKey{}, e)
}
