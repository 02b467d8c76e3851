package chaos

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

var longForm = flag.Bool("chaos.long", false, "run the long form of every scenario (make chaos): more operations, longer outages, real River rescue delays")

// profile is how much each scenario does: the short form fits CI's budget,
// the long form is `make chaos`.
type profile struct {
	name string
	// workers send executes concurrently; load is how long they run before
	// (and, where the scenario says so, after) the fault.
	workers int
	load    time.Duration
	// outage is how long the private Postgres stays down.
	outage time.Duration
	// rate is the steady execute rate of the webhook latency scenario, for
	// phase seconds per phase.
	rate  int
	phase time.Duration
	// budgetWindow is how long the daily-budget scenario's seeded history
	// keeps its budget taken.
	budgetWindow time.Duration
	// fastForwardRescue moves River's rescue clock for the jobs a killed
	// process left running (see rescueOrphans), instead of waiting the
	// server's real rescue delay (2 × the 1 minute job timeout).
	fastForwardRescue bool
	// replay is how many acknowledged executes are sent again with their
	// keys after a fault, spread over the run.
	replay int
	// settle bounds the waits for deliveries and subscriptions to catch up.
	settle time.Duration
}

func current() profile {
	if *longForm {
		return profile{name: "long", workers: 16, load: 20 * time.Second, outage: 10 * time.Second,
			rate: 40, phase: 20 * time.Second, budgetWindow: 40 * time.Second, replay: 3000, settle: 5 * time.Minute}
	}
	return profile{name: "short", workers: 6, load: 2 * time.Second, outage: 2 * time.Second,
		rate: 15, phase: 4 * time.Second, budgetWindow: 8 * time.Second, replay: 300, fastForwardRescue: true, settle: 90 * time.Second}
}

// row is one line of the results table.
type row struct {
	scenario, load, figures, verdict string
}

var (
	resultsMu sync.Mutex
	results   []row
)

// report adds the scenario's line to the table (and to the test's log); the
// verdict is FAILED when the test failed by then.
func report(t *testing.T, scenario, load, figures string) {
	t.Helper()
	verdict := "ok"
	if t.Failed() {
		verdict = "FAILED"
	}
	r := row{scenario, load, figures, verdict}
	t.Logf("| %s | %s | %s | %s |", r.scenario, r.load, r.figures, r.verdict)
	resultsMu.Lock()
	results = append(results, r)
	resultsMu.Unlock()
}

func printTable(w io.Writer, elapsed time.Duration) {
	resultsMu.Lock()
	defer resultsMu.Unlock()
	if len(results) == 0 {
		return
	}
	sort.SliceStable(results, func(i, j int) bool { return results[i].scenario < results[j].scenario })
	host, _ := os.Hostname()
	fmt.Fprintf(w, "\nchaos (%s form), %s, %s %s/%s, %d CPUs, race=%v, load average %s, %s wall\n\n",
		current().name, time.Now().UTC().Format("2006-01-02 15:04 MST"), host, runtime.GOOS, runtime.GOARCH,
		runtime.NumCPU(), raceEnabled, loadAverage(), elapsed.Round(time.Second))
	fmt.Fprintln(w, "| scenario | load | figures | verdict |")
	fmt.Fprintln(w, "|---|---|---|---|")
	for _, r := range results {
		fmt.Fprintf(w, "| %s | %s | %s | %s |\n", r.scenario, r.load, r.figures, r.verdict)
	}
	fmt.Fprintln(w)
}

func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

func TestMain(m *testing.M) {
	flag.Parse()
	// The scenarios mostly wait (on child processes, outages, windows):
	// run all five at once unless -parallel says otherwise (its default,
	// GOMAXPROCS, would run them two by two on a small machine).
	explicit := false
	flag.Visit(func(f *flag.Flag) { explicit = explicit || f.Name == "test.parallel" })
	if !explicit {
		_ = flag.Set("test.parallel", "5")
	}
	start := time.Now()
	code := m.Run()
	printTable(os.Stdout, time.Since(start))
	closeShared()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

var (
	binOnce sync.Once
	binDir  string
	binPath string
	binErr  error
)

// serverBinary builds the service's binary once per test run, with -race
// when the tests run with it (the build then reuses the test build's cache).
func serverBinary(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		goBin, err := exec.LookPath("go")
		if err != nil {
			binErr = fmt.Errorf("find the go command: %w", err)
			return
		}
		if binDir, binErr = os.MkdirTemp("", "chaos-bin-"); binErr != nil {
			return
		}
		binPath = filepath.Join(binDir, "agenttrust")
		args := []string{"build", "-o", binPath}
		if raceEnabled {
			args = append(args, "-race")
		}
		args = append(args, "github.com/agenttrust/service")
		start := time.Now()
		out, err := exec.Command(goBin, args...).CombinedOutput()
		if err != nil {
			binErr = fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, out)
			return
		}
		fmt.Fprintf(os.Stderr, "chaos: built the server (race=%v) in %s\n", raceEnabled, time.Since(start).Round(100*time.Millisecond))
	})
	if binErr != nil {
		t.Fatalf("build the server binary: %v", binErr)
	}
	return binPath
}
