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

// ReplayTooLong is the ValidationFailed error on "after" for a resume point
// more than max stored events back: the client resyncs from the list
// queries instead, then subscribes again without after.
func ReplayTooLong(max int, after string) error {
	return failure.Invalid("after", "more than %d stored events follow %s, the most a subscription replays: "+
		"resync from the list queries (agents, transactions, disputes), then subscribe without after", max, after)
}

// admitReplay refuses a replay from pos longer than MaxReplay stored events,
// then charges the request for the events it will read; both before the
// subscription is registered, so a refused one sends nothing.
func (h *Hub) admitReplay(ctx context.Context, req Request, pos event.Position) error {
	n, err := h.src.CountOrgEvents(ctx, req.OrgID, pos, h.opts.MaxReplay+1)
	if err != nil {
		return fmt.Errorf("count events to replay: %w", err)
	}
	if n > h.opts.MaxReplay {
		return ReplayTooLong(h.opts.MaxReplay, req.After)
	}
	if req.Charge != nil && n > 0 {
		return req.Charge(n)
	}
	return nil
}
