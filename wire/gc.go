package wire

import (
	"os"
	"runtime/debug"
	"strconv"
)

// GCPercent is the garbage collector's target the service runs with unless
// GOGC is set. The service's live heap is small (a few MB) and a request's
// garbage is short-lived, so collecting at 4× the live heap instead of Go's
// default 2× cuts the collector's CPU by about a third on the read path
// (docs/performance.md) for a few tens of MB of memory.
const GCPercent = 400

// TuneGC applies GCPercent, unless the operator set GOGC, and returns the
// setting in force. It is process-wide, so only main (and benchmarks that
// must measure what main runs) call it.
func TuneGC() string {
	if v, ok := os.LookupEnv("GOGC"); ok {
		return v
	}
	debug.SetGCPercent(GCPercent)
	return strconv.Itoa(GCPercent)
}
