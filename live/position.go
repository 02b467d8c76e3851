package live

import (
	"context"
	"encoding/base64"
	"strings"

	"github.com/agenttrust/service/event"
	"github.com/agenttrust/service/failure"
)

// positionPrefix starts a log position as a subscription's after accepts it
// besides an event id: "pos_" and the URL-safe base64 of the position's
// "xid/seq". It is opaque to clients, like a list's cursor.
const positionPrefix = "pos_"

// PositionToken writes p as the token after accepts.
func PositionToken(p event.Position) string {
	return positionPrefix + base64.RawURLEncoding.EncodeToString([]byte(p.String()))
}

// isPositionToken says whether an after is a position rather than an event id.
func isPositionToken(after string) bool { return strings.HasPrefix(after, positionPrefix) }

// parsePositionToken reads a PositionToken. Errors: failure.ValidationFailed
// on after.
func parsePositionToken(after string) (event.Position, error) {
	b, err := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(after, positionPrefix))
	if err == nil {
		var p event.Position
		if p, err = event.ParsePosition(string(b)); err == nil {
			return p, nil
		}
	}
	return event.Position{}, failure.Invalid("after", "is neither an event id nor a position this service gave out: pass one unchanged")
}

// Position returns the log position a subscription would start from now,
// as the token after accepts: the hub's own position while it is awake
// (every event up to it has been fanned out), else the log's head. A
// subscription with after set to it receives every event committed after
// this moment, however late it subscribes or often it resumes. Errors:
// those of reading the log's head.
func (h *Hub) Position(ctx context.Context) (string, error) {
	h.mu.Lock()
	awake, pos := h.awake, h.pos
	h.mu.Unlock()
	if !awake {
		var err error
		if pos, err = h.src.EventHead(ctx); err != nil {
			return "", err
		}
	}
	return PositionToken(pos), nil
}
