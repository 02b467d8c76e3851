package live

import (
	"context"
	"fmt"

	"github.com/agenttrust/service/event"
	"github.com/agenttrust/service/failure"
)

// DefaultMaxReplay is the default bound on the stored events one
// subscription's after replays (LIVE_REPLAY_MAX_EVENTS).
const DefaultMaxReplay = 1000

// scanFactor bounds the stored events of every type a replay reads, as a
// multiple of MaxReplay: a subscription filtering a rare type resumes after
// a long quiet stretch of other types, but never reads the whole log.
const scanFactor = 50

// ReplayTooLong is the ValidationFailed error on "after" for a resume point
// that more than max stored events of the subscription's types follow (or
// more than scanFactor times as many of any type): the client resyncs from
// the list queries instead, then subscribes again.
func ReplayTooLong(max int, after string) error {
	return failure.Invalid("after", "more than %d stored events follow %s, the most a subscription replays: "+
		"resync from the list queries (agents, transactions, disputes), then subscribe without after", max, after)
}

// admitReplay refuses a replay from pos that would send more than MaxReplay
// events of types, or read more than scanFactor times as many stored events,
// then charges the request for the events it will read; both before the
// subscription is registered, so a refused one sends nothing.
func (h *Hub) admitReplay(ctx context.Context, req Request, types []string, pos event.Position) error {
	scanMax := scanFactor * h.opts.MaxReplay
	all, matching, err := h.src.CountOrgEvents(ctx, req.OrgID, pos, types, scanMax+1)
	if err != nil {
		return fmt.Errorf("count events to replay: %w", err)
	}
	switch {
	case matching > h.opts.MaxReplay:
		return ReplayTooLong(h.opts.MaxReplay, req.After)
	case all > scanMax:
		return ReplayTooLong(scanMax, req.After)
	}
	if req.Charge != nil && all > 0 {
		return req.Charge(all)
	}
	return nil
}
