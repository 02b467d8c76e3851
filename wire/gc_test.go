package wire

import (
	"os"
	"runtime"
	"runtime/metrics"
	"testing"
	"time"
)

func TestGCPercentFollowsTheLiveHeap(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		live uint64
		want int
	}{
		{0, 400},
		{4 << 20, 400},
		{12 << 20, 400},
		{16 << 20, 300},
		{24 << 20, 200},
		{48 << 20, 100},
		{1 << 30, 100},
	} {
		if got := GCPercent(c.live); got != c.want {
			t.Errorf("GCPercent(%d MiB) = %d, want %d", c.live>>20, got, c.want)
		}
	}
}

// TestTuneGCRetunesAfterCollections grows the live heap past the headroom
// and shrinks it again, and requires the target to follow after the
// collections. Not parallel: the collector's target is process-wide, and
// the tuner stays for the rest of the process.
func TestTuneGCRetunesAfterCollections(t *testing.T) {
	if _, set := os.LookupEnv("GOGC"); set {
		t.Skip("GOGC is set: TuneGC leaves the target alone")
	}
	if got := TuneGC(); got == "" {
		t.Fatal("TuneGC reported no setting")
	}
	waitPercent(t, 400)

	live := make([][]byte, 0, 64)
	for range 64 {
		live = append(live, make([]byte, 1<<20))
	}
	waitPercent(t, 100)
	runtime.KeepAlive(live) // and no further: the 64 MiB go with the next collection
	waitPercent(t, 400)
}

// waitPercent collects until the tuner, which runs after a collection on
// the runtime's cleanup goroutine, has set the target to want.
func waitPercent(t *testing.T, want uint64) {
	t.Helper()
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	deadline := time.Now().Add(5 * time.Second)
	for {
		metrics.Read(s)
		if got := s[0].Value.Uint64(); got == want {
			return
		} else if time.Now().After(deadline) {
			t.Fatalf("GOGC is %d, want %d", got, want)
		}
		runtime.GC()
		time.Sleep(5 * time.Millisecond)
	}
}
