package event

import (
	"fmt"
	"strconv"
	"strings"
)

// Position is an event's place in the log: the id of the database transaction
// that wrote it, then its insertion sequence. The log is read in Position
// order, and only below the oldest transaction still running, so a reader
// that has passed a Position has seen every event that will ever sort before
// it: an event committed late always sorts after what was already read.
type Position struct {
	XID uint64 // pg_current_xact_id() of the writing transaction
	Seq int64  // events.seq
}

// Less reports whether p sorts before q in the log.
func (p Position) Less(q Position) bool {
	if p.XID != q.XID {
		return p.XID < q.XID
	}
	return p.Seq < q.Seq
}

// IsZero reports whether p is the start of the log.
func (p Position) IsZero() bool { return p == Position{} }

// String renders p as "xid/seq", the form ParsePosition reads.
func (p Position) String() string { return fmt.Sprintf("%d/%d", p.XID, p.Seq) }

// ParsePosition reads the form String writes.
func ParsePosition(s string) (Position, error) {
	x, q, ok := strings.Cut(s, "/")
	if !ok {
		return Position{}, fmt.Errorf("event position %q: want xid/seq", s)
	}
	xid, err := strconv.ParseUint(x, 10, 64)
	if err != nil {
		return Position{}, fmt.Errorf("event position %q: %w", s, err)
	}
	seq, err := strconv.ParseInt(q, 10, 64)
	if err != nil || seq < 0 {
		return Position{}, fmt.Errorf("event position %q: bad sequence", s)
	}
	return Position{XID: xid, Seq: seq}, nil
}
