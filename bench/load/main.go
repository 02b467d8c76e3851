// Command load runs the service's load scenarios against a real server
// process (the service built with go build, on loopback, each scenario on a
// fresh database copied from a migrated template) and prints one table:
// throughput, latency percentiles (50/90/99/99.9), errors, the server's peak
// resident memory and CPU per operation, beside a baseline measured in the
// same run and the ratios between them.
//
//	read      agents page plain and with trust, the dashboard mix (32 clients) vs the bare pgx + JSON floor (bench/floor)
//	evaluate  evaluateTrust vs { __typename } on the same server (4 clients)
//	execute   executeTransaction, 8 and 64 senders, disjoint and 4 hot agents,
//	          vs pgbench running bench/pgbench/execute.sql
//	mixed     80% reads, 15% evaluates, 5% executes with 1,000 websocket
//	          subscribers attached, every event checked to reach every subscriber
//	fanout    10,000 websocket subscribers over 100 organizations, a burst of events
//	webhooks  delivery to 50 endpoints vs a plain Go client posting the same bodies
//	export    12 concurrent streamed exports of 49,990 transactions with 1 KB memos: peak RSS
//
// With -soak it runs mixed traffic with subscribers and webhooks for the
// given time instead, and checks that the server's goroutines, heap, open
// file descriptors and database connections return to their starting level.
//
// Run it with `make bench` (BENCH_QUICK=1 for a short form) and `make soak`.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"
)

// config is what every scenario is told.
type config struct {
	duration   time.Duration // of each measured run
	warmup     time.Duration // unreported, before each measured run
	subs       int           // websocket subscribers of the mixed scenario
	fanoutSubs int           // of the fan-out scenario
	events     int           // events in the fan-out burst and the webhook backlog
}

// scenario is one scenario of the table.
type scenario struct {
	name string
	run  func(context.Context, *env, config) []group
}

var scenarios = []scenario{
	{"read", readScenario},
	{"evaluate", evaluateScenario},
	{"execute", executeScenario},
	{"mixed", mixedScenario},
	{"fanout", fanoutScenario},
	{"webhooks", webhookScenario},
	{"export", exportScenario},
}

func main() {
	// The baselines' own processes: this program, re-run.
	if len(os.Args) > 1 && (os.Args[1] == "floor" || os.Args[1] == "post") {
		sub := map[string]func([]string) error{"floor": serveFloor, "post": plainPost}[os.Args[1]]
		if err := sub(os.Args[2:]); err != nil {
			fmt.Fprintf(os.Stderr, "load %s: %v\n", os.Args[1], err)
			os.Exit(1)
		}
		return
	}
	quick := os.Getenv("BENCH_QUICK") != "" && os.Getenv("BENCH_QUICK") != "0"
	admin := flag.String("admin", envOr("TEST_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"), "URL of the Postgres server (its maintenance database) to create scratch databases on")
	flag.BoolVar(&quick, "quick", quick, "short form: 3 s runs, 1 s warm-ups, fewer subscribers and events (BENCH_QUICK=1)")
	duration := flag.Duration("duration", 0, "length of each measured run (default 15s, 3s with -quick)")
	only := flag.String("only", "", "comma-separated scenarios to run (default all): read,evaluate,execute,mixed,fanout,webhooks,export")
	soak := flag.Duration("soak", 0, "run the soak test for this long instead of the scenarios (SOAK_DURATION)")
	settle := flag.Duration("settle", 7*time.Minute, "soak: how long to wait, after the traffic stops, for the server to return to its starting level")
	flag.Parse()
	if *soak == 0 {
		if d, err := time.ParseDuration(os.Getenv("SOAK_DURATION")); err == nil {
			*soak = d
		}
	}

	c := config{duration: 15 * time.Second, warmup: 3 * time.Second, subs: 1000, fanoutSubs: 10000, events: 1000}
	if quick {
		c = config{duration: 3 * time.Second, warmup: time.Second, subs: 200, fanoutSubs: 2000, events: 200}
	}
	if *duration > 0 {
		c.duration = *duration
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var err error
	if *soak > 0 {
		err = runSoak(ctx, *admin, *soak, *settle)
	} else {
		err = runBench(ctx, *admin, c, *only, quick)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "load:", err)
		os.Exit(1)
	}
}

func runBench(ctx context.Context, admin string, c config, only string, quick bool) error {
	var pick []string
	if only != "" {
		pick = strings.Split(only, ",")
		for _, p := range pick {
			if !slices.ContainsFunc(scenarios, func(s scenario) bool { return s.name == p }) {
				return fmt.Errorf("unknown scenario %q", p)
			}
		}
	}
	raiseFileLimit()
	start := time.Now()
	e, err := newEnv(ctx, admin)
	if err != nil {
		return err
	}
	defer e.close()
	var groups []group
	for _, s := range scenarios {
		if pick != nil && !slices.Contains(pick, s.name) {
			continue
		}
		t0 := time.Now()
		fmt.Fprintf(os.Stderr, "load: %s ...\n", s.name)
		gs := s.run(ctx, e, c)
		fmt.Fprintf(os.Stderr, "load: %s done in %s\n", s.name, time.Since(t0).Round(time.Second))
		groups = append(groups, gs...)
		if ctx.Err() != nil {
			break
		}
	}
	mode := "full"
	if quick {
		mode = "quick"
	}
	fmt.Printf("\n# make bench (%s): %s, %d cores, %s, load average at the end %s, %s per run after %s warm-up, %s in all\n",
		mode, time.Now().UTC().Format("2006-01-02 15:04 MST"), runtime.NumCPU(), runtime.Version(), loadavg(),
		c.duration, c.warmup, time.Since(start).Round(time.Second))
	fmt.Println("# ops/s counts answered operations without error; latency is per request as the client saw it; peak RSS and CPU/op are the server process's (the service, or the baseline's own process; '-' where the baseline has none)")
	printTable(os.Stdout, groups)
	for _, g := range groups {
		if g.err != nil || g.problem != nil {
			return fmt.Errorf("%s failed", g.scenario)
		}
		if g.service.errors > 0 || (g.baseline != nil && g.baseline.errors > 0) {
			return fmt.Errorf("%s: requests failed", g.scenario)
		}
		if g.service.ops == 0 || (g.baseline != nil && g.baseline.ops == 0) {
			return fmt.Errorf("%s: nothing was answered", g.scenario)
		}
	}
	return ctx.Err()
}

// raiseFileLimit lifts this process's open-file limit to its hard limit:
// 10,000 subscribers need as many sockets (the server, a child, inherits it).
func raiseFileLimit() {
	var r syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &r) == nil && r.Cur < r.Max {
		r.Cur = r.Max
		_ = syscall.Setrlimit(syscall.RLIMIT_NOFILE, &r)
	}
}

func loadavg() string {
	raw, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(raw))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}
