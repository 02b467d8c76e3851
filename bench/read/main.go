// Command read measures the read path under load: a dashboard's page of agents
// served by the service, side by side with a floor handler (package bench/floor:
// decode the request, one SELECT of the same columns through pgxpool,
// encoding/json out) on the same rows of the same database, in the same run,
// with wrk as the load tool.
//
// It creates a scratch database, migrates it, seeds one organization with
// -agents agents through the service's own GraphQL handler, serves the service
// and the floor on loopback, runs wrk against each target in turn and prints
// req/s, p50/p99 latency and the Go process CPU per request, then the ratios
// to the floor. Then, unless -execute none, executeTransaction under wrk
// against pgbench running the same SQL (bench/pgbench/execute.sql) with as
// many clients in the same database (execute.go). The database is dropped at
// the end. Run it with `make bench-read`.
package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/metrics"
	"runtime/pprof"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/agenttrust/service/bench/floor"
	"github.com/agenttrust/service/db"
	"github.com/agenttrust/service/httpapi"
	"github.com/agenttrust/service/wire"
)

// The dashboard's requests: a page of agents, plain and with trust.
const (
	plainQuery = `{ agents(limit: 50) { nodes { id name status spendingLimit currency environment createdAt } } }`
	trustQuery = `{ agents(limit: 50) { nodes { id name status spendingLimit currency environment createdAt trust { score assessment } } } }`
	evalQuery  = `query($in: TrustEvaluationInput!) { evaluateTrust(input: $in) { allowed reason reasonCode } }`
)

type options struct {
	admin        string
	duration     time.Duration
	connections  int
	threads      int
	agents       int
	rounds       int
	wrk          string
	cpuprofile   string // after the measured runs, one more run of profile, CPU-profiled into this file
	profile      string
	read         bool   // run the read targets (false: the executeTransaction target alone)
	execute      string // the executeTransaction target's senders: disjoint, random, or none (skipped)
	executeConns int
	pgbench      string
}

func main() {
	var o options
	flag.StringVar(&o.admin, "admin", envOr("TEST_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"), "Postgres URL of the server to create the scratch database on")
	flag.DurationVar(&o.duration, "duration", envDuration("DURATION", 10*time.Second), "wrk duration per target")
	flag.IntVar(&o.connections, "c", envInt("CONNECTIONS", 32), "wrk connections for the throughput targets")
	flag.IntVar(&o.threads, "t", envInt("THREADS", 2), "wrk threads")
	flag.IntVar(&o.agents, "agents", 50, "agents seeded (the page is 50)")
	flag.IntVar(&o.rounds, "rounds", envInt("ROUNDS", 1), "rounds of floor, plain, trust (interleaved, to expose drift)")
	flag.StringVar(&o.wrk, "wrk", envOr("WRK", "wrk"), "the wrk binary")
	flag.StringVar(&o.cpuprofile, "cpuprofile", "", "after the measured runs, run -profile's target once more (unreported) with the process CPU-profiled into this file")
	flag.StringVar(&o.profile, "profile", "trust", "the target -cpuprofile profiles: floor, plain, trust, typename, evaluateTrust or execute")
	flag.BoolVar(&o.read, "read", true, "run the read targets (-read=false: the executeTransaction target alone)")
	flag.StringVar(&o.execute, "execute", envOr("EXECUTE", "disjoint"), "after the read targets, executeTransaction against pgbench running the same SQL in the same database: disjoint (each connection its own sender, pgbench per_client=1), random (per_client=0), or none")
	flag.IntVar(&o.executeConns, "execute-c", envInt("EXECUTE_CONNECTIONS", 8), "wrk connections and pgbench clients for the executeTransaction target")
	flag.StringVar(&o.pgbench, "pgbench", envOr("PGBENCH", "pgbench"), "the pgbench binary")
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
	dbURL, drop, err := createDatabase(ctx, o.admin)
	if err != nil {
		return err
	}
	defer drop()
	d, err := db.Open(ctx, dbURL)
	if err != nil {
		return err
	}
	defer d.Close()
	if _, err := d.Migrate(ctx); err != nil {
		return err
	}
	orgID, _, key, err := db.NewOrgService(d).CreateOrg(ctx, "bench")
	if err != nil {
		return err
	}
	// Every part of the edge stays on: authentication, the rate limiter (set
	// high enough not to refuse), metrics, request logs at info level.
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	svc := wire.Handler(wire.Options{DB: d, Config: httpapi.Config{RateLimitRPS: 1e7, RateLimitBurst: 1e7}, Logger: log})
	agentIDs, err := seed(svc, key, o.agents)
	if err != nil {
		return err
	}

	pool, err := pgxpool.New(ctx, dbURL+"&pool_max_conns=32")
	if err != nil {
		return err
	}
	defer pool.Close()
	floor := floor.Handler(pool, orgID)

	svcURL, stopSvc, err := serve(svc)
	if err != nil {
		return err
	}
	defer stopSvc()
	floorURL, stopFloor, err := serve(floor)
	if err != nil {
		return err
	}
	defer stopFloor()

	tmp, err := os.MkdirTemp("", "bench-read")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	evalBody := body(evalQuery, map[string]any{"in": map[string]any{
		"agentId": agentIDs[0], "action": "purchase", "amount": "1.00", "currency": "USD"}})
	targets := map[string]target{
		"floor":         {url: floorURL, body: body(plainQuery, nil), key: key, nodes: o.agents},
		"plain":         {url: svcURL, body: body(plainQuery, nil), key: key, nodes: o.agents},
		"trust":         {url: svcURL, body: body(trustQuery, nil), key: key, nodes: o.agents},
		"typename":      {url: svcURL, body: body(`{ __typename }`, nil), key: key},
		"evaluateTrust": {url: svcURL, body: evalBody, key: key},
	}
	for name, t := range targets {
		if err := t.check(); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if t.script, err = t.writeScript(filepath.Join(tmp, name+".lua")); err != nil {
			return err
		}
		targets[name] = t
	}

	fmt.Printf("# %s  %d cores  %s  %d agents, wrk -t%d -c%d -d%s, %d round(s), GOGC=%s\n",
		time.Now().UTC().Format(time.RFC3339), numCPU(), wrkVersion(o.wrk), o.agents, o.threads, o.connections, o.duration, o.rounds, gogc)
	if o.read {
		if err := readTargets(o, targets); err != nil {
			return err
		}
	}

	if o.execute == "none" {
		return nil
	}
	// Seeded only now, in organizations of their own, so that the read
	// targets ran on the database as before.
	pool.Reset() // the floor's idle connections: room for pgbench's
	e, err := newExecuteBench(ctx, o, d, svc, dbURL, svcURL, tmp)
	if err != nil {
		return err
	}
	return e.run(ctx, o)
}

// readTargets runs the read targets: rounds of floor, plain and trust, the
// one-client latencies, and prints their ratios.
func readTargets(o options, targets map[string]target) error {
	fmt.Printf("%-14s %5s %9s %9s %9s %12s\n", "target", "round", "req/s", "p50 ms", "p99 ms", "cpu µs/req")
	results := map[string][]result{}
	warm := o
	warm.duration = 2 * time.Second
	for _, name := range []string{"floor", "plain", "trust"} { // unreported warm-up
		if _, err := load(warm, targets[name], o.connections); err != nil {
			return err
		}
	}
	for r := 1; r <= o.rounds; r++ {
		for _, name := range []string{"floor", "plain", "trust"} {
			res, err := load(o, targets[name], o.connections)
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			results[name] = append(results[name], res)
			res.print(name, r)
		}
	}
	gc := []metrics.Sample{{Name: "/gc/gogc:percent"}, {Name: "/gc/heap/live:bytes"}}
	metrics.Read(gc)
	fmt.Printf("# after the rounds: GOGC=%d, live heap %.1f MiB\n", gc[0].Value.Uint64(), float64(gc[1].Value.Uint64())/(1<<20))
	// Latency of one request at a time: evaluateTrust against { __typename }.
	for _, name := range []string{"typename", "evaluateTrust"} {
		lat := o
		lat.threads = 1
		res, err := load(lat, targets[name], 1)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		results[name] = append(results[name], res)
		res.print(name+" c1", 1)
	}

	if o.cpuprofile != "" && o.profile != "execute" {
		if err := profileRun(o, targets); err != nil {
			return err
		}
	}

	fmt.Println()
	fmt.Println("ratios (service / floor, same run; mean over rounds):")
	for _, name := range []string{"plain", "trust"} {
		var thr, p99, cpu float64
		for i := range results[name] {
			s, f := results[name][i], results["floor"][i]
			thr += s.rps / f.rps
			p99 += s.p99 / f.p99
			cpu += s.cpuPerReq / f.cpuPerReq
		}
		n := float64(len(results[name]))
		fmt.Printf("  %-6s throughput %.2f×   p99 %.2f×   cpu/req %.2f×\n", name, thr/n, p99/n, cpu/n)
	}
	tn, ev := results["typename"][0], results["evaluateTrust"][0]
	fmt.Printf("  evaluateTrust / { __typename } latency, one client: p50 %.2f×   mean %.2f×\n", ev.p50/tn.p50, ev.mean/tn.mean)
	return nil
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
	if o.profile == "typename" || o.profile == "evaluateTrust" {
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
