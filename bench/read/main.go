// Command read measures the read path under load: a dashboard's page of agents
// served by the service, side by side with a floor handler (decode the request,
// one SELECT of the same columns through pgxpool, encoding/json out) on the same
// rows of the same database, in the same run, with wrk as the load tool.
//
// It creates a scratch database, migrates it, seeds one organization with
// -agents agents through the service's own GraphQL handler, serves the service
// and the floor on loopback, runs wrk against each target in turn and prints
// req/s, p50/p99 latency and the Go process CPU per request, then the ratios
// to the floor. The database is dropped at the end. Run it with `make bench-read`.
package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/uptrace/bun/driver/pgdriver"

	"github.com/agenttrust/service/db"
	"github.com/agenttrust/service/httpapi"
	"github.com/agenttrust/service/id"
	"github.com/agenttrust/service/wire"
)

// The dashboard's requests: a page of agents, plain and with trust.
const (
	plainQuery = `{ agents(limit: 50) { nodes { id name status spendingLimit currency environment createdAt } } }`
	trustQuery = `{ agents(limit: 50) { nodes { id name status spendingLimit currency environment createdAt trust { score assessment } } } }`
	evalQuery  = `query($in: TrustEvaluationInput!) { evaluateTrust(input: $in) { allowed reason reasonCode } }`
)

type options struct {
	admin       string
	duration    time.Duration
	connections int
	threads     int
	agents      int
	rounds      int
	wrk         string
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
	flag.Parse()
	if err := run(context.Background(), o); err != nil {
		fmt.Fprintln(os.Stderr, "bench-read:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, o options) error {
	gogc := wire.TuneGC() // what the binary runs with
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
	svc := wire.Handler(httpapi.Config{RateLimitRPS: 1e7, RateLimitBurst: 1e7}, d, log, nil)
	agentIDs, err := seed(svc, key, o.agents)
	if err != nil {
		return err
	}

	pool, err := pgxpool.New(ctx, dbURL+"&pool_max_conns=32")
	if err != nil {
		return err
	}
	defer pool.Close()
	floor := floorHandler(pool, orgID)

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

// target is one request to load a server with.
type target struct {
	url, key, script string
	body             []byte
	nodes            int // agents the answer must hold (0: just no errors)
}

// check sends the request once and fails unless the answer is a clean 200.
func (t target) check() error {
	req, _ := http.NewRequest(http.MethodPost, t.url, bytes.NewReader(t.body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+t.key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	var r struct {
		Data struct {
			Agents struct{ Nodes []json.RawMessage } `json:"agents"`
		} `json:"data"`
		Errors []json.RawMessage `json:"errors"`
	}
	if err := json.Unmarshal(out, &r); err != nil || resp.StatusCode != http.StatusOK || len(r.Errors) > 0 {
		return fmt.Errorf("HTTP %d (%v): %.400s", resp.StatusCode, err, out)
	}
	if t.nodes > 0 && len(r.Data.Agents.Nodes) != t.nodes {
		return fmt.Errorf("got %d agents, want %d: %.400s", len(r.Data.Agents.Nodes), t.nodes, out)
	}
	return nil
}

func (t target) writeScript(path string) (string, error) {
	script := fmt.Sprintf("wrk.method = \"POST\"\nwrk.body = %s\nwrk.headers[\"Content-Type\"] = \"application/json\"\nwrk.headers[\"Authorization\"] = \"Bearer %s\"\n",
		luaString(string(t.body)), t.key)
	return path, os.WriteFile(path, []byte(script), 0o600)
}

func luaString(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(s) + `"`
}

type result struct {
	requests            int
	rps, p50, p99, mean float64 // latencies in ms
	cpuPerReq           float64 // µs of this process's CPU per request
}

func (r result) print(name string, round int) {
	fmt.Printf("%-14s %5d %9.0f %9.2f %9.2f %12.0f\n", name, round, r.rps, r.p50, r.p99, r.cpuPerReq)
}

var (
	reqsRe  = regexp.MustCompile(`(\d+) requests in`)
	rpsRe   = regexp.MustCompile(`Requests/sec:\s+([\d.]+)`)
	meanRe  = regexp.MustCompile(`Latency\s+([\d.]+)(us|ms|s)\s`)
	pctRe   = regexp.MustCompile(`(?m)^\s+(50|99)%\s+([\d.]+)(us|ms|s)`)
	errorRe = regexp.MustCompile(`Non-2xx or 3xx responses: (\d+)|Socket errors: .*`)
)

// load runs wrk against t and measures this process's CPU (both servers run
// in it, one at a time) over the run.
func load(o options, t target, connections int) (result, error) {
	before := processCPU()
	out, err := exec.Command(o.wrk, "-t"+strconv.Itoa(min(o.threads, connections)), "-c"+strconv.Itoa(connections),
		"-d"+strconv.Itoa(int(o.duration.Seconds()))+"s", "--timeout", "10s", "--latency", "-s", t.script, t.url).CombinedOutput()
	cpu := processCPU() - before
	if err != nil {
		return result{}, fmt.Errorf("wrk: %v: %s", err, out)
	}
	if m := errorRe.Find(out); m != nil {
		return result{}, fmt.Errorf("wrk saw failures (%s):\n%s", m, out)
	}
	var r result
	m := reqsRe.FindSubmatch(out)
	if m == nil {
		return result{}, fmt.Errorf("cannot read wrk output:\n%s", out)
	}
	r.requests, _ = strconv.Atoi(string(m[1]))
	if m := rpsRe.FindSubmatch(out); m != nil {
		r.rps, _ = strconv.ParseFloat(string(m[1]), 64)
	}
	if m := meanRe.FindSubmatch(out); m != nil {
		r.mean = toMS(m[1], m[2])
	}
	for _, m := range pctRe.FindAllSubmatch(out, -1) {
		switch string(m[1]) {
		case "50":
			r.p50 = toMS(m[2], m[3])
		case "99":
			r.p99 = toMS(m[2], m[3])
		}
	}
	if r.requests > 0 {
		r.cpuPerReq = float64(cpu.Microseconds()) / float64(r.requests)
	}
	return r, nil
}

func toMS(v, unit []byte) float64 {
	f, _ := strconv.ParseFloat(string(v), 64)
	switch string(unit) {
	case "us":
		return f / 1000
	case "s":
		return f * 1000
	}
	return f
}

func processCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// seed registers n agents through the service's handler, so each has its
// audit chain, event and trust counters, and returns their ids.
func seed(h http.Handler, key string, n int) ([]string, error) {
	const q = `mutation($in: RegisterAgentInput!) { registerAgent(input: $in) { id } }`
	ids := make([]string, n)
	for i := range ids {
		req, _ := http.NewRequest(http.MethodPost, "/graphql", bytes.NewReader(body(q, map[string]any{"in": map[string]any{
			"name": fmt.Sprintf("agent %d", i), "authorizedActions": []string{"purchase", "refund"},
			"spendingLimit": "1000.50", "currency": "USD", "environment": "sandbox"}})))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+key)
		rec := &recorder{header: http.Header{}}
		h.ServeHTTP(rec, req)
		var r struct {
			Data struct {
				RegisterAgent struct{ ID string } `json:"registerAgent"`
			} `json:"data"`
		}
		if err := json.Unmarshal(rec.body.Bytes(), &r); err != nil || r.Data.RegisterAgent.ID == "" {
			return nil, fmt.Errorf("seed: %v: %.400s", err, rec.body.String())
		}
		ids[i] = r.Data.RegisterAgent.ID
	}
	return ids, nil
}

type recorder struct {
	header http.Header
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header         { return r.header }
func (r *recorder) Write(b []byte) (int, error) { return r.body.Write(b) }
func (r *recorder) WriteHeader(int)             {}

func serve(h http.Handler) (string, func(), error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	return "http://" + ln.Addr().String() + "/graphql", func() { _ = srv.Close() }, nil
}

func body(query string, vars map[string]any) []byte {
	b, err := json.Marshal(map[string]any{"query": query, "variables": vars})
	if err != nil {
		panic(err)
	}
	return b
}

// createDatabase creates a scratch database on the admin server and returns
// its URL and a function that drops it.
func createDatabase(ctx context.Context, admin string) (string, func(), error) {
	name := "att_readbench_" + strings.ToLower(id.Random(8))
	if err := execSimple(ctx, admin, "CREATE DATABASE "+name); err != nil {
		return "", nil, fmt.Errorf("create database: %w", err)
	}
	drop := func() {
		if err := execSimple(context.Background(), admin, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			fmt.Fprintln(os.Stderr, "bench-read: drop database:", err)
		}
	}
	u, err := url.Parse(admin)
	if err != nil {
		return "", nil, err
	}
	u.Path = "/" + name
	q := u.Query()
	if q.Get("sslmode") == "" {
		q.Set("sslmode", "disable")
	}
	u.RawQuery = q.Encode()
	return u.String(), drop, nil
}

// execSimple runs one statement on the admin server.
func execSimple(ctx context.Context, admin, q string) error {
	conn := sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(admin)))
	defer conn.Close()
	_, err := conn.ExecContext(ctx, q)
	return err
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}

func envInt(k string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(k)); err == nil && n > 0 {
		return n
	}
	return def
}

func envDuration(k string, def time.Duration) time.Duration {
	if v := os.Getenv(k); v != "" {
		if n, err := strconv.Atoi(v); err == nil && n > 0 {
			return time.Duration(n) * time.Second
		}
		if d, err := time.ParseDuration(v); err == nil && d > 0 {
			return d
		}
	}
	return def
}

func wrkVersion(bin string) string {
	out, _ := exec.Command(bin, "--version").CombinedOutput()
	line, _, _ := strings.Cut(string(out), "\n")
	if f := strings.Fields(line); len(f) >= 2 {
		return f[0] + " " + f[1]
	}
	return "wrk"
}
