package resolvers_test

import (
	"bytes"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"testing"
	"time"
)

// BenchmarkOverhead measures what every request pays on top of its own work,
// as two ratios taken in the same run (`make bench-overhead`):
//
//   - latency: evaluateTrust against `{ __typename }` (the floor: parsing,
//     authentication, rate limit, logging, metrics, one statement), sent
//     sequentially and interleaved one for one, so drift and noise hit both
//     alike. Reports p50 and p99 of each and their ratios (goal: eval/typename
//     p50 at most 1.5).
//   - execute: executeTransaction from 8 concurrent clients, then pgbench
//     running the same statements (bench/pgbench/execute.sql) with 8 clients
//     for the same number of transactions, against the same database, back
//     to back. Reports both rates and service/pgbench (goal: at least 0.9).
//     Skipped when pgbench is not installed.
//
// The typename and evaluateTrust leaves also report allocations per request.
func BenchmarkOverhead(b *testing.B) {
	e := newBenchEnv(b)
	_, keyB := e.NewOrg("globex")
	hub := e.registerMany(e.Key, "hub", 1, "1000000")[0]
	sinks := e.registerMany(keyB, "sink", 4, "1000")
	e.steadyTrust(slices.Concat([]string{hub}, sinks), 10_000)
	typename := gqlBody(`{ __typename }`, nil)
	eval := gqlBody(benchEvalQuery, map[string]any{"input": map[string]any{
		"agentId": hub, "action": "purchase", "amount": "1.00", "currency": "USD"}})

	b.Run("typename", func(b *testing.B) { e.measure(b, e.Key, typename) })
	b.Run("evaluateTrust", func(b *testing.B) { e.measure(b, e.Key, eval) })
	b.Run("latency", func(b *testing.B) {
		for _, body := range [][]byte{typename, eval} {
			if err := e.call(e.Key, body); err != nil {
				b.Fatal(err)
			}
		}
		var lt, le []time.Duration
		for b.Loop() {
			t0 := time.Now()
			if err := e.call(e.Key, typename); err != nil {
				b.Fatal(err)
			}
			t1 := time.Now()
			if err := e.call(e.Key, eval); err != nil {
				b.Fatal(err)
			}
			lt, le = append(lt, t1.Sub(t0)), append(le, time.Since(t1))
		}
		slices.Sort(lt)
		slices.Sort(le)
		p50t, p99t := lt[len(lt)/2], lt[len(lt)*99/100]
		p50e, p99e := le[len(le)/2], le[len(le)*99/100]
		b.ReportMetric(ms(p50t), "typename-p50-ms")
		b.ReportMetric(ms(p99t), "typename-p99-ms")
		b.ReportMetric(ms(p50e), "eval-p50-ms")
		b.ReportMetric(ms(p99e), "eval-p99-ms")
		b.ReportMetric(float64(p50e)/float64(p50t), "eval/typename-p50")
		b.ReportMetric(float64(p99e)/float64(p99t), "eval/typename-p99")
	})

	pgbench, err := exec.LookPath(envOr("PGBENCH", "pgbench"))
	if err != nil {
		b.Logf("pgbench not found (%v): the execute/pgbench pair is skipped", err)
		return
	}
	const clients, perClient = 8, 4
	senders := e.registerMany(e.Key, "sender", clients, "1000000")
	receivers := e.registerMany(keyB, "receiver", clients*perClient, "1000")
	e.steadyTrust(slices.Concat(senders, receivers), 10_000)
	bodies := make([][][]byte, clients)
	for c := range bodies {
		for j := range perClient {
			bodies[c] = append(bodies[c], executeBody(senders[c], receivers[c*perClient+j], "1.00"))
		}
	}
	e.seedPgbench(clients, perClient)
	script, err := filepath.Abs("../bench/pgbench/execute.sql")
	if err != nil {
		b.Fatal(err)
	}
	b.Run(fmt.Sprintf("execute/clients=%d", clients), func(b *testing.B) {
		before := e.DB.Statements()
		runClients(b, clients, func(c, i int) error { return e.call(e.Key, bodies[c][i%perClient]) })
		service := float64(b.N) / b.Elapsed().Seconds()
		stmts := float64(e.DB.Statements()-before) / float64(b.N)
		tps := e.pgbench(b, pgbench, script, clients, max(b.N/clients, 1))
		b.ReportMetric(stmts, "stmts/op")
		b.ReportMetric(tps, "pgbench-tps")
		b.ReportMetric(service/tps, "service/pgbench")
	})
}

// seedPgbench adds what bench/pgbench/execute.sql expects, as
// bench/run-pgbench.sh seeds it: organizations org_bench_a and org_bench_b,
// senders agent_s1.. (one per client) and receivers agent_r1.. (perClient
// each) with the trust counters of 10^4 past transactions.
func (e *benchEnv) seedPgbench(clients, perClient int) {
	e.T.Helper()
	e.exec(`INSERT INTO orgs (id, name) VALUES ('org_bench_a', 'bench senders'), ('org_bench_b', 'bench receivers')`)
	e.exec(`INSERT INTO agents (id, org_id, name, authorized_actions, spending_limit, currency, environment, status, fingerprint, created_at, updated_at)
		SELECT p.prefix || g, p.org, p.prefix || g, '{purchase,refund}', 1000000, 'USD', 'sandbox', 'active',
		       'sha256:' || encode(sha256(convert_to(p.prefix || g, 'UTF8')), 'hex'), now(), now()
		FROM (VALUES ('agent_s', 'org_bench_a', $1::int), ('agent_r', 'org_bench_b', $2::int)) AS p(prefix, org, n),
		     generate_series(1, p.n) AS g`, clients, clients*perClient)
	e.exec(`INSERT INTO trust_counters (agent_id, evidence_at, completed, counterparty_orgs, first_external_at, score, assessment, updated_at)
		SELECT id, now(), 10000, 5, now() - interval '90 days', 848, 'Verified', now() FROM agents WHERE org_id IN ('org_bench_a', 'org_bench_b')`)
	e.exec(`VACUUM ANALYZE agents, trust_counters`)
}

var pgbenchTPS = regexp.MustCompile(`(?m)^tps = ([0-9.]+)`)

// pgbench runs bench/pgbench/execute.sql against the benchmark's database
// with clients clients (each its own sender, as the service's clients) for
// perClient transactions each, and returns its tps.
func (e *benchEnv) pgbench(b *testing.B, bin, script string, clients, perClient int) float64 {
	b.Helper()
	u, err := url.Parse(e.DBURL)
	if err != nil {
		b.Fatal(err)
	}
	args := []string{"-n", "-c", strconv.Itoa(clients), "-j", "2", "-t", strconv.Itoa(perClient), "-f", script,
		"-D", "per_client=1", "-D", "senders=1", "-D", "receivers=1", "-D", "notify=1",
		"-h", u.Hostname(), "-U", u.User.Username(), portArg(u.Port()), filepath.Base(u.Path)}
	cmd := exec.Command(bin, args...)
	if pw, ok := u.User.Password(); ok {
		cmd.Env = append(os.Environ(), "PGPASSWORD="+pw)
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		b.Fatalf("pgbench: %v\n%s", err, out)
	}
	m := pgbenchTPS.FindSubmatch(out)
	if m == nil || bytes.Contains(out, []byte("failed transactions: ")) && !bytes.Contains(out, []byte("failed transactions: 0 ")) {
		b.Fatalf("pgbench output:\n%s", out)
	}
	tps, err := strconv.ParseFloat(string(m[1]), 64)
	if err != nil {
		b.Fatal(err)
	}
	return tps
}

// portArg is pgbench's -p argument: port, or 5432 when the URL has none.
func portArg(port string) string {
	if port == "" {
		port = "5432"
	}
	return "-p" + port
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}
