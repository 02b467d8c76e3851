package httpapi_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// The real graphql-ws and graphql-sse npm clients subscribe, a mutation
// triggers an event, and tools/livecheck fails unless it arrives. Skipped,
// saying why, where Node or npm is missing or the packages cannot be installed.
func TestLiveEventsNodeClients(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("-short: skipping the Node client check")
	}
	node, errNode := exec.LookPath("node")
	npm, errNpm := exec.LookPath("npm")
	if errNode != nil || errNpm != nil {
		t.Skip("node or npm not found: skipping the graphql-ws/graphql-sse client check (make livecheck runs it)")
	}
	dir, err := filepath.Abs("../tools/livecheck")
	must(t, err)
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "graphql-ws")); err != nil {
		install := exec.CommandContext(ctx, npm, "ci", "--no-audit", "--no-fund", "--silent")
		install.Dir = dir
		if out, err := install.CombinedOutput(); err != nil {
			t.Skipf("npm ci in tools/livecheck failed (no registry?): skipping the Node client check: %v\n%s", err, out)
		}
	}
	b := setupLive(t)
	check := exec.CommandContext(ctx, node, "livecheck.mjs")
	check.Dir = dir
	check.Env = append(os.Environ(), "URL="+b.ts.URL+"/graphql", "API_KEY="+b.key, "TIMEOUT_MS=30000")
	out, err := check.CombinedOutput()
	if err != nil {
		t.Fatalf("livecheck: %v\n%s", err, out)
	}
	t.Logf("%s", out)
}
