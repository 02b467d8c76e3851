package httpapi_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"

	"github.com/agenttrust/service/internal/testkit"
)

// An export's memory is bounded whatever its size: streaming an answer of
// tens of megabytes (memos of quotes, which CSV doubles) raises the heap by
// less than 16 MiB, sampled with runtime.ReadMemStats as the client reads.
// An export built in memory would hold the whole answer at least once.
//
// Not parallel: the heap is the process's, so this test measures it while
// no other test of the package runs.
func TestExportStreamMemoryBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("seeds 30,000 transactions of 1 KB memos")
	}
	b := testkit.New(t)
	seedExport(t, b, 30000, quoteMemo)
	ts := httptest.NewServer(b.Handler)
	defer ts.Close()

	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	base, peak := ms.HeapAlloc, ms.HeapAlloc
	req, _ := http.NewRequest(http.MethodGet, ts.URL+"/transactions/export?format=csv", nil)
	req.Header.Set("Authorization", "Bearer "+b.Key)
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	buf := make([]byte, 32<<10)
	var total, sampled int64
	for {
		n, err := resp.Body.Read(buf)
		total += int64(n)
		if total-sampled >= 512<<10 {
			sampled = total
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapAlloc)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("read export after %d bytes: %v", total, err)
		}
	}
	grew := int64(peak) - int64(base)
	t.Logf("exported %d MB; heap grew by at most %d MB over %d MB", total>>20, grew>>20, base>>20)
	if total < 48<<20 {
		t.Fatalf("exported %d bytes, want an answer of at least 48 MiB to measure", total)
	}
	if grew > 16<<20 {
		t.Fatalf("heap grew by %d MB while streaming %d MB: the export is not streamed", grew>>20, total>>20)
	}
}
