package db

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// pgSnapshot is a Postgres pg_snapshot: which transactions had finished
// when it was taken.
type pgSnapshot struct {
	xmin, xmax uint64   // every xid below xmin had finished; none at or above xmax had
	xip        []uint64 // the xids in [xmin, xmax) still running, ascending
}

// parseSnapshot reads a pg_snapshot's text form, "xmin:xmax:xip,xip,…".
func parseSnapshot(s string) (pgSnapshot, error) {
	parts := strings.Split(s, ":")
	if len(parts) != 3 {
		return pgSnapshot{}, fmt.Errorf("snapshot %q: want xmin:xmax:xip", s)
	}
	var snap pgSnapshot
	var err error
	if snap.xmin, err = strconv.ParseUint(parts[0], 10, 64); err != nil {
		return pgSnapshot{}, fmt.Errorf("snapshot %q: xmin: %w", s, err)
	}
	if snap.xmax, err = strconv.ParseUint(parts[1], 10, 64); err != nil {
		return pgSnapshot{}, fmt.Errorf("snapshot %q: xmax: %w", s, err)
	}
	if parts[2] != "" {
		for _, x := range strings.Split(parts[2], ",") {
			xid, err := strconv.ParseUint(x, 10, 64)
			if err != nil {
				return pgSnapshot{}, fmt.Errorf("snapshot %q: xip: %w", s, err)
			}
			snap.xip = append(snap.xip, xid)
		}
	}
	return snap, nil
}

// sees reports whether the snapshot sees the writes of transaction xid, for
// a transaction that has committed by now (as every event the log readers
// return has): Postgres' pg_visible_in_snapshot.
func (s pgSnapshot) sees(xid uint64) bool {
	switch {
	case xid < s.xmin:
		return true
	case xid >= s.xmax:
		return false
	}
	_, running := slices.BinarySearch(s.xip, xid)
	return !running
}
