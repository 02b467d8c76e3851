package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agenttrust/service/bench/benchdb"
)

// The execute scenario's agents, as in bench/pgbench/seed.sql: senders in one
// organization, four receivers per sender in another.
const (
	execSenders   = 64
	execReceivers = 4 * execSenders
	hotSenders    = 4 // the contended case: every sender is one of these
)

// executeCase is one execute configuration.
type executeCase struct {
	workers   int
	contended bool
}

func (c executeCase) String() string {
	if c.contended {
		return fmt.Sprintf("execute: %d senders, %d hot agents", c.workers, hotSenders)
	}
	return fmt.Sprintf("execute: %d senders, disjoint", c.workers)
}

// executeScenario: executeTransaction from 8 and 64 concurrent senders, each
// with its own agents (disjoint) or all among 4 agents (contended), against
// pgbench running the same SQL (bench/pgbench/execute.sql) on the same
// agents in a database of its own.
func executeScenario(ctx context.Context, e *env, c config) []group {
	cases := []executeCase{{8, false}, {64, false}, {8, true}, {64, true}}
	groups := make([]group, len(cases))
	for i, k := range cases {
		groups[i].scenario = k.String()
	}
	failAll := func(err error) []group {
		for i := range groups {
			groups[i].err = err
		}
		return groups
	}
	x, err := newExecuteRun(ctx, e, c, cases[1])
	if err != nil {
		return failAll(err)
	}
	defer x.drop()
	pg, err := newPgbench(ctx, e)
	if err != nil {
		return failAll(err)
	}
	defer pg.close()
	// Each case runs on the service, then on pgbench, back to back so that
	// both see the same machine; the service stops in between, as pgbench's
	// 64 connections and the service's pools together would pass Postgres'
	// default max_connections (100).
	for i, k := range cases {
		x.measure(ctx, pg, k, &groups[i])
	}
	return groups
}

// executeRun is the execute scenario's database: its senders in one
// organization (under key), their receivers in another.
type executeRun struct {
	e                  *env
	c                  config
	dbURL              string
	drop               func()
	key                string
	senders, receivers []string
}

// newExecuteRun makes the scenario's database, registers its agents with
// steady trust through a service, and warms them up with case k.
func newExecuteRun(ctx context.Context, e *env, c config, k executeCase) (*executeRun, error) {
	dbURL, drop, err := e.newDB(ctx, "execute")
	if err != nil {
		return nil, err
	}
	x := &executeRun{e: e, c: c, dbURL: dbURL, drop: drop}
	if err := x.prepare(ctx, k); err != nil {
		drop()
		return nil, err
	}
	return x, nil
}

// prepare seeds the agents and runs case k, unreported, on a service it
// stops again.
func (x *executeRun) prepare(ctx context.Context, k executeCase) error {
	svc, err := x.e.startService(ctx, x.dbURL)
	if err != nil {
		return err
	}
	defer svc.close()
	orgs, err := newOrgs(ctx, x.dbURL, 2)
	if err != nil {
		return err
	}
	x.key = orgs[0].key
	if x.senders, err = registerAgents(ctx, svc.base, orgs[0].key, "sender", execSenders, "1000000"); err != nil {
		return err
	}
	if x.receivers, err = registerAgents(ctx, svc.base, orgs[1].key, "receiver", execReceivers, "1000000"); err != nil {
		return err
	}
	if err := steadyTrust(ctx, x.dbURL, slices.Concat(x.senders, x.receivers)); err != nil {
		return err
	}
	// Bring every sender's counters past its first transactions (the first
	// with a new organization moves the score) before measuring.
	warm(ctx, config{warmup: max(x.c.warmup, 2*time.Second)}, x.plan(svc.base, k))
	return nil
}

// measure runs case k on a service of its own and then on pgbench, into g.
func (x *executeRun) measure(ctx context.Context, pg *pgbench, k executeCase, g *group) {
	svc, err := x.e.startService(ctx, x.dbURL)
	if err != nil {
		g.err = err
		return
	}
	p := x.plan(svc.base, k)
	warm(ctx, x.c, p)
	var out outcome
	g.service, out = measure(ctx, svc, p, "service: executeTransaction")
	g.noteErrors("service", out)
	svc.close()
	b, err := pg.run(ctx, k, x.c)
	if err != nil {
		g.err = err
		return
	}
	g.baseline = &b
}

// plan is case k against the service at base: each worker its own sender
// and that sender's four receivers, or senders among the hot ones.
func (x *executeRun) plan(base string, k executeCase) plan {
	return plan{url: base + "/graphql", workers: k.workers, duration: x.c.duration, ok: completed,
		next: func(w int, rng *rand.Rand) call {
			if k.contended {
				return x.call(x.senders[rng.IntN(hotSenders)], x.receivers[rng.IntN(execReceivers)], rng)
			}
			return x.call(x.senders[w], x.receivers[4*w+rng.IntN(4)], rng)
		}}
}

// call is an executeTransaction of a random amount from one agent to another.
func (x *executeRun) call(from, to string, rng *rand.Rand) call {
	return call{key: x.key, body: gql(executeQuery, map[string]any{"in": map[string]any{
		"fromAgent": from, "toAgent": to, "action": "purchase", "amount": strconv.Itoa(rng.IntN(100) + 1), "currency": "USD"}})}
}

// completed accepts an executeTransaction answer whose transaction completed.
func completed(status int, raw []byte) error {
	if err := graphqlOK(status, raw); err != nil {
		return err
	}
	var r struct {
		Data struct {
			ExecuteTransaction struct{ Status string } `json:"executeTransaction"`
		} `json:"data"`
	}
	if err := json.Unmarshal(raw, &r); err != nil || r.Data.ExecuteTransaction.Status != "completed" {
		return fmt.Errorf("want completed (%v): %.300s", err, raw)
	}
	return nil
}

// pgbench runs bench/pgbench/execute.sql in a database seeded by
// bench/pgbench/seed.sql, as bench/run-pgbench.sh does.
type pgbench struct {
	bin, dir, dbURL string
	drop            func()
}

func newPgbench(ctx context.Context, e *env) (*pgbench, error) {
	bin, err := exec.LookPath("pgbench")
	if err != nil {
		bin = "/usr/lib/postgresql/15/bin/pgbench"
		if _, err := os.Stat(bin); err != nil {
			return nil, fmt.Errorf("pgbench not found: install postgresql-client (apt-get install postgresql-client)")
		}
	}
	root, err := benchdb.ModuleRoot()
	if err != nil {
		return nil, err
	}
	seed, err := os.ReadFile(filepath.Join(root, "bench/pgbench/seed.sql"))
	if err != nil {
		return nil, err
	}
	dbURL, drop, err := e.newDB(ctx, "pgbench")
	if err != nil {
		return nil, err
	}
	p := &pgbench{bin: bin, dir: filepath.Join(root, "bench/pgbench"), dbURL: dbURL, drop: drop}
	conn := benchdb.Open(dbURL)
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, strings.ReplaceAll(string(seed), ":agents", strconv.Itoa(execReceivers))); err != nil {
		drop()
		return nil, fmt.Errorf("seed pgbench: %w", err)
	}
	if _, err := conn.ExecContext(ctx, "VACUUM ANALYZE"); err != nil {
		drop()
		return nil, err
	}
	return p, nil
}

func (p *pgbench) close() { p.drop() }

// run runs pgbench for one case, with a warm-up, and reads every
// transaction's latency from its per-transaction log.
func (p *pgbench) run(ctx context.Context, k executeCase, c config) (row, error) {
	dir, err := os.MkdirTemp("", "pgbench-log")
	if err != nil {
		return row{}, err
	}
	defer os.RemoveAll(dir)
	if err := p.bench(ctx, k, dir, c.warmup, false); err != nil {
		return row{}, err
	}
	// pgbench starts its clock before its clients have connected (64
	// connections take seconds on a busy machine), so it runs longer and
	// only the transactions that ended in the last c.duration count.
	if err := p.bench(ctx, k, dir, c.duration+pgbenchConnectAllowance, true); err != nil {
		return row{}, err
	}
	txs, err := pgbenchLog(dir)
	if err != nil {
		return row{}, err
	}
	lat, failed := lastWindow(txs, c.duration)
	if len(lat) == 0 {
		return row{}, fmt.Errorf("pgbench completed no transaction in its last %s", c.duration)
	}
	slices.Sort(lat)
	return row{target: "pgbench: same SQL (execute.sql)", conc: strconv.Itoa(k.workers), unit: "tx",
		ops: float64(len(lat)) / c.duration.Seconds(), errors: failed, total: int64(len(lat)) + failed,
		p50: percentile(lat, 50), p90: percentile(lat, 90), p99: percentile(lat, 99), p999: percentile(lat, 99.9)}, nil
}

// bench runs pgbench for d with case k's clients and variables, logging
// every transaction into dir when log is set.
func (p *pgbench) bench(ctx context.Context, k executeCase, dir string, d time.Duration, log bool) error {
	perClient, senders := "1", execSenders
	if k.contended {
		perClient, senders = "0", hotSenders
	}
	args := []string{"-n", "-T", strconv.Itoa(max(1, int(d.Round(time.Second).Seconds()))), "-c", strconv.Itoa(k.workers),
		"-j", "2", "--max-tries=10", "-f", filepath.Join(p.dir, "execute.sql"),
		"-D", "notify=1", "-D", "per_client=" + perClient, "-D", "senders=" + strconv.Itoa(senders), "-D", "receivers=" + strconv.Itoa(execReceivers)}
	if log {
		args = append(args, "-l", "--log-prefix="+filepath.Join(dir, "tx"))
	}
	// A shared Postgres may be out of connections for a while: wait and
	// start over (the log of a failed attempt is discarded).
	for attempt := 1; ; attempt++ {
		out, err := exec.CommandContext(ctx, p.bin, append(args, p.dbURL)...).CombinedOutput()
		if err == nil {
			return nil
		}
		if !bytes.Contains(out, []byte("too many clients")) || attempt == 4 || ctx.Err() != nil {
			return fmt.Errorf("pgbench: %v: %s", err, out)
		}
		fmt.Fprintf(os.Stderr, "load: Postgres has no room for pgbench's %d connections; retrying in 15 s\n", k.workers)
		old, _ := filepath.Glob(filepath.Join(dir, "tx*"))
		for _, f := range old {
			os.Remove(f)
		}
		time.Sleep(15 * time.Second)
	}
}

// lastWindow returns the latencies of the transactions that ended in the
// last d of the log, and how many of those failed.
func lastWindow(txs []pgbenchTx, d time.Duration) (lat []time.Duration, failed int64) {
	var end time.Time
	for _, t := range txs {
		if t.done.After(end) {
			end = t.done
		}
	}
	from := end.Add(-d)
	for _, t := range txs {
		switch {
		case t.done.Before(from):
		case t.failed:
			failed++
		default:
			lat = append(lat, t.lat)
		}
	}
	return lat, failed
}

// pgbenchConnectAllowance is how much longer than measured pgbench runs.
const pgbenchConnectAllowance = 5 * time.Second

// pgbenchTx is one transaction of pgbench's log.
type pgbenchTx struct {
	done   time.Time // when it ended
	lat    time.Duration
	failed bool
}

// pgbenchLog reads pgbench's per-transaction logs, one per thread: client,
// number, latency in µs (or "failed"), script, then the end time as epoch
// seconds and µs.
func pgbenchLog(dir string) ([]pgbenchTx, error) {
	files, err := filepath.Glob(filepath.Join(dir, "tx*"))
	if err != nil || len(files) == 0 {
		return nil, fmt.Errorf("no pgbench log in %s (%v)", dir, err)
	}
	var txs []pgbenchTx
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			return nil, err
		}
		sc := bufio.NewScanner(fh)
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			if len(fields) < 6 {
				continue
			}
			sec, err1 := strconv.ParseInt(fields[4], 10, 64)
			usec, err2 := strconv.ParseInt(fields[5], 10, 64)
			if err1 != nil || err2 != nil {
				continue
			}
			t := pgbenchTx{done: time.Unix(sec, usec*1000)}
			us, err := strconv.ParseInt(fields[2], 10, 64)
			t.lat, t.failed = time.Duration(us)*time.Microsecond, err != nil
			txs = append(txs, t)
		}
		fh.Close()
	}
	return txs, nil
}
