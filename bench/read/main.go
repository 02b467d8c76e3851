// Command read measures the read path under load: a dashboard's requests
// (package bench/dashboard) served by the service, side by side with stock
// gqlgen serving the same agents pages (package bench/stock: the engine's
// own cost) and a floor handler (package bench/floor: decode the request,
// one SELECT of the plain agents page's columns through pgxpool,
// encoding/json out) on the same rows of the same database, in the same
// run, with wrk as the load tool; and PostGraphile (bench/postgraphile, a
// Node process of its own, its CPU read from /proc) serving the plain and
// the trust page from the same tables, when its npm packages are installed.
//
// It creates a scratch database, migrates it, seeds two organizations
// through the service's own GraphQL handler (dashboard.Seed), serves the
// service, the stock reference and the floor on loopback, runs wrk against
// each target in turn: the floor, the stock reference's plain page, the
// service's plain agents page (the floor's own request), the same with a
// second root field, the stock reference's and the service's page with
// trust, and the dashboard's mix (every request of dashboard.Mix in turn);
// with -each, every request of the mix alone too; with -targets, only the
// named ones beside the floor. It prints req/s, p50/p99 latency and the Go
// process CPU per request, then the ratios to the floor and the service's
// to the stock reference's. Then, unless -execute none, executeTransaction under wrk
// against pgbench running the same SQL (bench/pgbench/execute.sql) with as
// many clients in the same database (execute.go). The database is dropped at
// the end. Run it with `make bench-read`.
package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/agenttrust/service/bench/benchdb"
	"github.com/agenttrust/service/bench/dashboard"
	"github.com/agenttrust/service/db"
)

// evalQuery is the latency target's decision.
const evalQuery = `query($in: TrustEvaluationInput!) { evaluateTrust(input: $in) { allowed reason reasonCode } }`

type options struct {
	admin        string
	duration     time.Duration
	connections  int
	threads      int
	rounds       int
	each         bool     // also every request of the mix alone
	targets      []string // only these read targets (and the floor); nil: all
	wrk          string
	cpuprofile   string // after the measured runs, one more run of profile, CPU-profiled into this file
	profile      string
	read         bool   // run the read targets (false: the executeTransaction target alone)
	execute      string // the executeTransaction target's senders: disjoint, random, or none (skipped)
	executeConns int
	pgbench      string
	postgraphile string // PostGraphile's npm project (bench/postgraphile)
}

func main() {
	var o options
	flag.StringVar(&o.admin, "admin", envOr("TEST_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"), "Postgres URL of the server to create the scratch database on")
	flag.DurationVar(&o.duration, "duration", envDuration("DURATION", 10*time.Second), "wrk duration per target")
	flag.IntVar(&o.connections, "c", envInt("CONNECTIONS", 32), "wrk connections for the throughput targets")
	flag.IntVar(&o.threads, "t", envInt("THREADS", 2), "wrk threads")
	flag.IntVar(&o.rounds, "rounds", envInt("ROUNDS", 1), "rounds of floor, pages and mix (interleaved, to expose drift)")
	flag.BoolVar(&o.each, "each", os.Getenv("EACH") != "", "in each round, also every request of the mix alone (EACH=1)")
	flag.Func("targets", "only these read targets, comma-separated, beside the floor, e.g. \"stock plain,plain\" or \"mix: overview\" (TARGETS)", func(v string) error {
		o.targets = strings.Split(v, ",")
		return nil
	})
	if v := os.Getenv("TARGETS"); v != "" {
		o.targets = strings.Split(v, ",")
	}
	flag.StringVar(&o.wrk, "wrk", envOr("WRK", "wrk"), "the wrk binary")
	flag.StringVar(&o.cpuprofile, "cpuprofile", "", "after the measured runs, run -profile's target once more (unreported) with the process CPU-profiled into this file")
	flag.StringVar(&o.profile, "profile", "mix", "the target -cpuprofile profiles: floor, plain, typename, trust, mix, a request of the mix, typename c1, evaluateTrust or execute")
	flag.BoolVar(&o.read, "read", true, "run the read targets (-read=false: the executeTransaction target alone)")
	flag.StringVar(&o.execute, "execute", envOr("EXECUTE", "disjoint"), "after the read targets, executeTransaction against pgbench running the same SQL in the same database: disjoint (each connection its own sender, pgbench per_client=1), random (per_client=0), or none")
	flag.IntVar(&o.executeConns, "execute-c", envInt("EXECUTE_CONNECTIONS", 8), "wrk connections and pgbench clients for the executeTransaction target")
	flag.StringVar(&o.pgbench, "pgbench", envOr("PGBENCH", "pgbench"), "the pgbench binary")
	flag.StringVar(&o.postgraphile, "postgraphile", "bench/postgraphile", "PostGraphile's npm project: with its packages installed (npm ci), its plain and trust pages run beside the service's")
	flag.Parse()
	if err := run(context.Background(), o); err != nil {
		fmt.Fprintln(os.Stderr, "bench-read:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, o options) error {
	gogc := cmp.Or(os.Getenv("GOGC"), "default") // the binary leaves the collector to GOGC and GOMEMLIMIT
	if _, err := exec.LookPath(o.wrk); err != nil {
		return fmt.Errorf("wrk not found (%v): install it with `apt-get install wrk` (Debian) or set WRK", err)
	}
	dbURL, drop, err := benchdb.Scratch(ctx, o.admin, "att_readbench_")
	if err != nil {
		return err
	}
	defer drop()
	d, err := db.Open(ctx, dbURL)
	if err != nil {
		return err
	}
	defer d.Close()
	s, err := newServers(ctx, d, dbURL)
	if err != nil {
		return err
	}
	defer s.close()
	tmp, err := os.MkdirTemp("", "bench-read")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	pgl, stopPgl, err := postGraphileTargets(ctx, o, dbURL, s.orgID)
	if err != nil {
		return err
	}
	defer stopPgl()
	targets, order, err := readTargets(o, s.svcURL, s.floorURL, s.stockURL, s.key, s.fixture, pgl, tmp)
	if err != nil {
		return err
	}

	fmt.Printf("# %s  %d cores  %s  %d agents, wrk -t%d -c%d -d%s, %d round(s), GOGC=%s\n",
		time.Now().UTC().Format(time.RFC3339), numCPU(), wrkVersion(o.wrk), dashboard.Agents, o.threads, o.connections, o.duration, o.rounds, gogc)
	if o.read {
		if err := runReads(o, targets, order); err != nil {
			return err
		}
	}

	if o.execute == "none" {
		return nil
	}
	// Seeded after the read targets ran, in organizations of their own, so
	// that the read targets' database holds the dashboard's rows alone.
	s.pool.Reset() // the floor's idle connections: room for pgbench's
	e, err := newExecuteBench(ctx, o, d, s.svc, dbURL, s.svcURL, tmp)
	if err != nil {
		return err
	}
	return e.run(ctx, o)
}

// profileRun runs o.profile's target once more, as it was measured (one
// client for the latency targets), with the process CPU-profiled into
// o.cpuprofile: both servers run in this process, so the profile is the
// server's side of that target (and this process' idle wrk bookkeeping).
func profileRun(o options, targets map[string]target) error {
	t, ok := targets[o.profile]
	if !ok {
		return fmt.Errorf("-profile %q: no such target", o.profile)
	}
	conns := o.connections
	if o.profile == "typename c1" || o.profile == "evaluateTrust" {
		o.threads, conns = 1, 1
	}
	err := cpuProfiled(o.cpuprofile, func() error { _, err := load(o, t, conns); return err })
	if err != nil {
		return fmt.Errorf("%s: %w", o.profile, err)
	}
	fmt.Printf("# CPU profile of one more %s run: %s\n", o.profile, o.cpuprofile)
	return nil
}

// cpuProfiled runs run with this process CPU-profiled into the file path.
func cpuProfiled(path string, run func() error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := pprof.StartCPUProfile(f); err != nil {
		return err
	}
	defer pprof.StopCPUProfile()
	return run()
}
