package main

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agenttrust/service/bench/benchdb"
	"github.com/agenttrust/service/db"
)

// executeQuery is the executeTransaction request, asking for what bench/load asks.
const executeQuery = `mutation($in: ExecuteTransactionInput!) { executeTransaction(input: $in) { id fromAgent toAgent action amount currency memo status reversalOf reversedBy reason createdAt } }`

// executeBench is the executeTransaction target: the service over TCP under
// wrk, and pgbench running the same SQL (bench/pgbench/execute.sql) with as
// many clients, in the same database, one after the other in each round.
//
// Both sides have conns senders in one organization and 4·conns receivers
// in another, established (10^4 past transactions) so that a transaction
// leaves their scores where they are. Disjoint: connection (client) c
// always sends from sender c to its own four receivers in turn (pgbench's
// per_client=1), so no two wait for one row lock; random: sender and
// receiver drawn at random from the pools (per_client=0).
type executeBench struct {
	mode      string // disjoint or random
	perClient string // pgbench's per_client for mode
	conns     int
	svc       target
	pgbench   string   // the binary
	args      []string // pgbench's arguments but -T
	password  string   // for PGPASSWORD
	dbURL     string
	senderOrg string
}

// newExecuteBench seeds both sides' agents in the database at dbURL (the
// service's, through its handler h) and writes the wrk script into dir.
func newExecuteBench(ctx context.Context, o options, d *db.DB, h http.Handler, dbURL, svcURL, dir string) (*executeBench, error) {
	if o.execute != "disjoint" && o.execute != "random" {
		return nil, fmt.Errorf("-execute %q: want disjoint, random or none", o.execute)
	}
	bin, err := exec.LookPath(o.pgbench)
	if err != nil {
		return nil, fmt.Errorf("pgbench not found (%v): install postgresql-client, set PGBENCH, or run with -execute none", err)
	}
	root, err := benchdb.ModuleRoot()
	if err != nil {
		return nil, err
	}
	e := &executeBench{mode: o.execute, conns: o.executeConns, pgbench: bin, dbURL: dbURL}
	senderKey, senders, receivers, err := e.seedService(ctx, d, h)
	if err != nil {
		return nil, err
	}
	if err := steadyAgents(ctx, dbURL, root, len(receivers), slices.Concat(senders, receivers)); err != nil {
		return nil, err
	}
	e.svc = target{url: svcURL, key: senderKey, body: executeBody(senders[0], receivers[0])}
	if err := e.svc.check(); err != nil {
		return nil, fmt.Errorf("executeTransaction: %w", err)
	}
	if e.svc.script, err = e.writeScript(filepath.Join(dir, "execute.lua"), senderKey, senders, receivers); err != nil {
		return nil, err
	}
	if err := e.setArgs(o, root, len(senders), len(receivers)); err != nil {
		return nil, err
	}
	return e, nil
}

// seedService creates the senders' and the receivers' organizations and
// registers conns senders and 4·conns receivers through the service's
// handler h; it returns the senders' key and both sides' ids.
func (e *executeBench) seedService(ctx context.Context, d *db.DB, h http.Handler) (key string, senders, receivers []string, err error) {
	orgs := db.NewOrgService(d)
	e.senderOrg, _, key, err = orgs.CreateOrg(ctx, "execute senders")
	if err != nil {
		return "", nil, nil, err
	}
	_, _, receiverKey, err := orgs.CreateOrg(ctx, "execute receivers")
	if err != nil {
		return "", nil, nil, err
	}
	if senders, err = seed(h, key, e.conns); err != nil {
		return "", nil, nil, err
	}
	if receivers, err = seed(h, receiverKey, 4*e.conns); err != nil {
		return "", nil, nil, err
	}
	return key, senders, receivers, nil
}

// steadyAgents seeds pgbench's agents (agent_s1.., agent_r1..) as
// bench/run-pgbench.sh does, and gives the service's agents (ids) the same
// counters, and the scores they give.
func steadyAgents(ctx context.Context, dbURL, root string, nReceivers int, ids []string) error {
	seedSQL, err := os.ReadFile(filepath.Join(root, "bench/pgbench/seed.sql"))
	if err != nil {
		return err
	}
	conn := benchdb.Open(dbURL)
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, strings.ReplaceAll(string(seedSQL), ":agents", strconv.Itoa(nReceivers))); err != nil {
		return fmt.Errorf("seed pgbench's agents: %w", err)
	}
	if _, err := conn.ExecContext(ctx, `UPDATE trust_counters SET completed = 10000, counterparty_orgs = 5,
		first_external_at = now() - interval '90 days', evidence_at = now() WHERE agent_id = ANY($1::text[])`, benchdb.TextArray(ids)); err != nil {
		return fmt.Errorf("steady counters: %w", err)
	}
	if err := benchdb.Rescore(ctx, conn, nil); err != nil {
		return err
	}
	_, err = conn.ExecContext(ctx, "VACUUM ANALYZE")
	return err
}

// setArgs sets pgbench's arguments for the mode, the pool sizes and the
// database at e.dbURL, its password apart.
func (e *executeBench) setArgs(o options, root string, nSenders, nReceivers int) error {
	e.perClient = "1"
	if e.mode == "random" {
		e.perClient = "0"
	}
	e.args = []string{"-n", "-c", strconv.Itoa(e.conns), "-j", strconv.Itoa(min(o.threads, e.conns)),
		"-f", filepath.Join(root, "bench/pgbench/execute.sql"), "-D", "per_client=" + e.perClient,
		"-D", "senders=" + strconv.Itoa(nSenders), "-D", "receivers=" + strconv.Itoa(nReceivers), "-D", "notify=1"}
	u, err := url.Parse(e.dbURL)
	if err != nil {
		return err
	}
	port := u.Port()
	if port == "" {
		port = "5432"
	}
	e.args = append(e.args, "-h", u.Hostname(), "-p", port, "-U", u.User.Username(), strings.TrimPrefix(u.Path, "/"))
	e.password, _ = u.User.Password()
	return nil
}

func executeBody(from, to string) []byte {
	return body(executeQuery, map[string]any{"in": map[string]any{
		"fromAgent": from, "toAgent": to, "action": "purchase", "amount": "1.00", "currency": "USD"}})
}

// writeScript writes the wrk script: a body prepared for every (sender,
// receiver) pair, and a request function choosing one. Disjoint runs one
// wrk thread per connection, so that each thread's id names its sender.
func (e *executeBench) writeScript(path, key string, senders, receivers []string) (string, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "wrk.method = \"POST\"\nwrk.headers[\"Content-Type\"] = \"application/json\"\nwrk.headers[\"Authorization\"] = \"Bearer %s\"\n", key)
	b.WriteString("local bodies = {\n")
	for _, s := range senders {
		b.WriteString("  {")
		for _, r := range receivers {
			b.WriteString(luaString(string(executeBody(s, r))) + ",")
		}
		b.WriteString("},\n")
	}
	b.WriteString("}\n")
	fmt.Fprintf(&b, "local disjoint = %t\n", e.mode == "disjoint")
	b.WriteString(`local threads = 0
function setup(thread)
  thread:set("id", threads)
  threads = threads + 1
end
local n = 0
function init(args)
  math.randomseed(os.time() + 7919 * id) -- each thread its own draws
end
function request()
  local s, r
  if disjoint then
    s, r = id + 1, 4 * id + n % 4 + 1
    n = n + 1
  else
    s, r = math.random(#bodies), math.random(#bodies[1])
  end
  return wrk.format(nil, nil, nil, bodies[s][r])
end
`)
	return path, os.WriteFile(path, []byte(b.String()), 0o600)
}

// runService runs wrk against the service and checks that every answer
// was a completed transaction: an answer with GraphQL errors is still an
// HTTP 200, so the transactions committed are counted.
func (e *executeBench) runService(ctx context.Context, o options) (result, error) {
	conn := benchdb.Open(e.dbURL)
	defer conn.Close()
	count := func() (n int, err error) {
		err = conn.QueryRowContext(ctx, `SELECT count(*) FROM transactions WHERE from_org = $1`, e.senderOrg).Scan(&n)
		return n, err
	}
	before, err := count()
	if err != nil {
		return result{}, err
	}
	r, err := e.runWrk(o)
	if err != nil {
		return r, err
	}
	after, err := count()
	if err != nil {
		return r, err
	}
	if after-before < r.requests {
		return r, fmt.Errorf("%d requests answered but %d transactions committed: some answers were errors", r.requests, after-before)
	}
	return r, nil
}

// runWrk runs wrk with the script against the service.
func (e *executeBench) runWrk(o options) (result, error) {
	if e.mode == "disjoint" {
		o.threads = e.conns // one connection per thread: the thread's id is its sender
	}
	return load(o, e.svc, e.conns)
}

var (
	pgbenchTPSRe    = regexp.MustCompile(`(?m)^tps = ([\d.]+)`)
	pgbenchLatRe    = regexp.MustCompile(`(?m)^latency average = ([\d.]+) ms`)
	pgbenchFailedRe = regexp.MustCompile(`(?m)^number of failed transactions: (\d+)`)
)

// pgbenchResult is one pgbench run: transactions per second and the mean latency.
type pgbenchResult struct{ tps, mean float64 }

// runPgbench runs pgbench for o.duration.
func (e *executeBench) runPgbench(o options) (pgbenchResult, error) {
	args := append(slices.Clone(e.args), "-T", strconv.Itoa(max(int(o.duration.Seconds()), 1)))
	cmd := exec.Command(e.pgbench, args...)
	if e.password != "" {
		cmd.Env = append(os.Environ(), "PGPASSWORD="+e.password)
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		return pgbenchResult{}, fmt.Errorf("pgbench: %v: %s", err, out)
	}
	if m := pgbenchFailedRe.FindSubmatch(out); m != nil && string(m[1]) != "0" {
		return pgbenchResult{}, fmt.Errorf("pgbench saw failed transactions:\n%s", out)
	}
	m := pgbenchTPSRe.FindSubmatch(out)
	if m == nil {
		return pgbenchResult{}, fmt.Errorf("cannot read pgbench output:\n%s", out)
	}
	var r pgbenchResult
	r.tps, _ = strconv.ParseFloat(string(m[1]), 64)
	if m := pgbenchLatRe.FindSubmatch(out); m != nil {
		r.mean, _ = strconv.ParseFloat(string(m[1]), 64)
	}
	return r, nil
}

// run warms both sides up (unreported), then runs rounds of service, pgbench
// and prints each run and the mean ratio.
func (e *executeBench) run(ctx context.Context, o options) error {
	fmt.Println()
	fmt.Printf("executeTransaction, %d connections, %s senders, vs pgbench -c %d per_client=%s (same SQL: bench/pgbench/execute.sql), same database:\n",
		e.conns, e.mode, e.conns, e.perClient)
	fmt.Printf("%-14s %5s %9s %9s %9s %12s\n", "target", "round", "req/s", "p50 ms", "p99 ms", "cpu µs/req")
	warm := o
	warm.duration = 2 * time.Second
	if _, err := e.runService(ctx, warm); err != nil {
		return fmt.Errorf("executeTransaction: %w", err)
	}
	if _, err := e.runPgbench(warm); err != nil {
		return err
	}
	var ratio float64
	for r := 1; r <= o.rounds; r++ {
		s, err := e.runService(ctx, o)
		if err != nil {
			return fmt.Errorf("executeTransaction: %w", err)
		}
		s.print("execute", r)
		p, err := e.runPgbench(o)
		if err != nil {
			return err
		}
		fmt.Printf("%-14s %5d %9.0f %9s %9s %12s   (tps; latency average %.2f ms)\n", "pgbench", r, p.tps, "-", "-", "-", p.mean)
		ratio += s.rps / p.tps
	}
	fmt.Printf("  executeTransaction / pgbench throughput %.2f× (mean over rounds)\n", ratio/float64(o.rounds))
	if o.cpuprofile == "" || o.profile != "execute" {
		return nil
	}
	// One more service run, unreported, with the process CPU-profiled.
	err := cpuProfiled(o.cpuprofile, func() error { _, err := e.runService(ctx, o); return err })
	if err != nil {
		return fmt.Errorf("executeTransaction: %w", err)
	}
	fmt.Printf("# CPU profile of one more execute run: %s\n", o.cpuprofile)
	return nil
}
