package resolvers_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/agenttrust/service/db/dbtest"
	"github.com/agenttrust/service/internal/testkit"

	"github.com/agenttrust/service/bench/benchdb"
	"github.com/agenttrust/service/httpapi"
)

// benchEnv is one benchmark's isolated service, the test kit's (its own
// database cloned from the migrated template, the real HTTP handler over the
// real services, one organization with an API key) with rate limits out of
// the way, plus a database/sql connection with a long timeout for seeding.
// Its own calls (post, call, decode) send prepared bodies and report errors
// instead of failing, so client goroutines may use them and the measured time
// is the service's, not the kit's decoding.
type benchEnv struct {
	*testkit.Kit
	conn *sql.DB
}

func newBenchEnv(tb testing.TB) *benchEnv {
	tb.Helper()
	k := testkit.New(tb, func(c *httpapi.Config) { c.RateLimitRPS, c.RateLimitBurst = 1e9, 1<<30 })
	e := &benchEnv{Kit: k, conn: dbtest.OpenSQL(k.DBURL)}
	tb.Cleanup(func() { e.conn.Close() })
	return e
}

// gqlBody encodes a GraphQL request body.
func gqlBody(query string, vars map[string]any) []byte {
	body, err := json.Marshal(map[string]any{"query": query, "variables": vars})
	if err != nil {
		panic(err)
	}
	return body
}

// post serves one GraphQL POST through the whole handler (authentication,
// rate limit, body limit, logging, metrics, gqlgen, resolvers, Postgres).
func (e *benchEnv) post(key string, body []byte) (int, []byte) {
	req := httptest.NewRequest(http.MethodPost, "/graphql", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+key)
	rec := httptest.NewRecorder()
	e.Handler.ServeHTTP(rec, req)
	return rec.Code, rec.Body.Bytes()
}

var errorsPrefix = []byte(`{"errors"`)

// call serves one request and fails unless it answered 200 without errors.
// It does not decode the body (gqlgen writes "errors" first when there are
// any), so the client side costs next to nothing in a timed loop.
func (e *benchEnv) call(key string, body []byte) error {
	code, out := e.post(key, body)
	if code != http.StatusOK || bytes.HasPrefix(out, errorsPrefix) {
		return fmt.Errorf("HTTP %d: %.600s", code, out)
	}
	return nil
}

// decode serves one request (untimed: seeding and checks) and decodes
// data.field into v, failing on any error.
func (e *benchEnv) decode(key string, body []byte, field string, v any) {
	e.T.Helper()
	code, out := e.post(key, body)
	var r struct {
		Data   map[string]json.RawMessage `json:"data"`
		Errors []json.RawMessage          `json:"errors"`
	}
	if err := json.Unmarshal(out, &r); err != nil || code != http.StatusOK || len(r.Errors) > 0 {
		e.T.Fatalf("HTTP %d (%v): %.600s", code, err, out)
	}
	if err := json.Unmarshal(r.Data[field], v); err != nil {
		e.T.Fatalf("decode %s: %v: %.600s", field, err, r.Data[field])
	}
}

const benchRegisterMutation = `mutation($input: RegisterAgentInput!) { registerAgent(input: $input) {
  id name authorizedActions spendingLimit dailyLimit currency environment status fingerprint createdAt updatedAt } }`

const benchExecuteMutation = `mutation($input: ExecuteTransactionInput!) { executeTransaction(input: $input) {
  id fromAgent toAgent action amount currency memo status reversalOf reversedBy reason createdAt } }`

// benchAgentInput is a RegisterAgentInput; dailyLimit "" means none.
func benchAgentInput(name, spendingLimit, dailyLimit string) map[string]any {
	in := map[string]any{"name": name, "authorizedActions": []string{"purchase", "refund"},
		"spendingLimit": spendingLimit, "currency": "USD", "environment": "sandbox"}
	if dailyLimit != "" {
		in["dailyLimit"] = dailyLimit
	}
	return in
}

// registerMany registers n agents for the organization holding key, through
// the API (so each has its audit chain, event and trust counters), and
// returns their ids in registration order.
func (e *benchEnv) registerMany(key, prefix string, n int, spendingLimit string) []string {
	e.T.Helper()
	ids := make([]string, n)
	for i := range ids {
		var a struct {
			ID string `json:"id"`
		}
		body := gqlBody(benchRegisterMutation, map[string]any{"input": benchAgentInput(fmt.Sprintf("%s %d", prefix, i), spendingLimit, "")})
		e.decode(key, body, "registerAgent", &a)
		ids[i] = a.ID
	}
	return ids
}

// executeBody is an executeTransaction request body for amount USD.
func executeBody(from, to, amount string) []byte {
	return gqlBody(benchExecuteMutation, map[string]any{"input": map[string]any{
		"fromAgent": from, "toAgent": to, "action": "purchase", "amount": amount, "currency": "USD"}})
}

// exec runs seeding SQL straight against the benchmark's database.
func (e *benchEnv) exec(query string, args ...any) int64 {
	e.T.Helper()
	res, err := e.conn.ExecContext(context.Background(), query, args...)
	if err != nil {
		e.T.Fatalf("exec %.200q: %v", query, err)
	}
	n, _ := res.RowsAffected()
	return n
}

func (e *benchEnv) count(query string, args ...any) int64 {
	e.T.Helper()
	var n int64
	if err := e.conn.QueryRowContext(context.Background(), query, args...).Scan(&n); err != nil {
		e.T.Fatalf("query %.200q: %v", query, err)
	}
	return n
}

// steadyTrust gives agents the counters of n clean past transactions each
// (n completed sends), as established agents have: their scores then move
// so slowly that an execute never writes a snapshot or a
// trust.score_changed event, the steady state of a long-running service.
func (e *benchEnv) steadyTrust(agentIDs []string, n int64) {
	e.T.Helper()
	e.exec(`UPDATE trust_counters SET completed = $1, counterparty_orgs = 5, first_external_at = now() - interval '90 days',
		evidence_at = now() WHERE agent_id IN (`+sqlList(agentIDs)+`)`, n)
	e.rescore()
}

// sqlList renders service-made ids as a SQL list of literals.
func sqlList(ids []string) string {
	q := make([]string, len(ids))
	for i, s := range ids {
		if strings.Trim(s, "abcdefghijklmnopqrstuvwxyz0123456789_") != "" {
			panic("not an id: " + s)
		}
		q[i] = "'" + s + "'"
	}
	return strings.Join(q, ", ")
}

// rescore stores, for every agent, the score and assessment its counters
// produce now, as applyTrust would have left them.
func (e *benchEnv) rescore() {
	e.T.Helper()
	if err := benchdb.Rescore(context.Background(), e.conn, nil); err != nil {
		e.T.Fatal(err)
	}
}

// seedHistory inserts n completed transactions, each with hub on one side
// (sender of 3 in 5, receiver of the rest) and the others in turn on the
// other, created over the 365 days before the last hour and stored oldest
// first, as a live service appends them. Then it recounts every agent's trust
// counters from the transactions (`trust rebuild --fix`), rescores, VACUUM ANALYZEs (so autovacuum does
// not start in the middle of a measurement) and CHECKPOINTs (so the
// checkpointer is not writing the seeded pages out during one either).
//
// To stay well under a minute for 10^6 rows it inserts without the per-row
// foreign-key triggers (every row is valid by construction) and without the
// secondary indexes, which it then rebuilds from their own definitions
// (pg_get_indexdef), so the schema is exactly the migrated one again. Seeded
// ids are "tx_seed" and a zero-padded counter, ascending with created_at: the
// primary key then grows at its right edge while inserting; it is the same
// index of the same size that random ids give.
func (e *benchEnv) seedHistory(hub string, others []string, n int) {
	e.T.Helper()
	e.seedHistoryBefore(hub, others, n, time.Hour)
}

// seedHistoryBefore is seedHistory with the history ending end before now
// instead of an hour.
func (e *benchEnv) seedHistoryBefore(hub string, others []string, n int, end time.Duration) {
	e.T.Helper()
	ctx := context.Background()
	start := time.Now()
	c, err := e.conn.Conn(ctx)
	if err != nil {
		e.T.Fatalf("seed connection: %v", err)
	}
	defer c.Close()
	run := func(query string, args ...any) {
		e.T.Helper()
		if _, err := c.ExecContext(ctx, query, args...); err != nil {
			e.T.Fatalf("seed: %.200q: %v", query, err)
		}
	}
	// Secondary indexes: those that back no constraint.
	rows, err := c.QueryContext(ctx, `SELECT indexrelid::regclass::text, pg_get_indexdef(indexrelid) FROM pg_index
		WHERE indrelid = 'transactions'::regclass AND NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conindid = indexrelid)`)
	if err != nil {
		e.T.Fatalf("list indexes: %v", err)
	}
	var names, defs []string
	for rows.Next() {
		var name, def string
		if err := rows.Scan(&name, &def); err != nil {
			e.T.Fatalf("list indexes: %v", err)
		}
		names, defs = append(names, name), append(defs, def)
	}
	if err := rows.Err(); err != nil {
		e.T.Fatalf("list indexes: %v", err)
	}
	rows.Close()
	run(`SET session_replication_role = replica`)
	run(`SET synchronous_commit = off`)
	run(`SET maintenance_work_mem = '256MB'`)
	for _, name := range names {
		run(`DROP INDEX ` + name)
	}
	run(`
WITH cp AS (
  SELECT array_agg(a.id ORDER BY a.id) AS ids, array_agg(a.org_id ORDER BY a.id) AS orgs, count(*)::int AS k
  FROM agents a WHERE a.id IN (`+sqlList(others)+`)),
hub AS (SELECT id, org_id FROM agents WHERE id = $1)
INSERT INTO transactions (id, from_agent, to_agent, from_org, to_org, action, amount, currency, status, created_at)
SELECT 'tx_seed' || lpad(($2 - g)::text, 19, '0'),
       CASE WHEN g % 5 < 3 THEN hub.id ELSE cp.ids[1 + g % cp.k] END,
       CASE WHEN g % 5 < 3 THEN cp.ids[1 + g % cp.k] ELSE hub.id END,
       CASE WHEN g % 5 < 3 THEN hub.org_id ELSE cp.orgs[1 + g % cp.k] END,
       CASE WHEN g % 5 < 3 THEN cp.orgs[1 + g % cp.k] ELSE hub.org_id END,
       'purchase', 1 + g % 500, 'USD', 'completed',
       now() - $3 * interval '1 second' - (g::float8 / $2) * interval '365 days'
FROM generate_series($2::int, 1, -1) AS g, cp, hub`, hub, n, int64(end.Seconds()))
	// The spend policy's buckets and running totals, as executes keep them.
	run(`INSERT INTO agent_outflow_hours (agent_id, hour, action, amount, count, first_at)
SELECT from_agent, date_trunc('hour', created_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', action, sum(amount), count(*), min(created_at)
  FROM transactions WHERE id LIKE 'tx_seed%' GROUP BY 1, 2, 3
ON CONFLICT (agent_id, hour, action) DO UPDATE SET amount = agent_outflow_hours.amount + EXCLUDED.amount,
  count = agent_outflow_hours.count + EXCLUDED.count, first_at = least(agent_outflow_hours.first_at, EXCLUDED.first_at)`)
	run(`INSERT INTO agent_outflow_days (agent_id, day, action, amount, count)
SELECT from_agent, date_trunc('day', created_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', action, sum(amount), count(*)
  FROM transactions WHERE id LIKE 'tx_seed%' GROUP BY 1, 2, 3
ON CONFLICT (agent_id, day, action) DO UPDATE SET amount = agent_outflow_days.amount + EXCLUDED.amount,
  count = agent_outflow_days.count + EXCLUDED.count`)
	run(`INSERT INTO agent_outflow_totals (agent_id, action, total)
SELECT from_agent, action, sum(amount) FROM transactions WHERE id LIKE 'tx_seed%' GROUP BY 1, 2
ON CONFLICT (agent_id, action) DO UPDATE SET total = agent_outflow_totals.total + EXCLUDED.total`)
	inserted := time.Since(start)
	for _, def := range defs {
		run(def)
	}
	indexed := time.Since(start)
	run(`RESET session_replication_role`)
	run(`RESET synchronous_commit`)
	run(`RESET maintenance_work_mem`)
	// Recount every agent's trust counters from the seeded records, as `trust rebuild --fix` does.
	if _, err := e.DB.RebuildTrust(ctx, true); err != nil {
		e.T.Fatalf("rebuild trust: %v", err)
	}
	e.rescore()
	e.exec(`VACUUM ANALYZE`)
	// Write the seeded pages out now, not during the measurements.
	e.exec(`CHECKPOINT`)
	e.T.Logf("seeded %d transactions in %v (insert %v, %d indexes %v)", n, time.Since(start).Round(time.Millisecond),
		inserted.Round(time.Millisecond), len(defs), (indexed - inserted).Round(time.Millisecond))
}

// runClients runs b.N operations spread over clients goroutines (a fixed
// op count, taken from a shared counter), each goroutine being one client
// with its own index, and reports throughput and latency percentiles.
func runClients(b *testing.B, clients int, op func(client, i int) error) {
	b.Helper()
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, clients)
	lat := make([][]time.Duration, clients)
	cpu := processCPU()
	b.ResetTimer()
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; next.Add(1) <= int64(b.N); i++ {
				t0 := time.Now()
				if err := op(c, i); err != nil {
					errs <- fmt.Errorf("client %d: %w", c, err)
					return
				}
				lat[c] = append(lat[c], time.Since(t0))
			}
		}()
	}
	wg.Wait()
	b.StopTimer()
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
	all := slices.Concat(lat...)
	slices.Sort(all)
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "ops/s")
	b.ReportMetric(ms(processCPU()-cpu)/float64(b.N), "go-cpu-ms/op")
	b.ReportMetric(ms(all[len(all)/2]), "p50-ms")
	b.ReportMetric(ms(all[len(all)*99/100]), "p99-ms")
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// measure times requests in a loop (bodies in turn) and reports the SQL
// statements they run (the service's own counter, API-key lookup included)
// per request.
func (e *benchEnv) measure(b *testing.B, key string, bodies ...[]byte) {
	b.Helper()
	if err := e.call(key, bodies[0]); err != nil { // warm the query cache; fail early
		b.Fatal(err)
	}
	b.ReportAllocs()
	before, cpu := e.DB.Statements(), processCPU()
	i := 0
	for b.Loop() {
		if err := e.call(key, bodies[i%len(bodies)]); err != nil {
			b.Fatal(err)
		}
		i++
	}
	b.ReportMetric(ms(processCPU()-cpu)/float64(b.N), "go-cpu-ms/op")
	b.ReportMetric(float64(e.DB.Statements()-before)/float64(b.N), "stmts/op")
}

// processCPU is the CPU time (user + system) this test process has used:
// the service's Go side, client included; Postgres runs in other processes.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// explain logs EXPLAIN (ANALYZE, BUFFERS) of query, run twice so the plan
// shown is the warm one, when BENCH_EXPLAIN is set (the evidence behind
// bench/RESULTS.md). The queries are the statements the service sends, as
// captured with log_statement = all, with this benchmark's ids.
func (e *benchEnv) explain(title, query string) {
	e.T.Helper()
	if os.Getenv("BENCH_EXPLAIN") == "" {
		return
	}
	var plan []string
	for range 2 {
		plan = plan[:0]
		rows, err := e.conn.QueryContext(context.Background(), "EXPLAIN (ANALYZE, BUFFERS) "+query)
		if err != nil {
			e.T.Fatalf("explain %s: %v", title, err)
		}
		for rows.Next() {
			var line string
			if err := rows.Scan(&line); err != nil {
				e.T.Fatalf("explain %s: %v", title, err)
			}
			plan = append(plan, line)
		}
		if err := rows.Err(); err != nil {
			e.T.Fatalf("explain %s: %v", title, err)
		}
		rows.Close()
	}
	e.T.Logf("EXPLAIN %s:\n%s\n%s", title, shortenIDLists(query), shortenIDLists(strings.Join(plan, "\n")))
}

// idList matches a SQL or array-literal list of three or more agent ids.
var idList = regexp.MustCompile(`'?agent_[a-z0-9]+'?(, ?'?agent_[a-z0-9]+'?){2,}`)

func shortenIDLists(s string) string {
	return idList.ReplaceAllStringFunc(s, func(m string) string {
		return fmt.Sprintf("<%d agent ids>", strings.Count(m, "agent_"))
	})
}
