package wire

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// The collector's target follows the live heap unless GOGC is set.
//
// A replica serving requests has a small live heap (a few MB) and
// short-lived garbage, so collecting at 5× the live heap (GOGC=400) instead
// of Go's default 2× cuts the collector's CPU by about a third on the read
// path (docs/performance.md) for a few tens of MB. A replica holding
// thousands of live connections has a large live heap of long-lived
// objects; collecting that rarely lets each connection's setup garbage
// spread its objects over more spans, which stay partly used once the
// garbage is gone (about 5 KiB more memory per idle subscription at 400
// than at 100; docs/live-events.md). So the headroom above the live heap
// is at most gcHeadroom: GOGC is 400 up to a live heap of gcHeadroom/4,
// then falls as the live heap grows, to Go's default 100 from gcHeadroom on.
const (
	gcMaxPercent = 400
	gcMinPercent = 100
	gcHeadroom   = 48 << 20
)

// GCPercent is the target for a live heap of live bytes.
func GCPercent(live uint64) int {
	if live == 0 {
		return gcMaxPercent
	}
	return int(max(gcMinPercent, min(gcMaxPercent, 100*gcHeadroom/live)))
}

// TuneGC makes the collector's target follow the live heap (GCPercent,
// recomputed after every collection), unless the operator set GOGC, and
// returns the setting in force. It is process-wide, so only main (and
// benchmarks that must measure what main runs) call it.
func TuneGC() string {
	if v, ok := os.LookupEnv("GOGC"); ok {
		return v
	}
	tuning.Do(func() {
		t := &gcTuner{sample: []metrics.Sample{{Name: "/gc/heap/live:bytes"}}, percent: -1}
		t.tune()
	})
	return "400 to 100 as the live heap grows from 12 to 48 MiB"
}

// tuning starts one tuner per process, however many servers it runs.
var tuning sync.Once

type gcTuner struct {
	sample  []metrics.Sample
	percent int
}

// gcSentinel is unreachable as soon as it is made, so the cleanup attached
// to it runs after the next collection. It holds a pointer so that it is
// not batched with other small objects by the tiny allocator.
type gcSentinel struct {
	_ *byte
	_ [8]byte
}

// tune sets the target for the live heap the last collection found, and
// arranges to run again after the next one. Cleanups run one at a time on
// the runtime's cleanup goroutine, so tune never runs concurrently.
func (t *gcTuner) tune() {
	metrics.Read(t.sample)
	var live uint64
	if t.sample[0].Value.Kind() == metrics.KindUint64 {
		live = t.sample[0].Value.Uint64()
	}
	if p := GCPercent(live); p != t.percent {
		debug.SetGCPercent(p)
		t.percent = p
	}
	runtime.AddCleanup(new(gcSentinel), (*gcTuner).tune, t)
}
