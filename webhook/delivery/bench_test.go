package delivery_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"flag"
	"fmt"
	"net/http"
	"os"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/agenttrust/service/event"
	"github.com/agenttrust/service/internal/webhooktest"
	"github.com/agenttrust/service/webhook"
	"github.com/agenttrust/service/webhook/delivery"
)

// BenchmarkDeliveryThroughput delivers a backlog of events to 1 and to 50
// endpoints on one local HTTPS receiver, then posts the same bodies to the
// same receiver with a plain net/http client at the same concurrency, and
// reports both rates and their ratio. The service's rate runs from the first
// request the receiver gets to the moment every attempt is recorded, the
// plain client's from its first request to its last answer;
// cold-deliveries/s also counts the runner's start (River's client, the
// first read of the log), first-ms. The CPU figures named window- count only
// those spans, as the ratio does; the others count the runner's whole life.
// Run: make bench-webhooks.
func BenchmarkDeliveryThroughput(b *testing.B) {
	for _, endpoints := range []int{1, 50} {
		b.Run(fmt.Sprintf("endpoints=%d", endpoints), func(b *testing.B) {
			n := *deliveriesFlag
			deliveries := float64(n)
			events := n / endpoints
			// The production job timeout: the test Env's short one makes a
			// loaded machine cut batches short at half of it and queue the
			// rest again.
			cfg := delivery.Config{Workers: 50, PerEndpoint: 50, JobTimeout: time.Minute}
			// Each iteration is a round of both clients, the service first;
			// the figures are summed over the rounds (-benchtime Nx) and
			// reported once, so rounds alternate the two instead of
			// measuring each at a different moment of a drifting machine.
			var sum roundSums
			for range b.N {
				// Production bounds the sender's connections per host to its workers (server.go).
				e := webhooktest.NewEnv(b, webhooktest.Options{MaxConns: cfg.Workers})
				rcv := webhooktest.New(b)
				for i := range endpoints {
					e.Register(fmt.Sprintf("%s/%d", rcv.URL(), i), event.AgentRegistered)
				}
				e.RegisterAgent("bench")
				seedEvents(b, e.DBURL, events)
				before := dbStats(b, e.DBURL)
				// The poller that sees every attempt recorded connects now:
				// connecting after the last request put a new backend's
				// start into the service's measured time.
				watch := connect(b, e.DBURL)
				conns := rcv.Conns()
				cpu0 := cpuTime()
				pg0 := pgCPU(b, e.DBURL)
				start := time.Now()
				sampled := sampleCPU(b, e.DBURL)
				// Labelled, so that a CPU profile (-cpuprofile) tells the
				// service's goroutines (phase=service) from the plain
				// client's (phase=plain) and the receiver's (none).
				var stop func()
				pprof.Do(context.Background(), pprof.Labels("phase", "service", "endpoints", strconv.Itoa(endpoints)), func(context.Context) { _, stop = e.Start(cfg) })
				rcv.Await(b, n, 2*time.Minute, event.AgentRegistered)
				// The work ends when every attempt is recorded, not at the
				// last request: a job records its attempts after they end,
				// so the larger the jobs, the more of that work would fall
				// after the last request and outside the rate.
				done, _ := waitRecorded(b, watch, n)
				watch.Close(context.Background())
				got := rcv.Requests(event.AgentRegistered)
				cold := done.Sub(start)
				took := done.Sub(got[0].At)
				pg1 := pgCPU(b, e.DBURL)
				samples := sampled()
				stop()
				cpu1 := cpuTime()
				after := dbStats(b, e.DBURL)
				conns, plainConns := rcv.Conns()-conns, rcv.Conns()

				// The same sampling as the service's run (it queries Postgres
				// every 10 ms, at a CPU cost of its own), so that both runs
				// pay for it alike.
				sampled = sampleCPU(b, e.DBURL)
				pprof.Do(context.Background(), pprof.Labels("phase", "plain"), func(context.Context) {
					plainPost(b, rcv, got, min(cfg.Workers, cfg.PerEndpoint*endpoints))
				})
				cpu2 := cpuTime()
				plainSamples := sampled()
				posted := rcv.Requests(event.AgentRegistered)[len(got):]
				plain := posted[len(posted)-1].At.Sub(posted[0].At)
				// Between the first request the receiver got and the moment
				// every attempt was recorded, to the nearest 10 ms sample.
				wcpu, wpg := window(samples, got[0].At, done)
				wplain, _ := window(plainSamples, posted[0].At, posted[len(posted)-1].At)
				b.Logf("round %d: ratio %.3f, service %s, plain %s, tail %s", sum.n+1, plain.Seconds()/took.Seconds(),
					took.Round(time.Millisecond), plain.Round(time.Millisecond), done.Sub(got[len(got)-1].At).Round(time.Millisecond))
				sum.add(round{took: took, cold: cold, first: got[0].At.Sub(start), tail: done.Sub(got[len(got)-1].At), plain: plain,
					conns: conns, plainConns: rcv.Conns() - plainConns, jobs: after.jobs,
					commits: after.commits - before.commits, rows: after.rows - before.rows,
					cpu: cpu1 - cpu0, plainCPU: cpu2 - cpu1, pg: pg1 - pg0, pgOK: pg0 >= 0 && pg1 >= 0,
					winCPU: wcpu, winPG: wpg, winPlain: wplain})
			}
			sum.report(b, deliveries)
		})
	}
}

// round is one round's figures: the service's run, then the plain client's.
type round struct {
	took, cold, first, tail, plain time.Duration
	conns, plainConns              int
	jobs, commits, rows            int64
	cpu, plainCPU, pg              time.Duration
	pgOK                           bool
	winCPU, winPG, winPlain        time.Duration
}

// roundSums sums rounds and reports them: rates and the ratio over all the
// rounds' time, CPU per delivery over all their deliveries, and the lowest
// and highest ratio of a single round.
type roundSums struct {
	round
	n                  int
	ratioMin, ratioMax float64
}

func (s *roundSums) add(r round) {
	ratio := r.plain.Seconds() / r.took.Seconds()
	if s.n == 0 || ratio < s.ratioMin {
		s.ratioMin = ratio
	}
	if s.n == 0 || ratio > s.ratioMax {
		s.ratioMax = ratio
	}
	s.n++
	s.took += r.took
	s.cold += r.cold
	s.first += r.first
	s.tail += r.tail
	s.plain += r.plain
	s.conns += r.conns
	s.plainConns += r.plainConns
	s.jobs += r.jobs
	s.commits += r.commits
	s.rows += r.rows
	s.cpu += r.cpu
	s.plainCPU += r.plainCPU
	s.pg += r.pg
	s.pgOK = (s.n == 1 || s.pgOK) && r.pgOK
	s.winCPU += r.winCPU
	s.winPG += r.winPG
	s.winPlain += r.winPlain
}

func (s *roundSums) report(b *testing.B, deliveries float64) {
	if s.n == 0 {
		return
	}
	n := float64(s.n)
	all := deliveries * n
	µs := func(d time.Duration) float64 { return float64(d.Microseconds()) / all }
	b.ReportMetric(all/s.took.Seconds(), "deliveries/s")
	b.ReportMetric(all/s.cold.Seconds(), "cold-deliveries/s")
	b.ReportMetric(float64(s.first.Milliseconds())/n, "first-ms")
	// From the last request to the moment every attempt is recorded: part
	// of the service's time, spent on records that did not keep up.
	b.ReportMetric(float64(s.tail.Milliseconds())/n, "tail-ms")
	b.ReportMetric(all/s.plain.Seconds(), "plain-posts/s")
	b.ReportMetric(s.plain.Seconds()/s.took.Seconds(), "ratio")
	if s.n > 1 {
		b.ReportMetric(s.ratioMin, "ratio-min")
		b.ReportMetric(s.ratioMax, "ratio-max")
	}
	b.ReportMetric(float64(s.conns)/n, "conns")
	b.ReportMetric(float64(s.plainConns)/n, "plain-conns")
	b.ReportMetric(float64(s.jobs)/all, "jobs/delivery")
	// This process's CPU (sender and receiver; not Postgres's) per request.
	b.ReportMetric(µs(s.cpu), "cpu-µs/delivery")
	b.ReportMetric(µs(s.plainCPU), "plain-cpu-µs/post")
	if s.pgOK {
		b.ReportMetric(µs(s.pg), "pg-cpu-µs/delivery")
	}
	b.ReportMetric(µs(s.winCPU), "window-cpu-µs/delivery")
	if s.winPG >= 0 {
		b.ReportMetric(µs(s.winPG), "window-pg-cpu-µs/delivery")
	}
	b.ReportMetric(µs(s.winPlain), "window-plain-cpu-µs/post")
	if *stats {
		b.ReportMetric(float64(s.commits)/all, "xacts/delivery")
		b.ReportMetric(float64(s.rows)/all, "rows-written/delivery")
	}
}

// connect opens a connection to the database at url, or fails b.
func connect(b *testing.B, url string) *pgx.Conn {
	b.Helper()
	conn, err := pgx.Connect(context.Background(), url)
	if err != nil {
		b.Fatal(err)
	}
	return conn
}

// waitRecorded waits until the database conn is connected to holds n
// attempt records and returns when it first saw them (polled every 10 ms:
// counting the records costs Postgres a scan), and the CPU time the
// database's other backends (not the poller's) had used then (-1 when it
// cannot be read).
func waitRecorded(b *testing.B, conn *pgx.Conn, n int) (time.Time, time.Duration) {
	b.Helper()
	ctx := context.Background()
	deadline := time.Now().Add(time.Minute)
	for {
		var got int
		if err := conn.QueryRow(ctx, `SELECT coalesce(sum(n), 0) FROM webhook_attempt_batches`).Scan(&got); err != nil {
			b.Fatal(err)
		}
		if got >= n {
			at := time.Now()
			pg, err := backendsCPU(ctx, conn)
			if err != nil {
				b.Fatal(err)
			}
			return at, pg
		}
		if time.Now().After(deadline) {
			b.Fatalf("%d of %d attempts recorded after a minute", got, n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// seedEvents makes the log hold n agent.registered events: copies of the
// one logged by a real registration, under new ids, in one transaction.
func seedEvents(b *testing.B, url string, n int) {
	b.Helper()
	ctx := context.Background()
	conn := connect(b, url)
	defer conn.Close(ctx)
	_, err := conn.Exec(ctx, `WITH src AS (SELECT type, org_ids, data, created_at FROM events WHERE type = $1 LIMIT 1),
		copies AS (INSERT INTO events (id, type, org_ids, data, created_at)
			SELECT 'evt_bench' || lpad(g::text, 17, '0'), type, org_ids, data, created_at + g * interval '1 microsecond'
			FROM src, generate_series(1, $2::int - 1) g
			RETURNING seq, org_ids)
		INSERT INTO event_orgs (org_id, event_seq) SELECT unnest(org_ids), seq FROM copies`, event.AgentRegistered, n)
	if err != nil {
		b.Fatal(err)
	}
}

// deliveriesFlag sets the backlog. At the default 4,000 the plain client's
// run lasts about a quarter of a second, of which its connections' TLS
// handshakes take a large share, so its rate (and the ratio) varies from
// run to run; 20,000 gives both sides' steady rates.
var deliveriesFlag = flag.Int("deliveries", 4000, "deliveries in the backlog (a multiple of 50)")

var stats = flag.Bool("dbstats", false, "report transactions and rows written per delivery (waits for Postgres's statistics, about 25 s more)")

type counts struct{ jobs, commits, rows int64 }

// dbStats counts River jobs and, with -dbstats, the database's committed
// transactions and rows written. Postgres publishes a backend's statistics
// when it has been idle 10 s or exits, so -dbstats waits that long first.
func dbStats(b *testing.B, url string) counts {
	b.Helper()
	if *stats {
		time.Sleep(11 * time.Second)
	}
	ctx := context.Background()
	conn := connect(b, url)
	defer conn.Close(ctx)
	var c counts
	err := conn.QueryRow(ctx, `SELECT (SELECT count(*) FROM river_job), xact_commit, tup_inserted + tup_updated + tup_deleted
		FROM pg_stat_database WHERE datname = current_database()`).Scan(&c.jobs, &c.commits, &c.rows)
	if err != nil {
		b.Fatal(err)
	}
	return c
}

// pgCPU is the CPU time the Postgres backends connected to the database at
// url have used so far (from /proc, so only with Postgres on this machine),
// or -1 when it cannot be read. Backends that exited meanwhile are missed:
// the runner's pools keep theirs open until it stops.
func pgCPU(b *testing.B, url string) time.Duration {
	b.Helper()
	ctx := context.Background()
	conn := connect(b, url)
	defer conn.Close(ctx)
	d, err := backendsCPU(ctx, conn)
	if err != nil {
		b.Fatal(err)
	}
	return d
}

// sample is this process's and the database's backends' CPU time at a moment.
type sample struct {
	at      time.Time
	cpu, pg time.Duration
}

// sampleCPU samples every 10 ms, the backends of the database at url too
// (over one connection, not counted) unless url is empty, until the
// function it returns is called, which returns the samples.
func sampleCPU(b *testing.B, url string) func() []sample {
	b.Helper()
	ctx := context.Background()
	var conn *pgx.Conn
	if url != "" {
		conn = connect(b, url)
	}
	var samples []sample
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for {
			s := sample{at: time.Now(), cpu: cpuTime(), pg: -1}
			if conn != nil {
				if pg, err := backendsCPU(ctx, conn); err == nil {
					s.pg = pg
				}
			}
			samples = append(samples, s)
			select {
			case <-stop:
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
	}()
	return func() []sample {
		close(stop)
		<-done
		if conn != nil {
			conn.Close(ctx)
		}
		return samples
	}
}

// window is the CPU time used between the samples nearest from and to; pg
// is -1 when either sample lacks the backends'.
func window(samples []sample, from, to time.Time) (cpu, pg time.Duration) {
	near := func(t time.Time) sample {
		best := samples[0]
		for _, s := range samples[1:] {
			if s.at.Sub(t).Abs() < best.at.Sub(t).Abs() {
				best = s
			}
		}
		return best
	}
	f, l := near(from), near(to)
	pg = -1
	if f.pg >= 0 && l.pg >= 0 {
		pg = l.pg - f.pg
	}
	return l.cpu - f.cpu, pg
}

// backendsCPU is pgCPU over conn, whose own backend it leaves out.
func backendsCPU(ctx context.Context, conn *pgx.Conn) (time.Duration, error) {
	rows, err := conn.Query(ctx, `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`)
	if err != nil {
		return 0, err
	}
	pids, err := pgx.CollectRows(rows, pgx.RowTo[int32])
	if err != nil {
		return 0, err
	}
	var total time.Duration
	for _, pid := range pids {
		d := procCPU(pid)
		if d < 0 {
			return -1, nil
		}
		total += d
	}
	return total, nil
}

// procCPU is the CPU time process pid has used (from /proc), or -1 when it
// cannot be read.
func procCPU(pid int32) time.Duration {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return -1
	}
	// utime and stime are fields 14 and 15, counted after the command's closing parenthesis.
	f := strings.Fields(string(raw[bytes.LastIndexByte(raw, ')')+1:]))
	if len(f) < 13 {
		return -1
	}
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * time.Second / clockTicks
}

// clockTicks is USER_HZ, the unit of /proc's CPU times: 100 on Linux.
const clockTicks = 100

// cpuTime is the CPU time this process has used, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// plainPost posts the bodies of reqs to rcv with a plain net/http client
// (keep-alive, a connection per sender), concurrency at a time. Its
// connections are bounded like the service's (MaxConnsPerHost): without
// the bound, senders racing for a free connection dialed up to 39 more
// (51-89 in all, each a TLS handshake on both sides, closed again for want
// of room among the idle ones), work the service's bounded client never does.
func plainPost(b *testing.B, rcv *webhooktest.Receiver, reqs []webhooktest.Request, concurrency int) {
	c := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: rcv.Roots()},
		MaxIdleConnsPerHost: concurrency, MaxConnsPerHost: concurrency, ForceAttemptHTTP2: true}}
	work := make(chan []byte)
	var wg sync.WaitGroup
	for range concurrency {
		wg.Go(func() {
			for body := range work {
				resp, err := c.Post(rcv.URL(), "application/json", bytes.NewReader(body))
				if err != nil {
					b.Error(err)
					continue
				}
				resp.Body.Close()
			}
		})
	}
	for _, q := range reqs {
		work <- q.Body
	}
	close(work)
	wg.Wait()
}

// BenchmarkDeliveryPipeline is BenchmarkDeliveryThroughput without HTTP:
// the same backlog, dispatched, loaded, signed and recorded by the service
// as it would be, but "sent" by a sender that builds and signs each body
// and answers 204 at once. Its figures are the service's own cost per
// delivery, this process's and Postgres', free of the receiver's and the
// network's, so changes to that cost show on a noisy machine where the
// throughput ratio cannot resolve them.
func BenchmarkDeliveryPipeline(b *testing.B) {
	for _, endpoints := range []int{1, 50} {
		b.Run(fmt.Sprintf("endpoints=%d", endpoints), func(b *testing.B) {
			n := *deliveriesFlag
			var took, cpu, pg time.Duration
			pgOK := true
			for range b.N {
				e := webhooktest.NewEnv(b, webhooktest.Options{})
				rcv := webhooktest.New(b)
				for i := range endpoints {
					e.Register(fmt.Sprintf("%s/%d", rcv.URL(), i), event.AgentRegistered)
				}
				e.RegisterAgent("bench")
				seedEvents(b, e.DBURL, n/endpoints)
				r, err := delivery.New(context.Background(), e.DB, e.Webhooks, signOnly{},
					delivery.Config{Workers: 50, PerEndpoint: 50, JobTimeout: time.Minute})
				if err != nil {
					b.Fatal(err)
				}
				cpu0, pg0, start := cpuTime(), pgCPU(b, e.DBURL), time.Now()
				ctx, cancel := context.WithCancel(context.Background())
				done := make(chan struct{})
				go func() { defer close(done); _ = r.Run(ctx) }()
				// The poller counts the records from the start here: its
				// backend's CPU is left out of Postgres'.
				watch := connect(b, e.DBURL)
				end, pg1 := waitRecorded(b, watch, n)
				watch.Close(context.Background())
				took += end.Sub(start)
				pg += pg1 - pg0
				pgOK = pgOK && pg0 >= 0 && pg1 >= 0
				cancel()
				<-done
				cpu += cpuTime() - cpu0
			}
			all := float64(n * b.N)
			b.ReportMetric(all/took.Seconds(), "deliveries/s")
			b.ReportMetric(float64(cpu.Microseconds())/all, "cpu-µs/delivery")
			if pgOK {
				b.ReportMetric(float64(pg.Microseconds())/all, "pg-cpu-µs/delivery")
			}
		})
	}
}

// signOnly is a webhook.Sender that does a sender's work short of HTTP: it
// builds and signs the body, and answers 204.
type signOnly struct{}

func (signOnly) Send(_ context.Context, _ string, secrets []string, msg webhook.Outgoing) webhook.Attempt {
	start := time.Now()
	body := webhook.Body(msg.ID, msg.Type, msg.At, msg.Data)
	if err := webhook.SetHeaders(make(http.Header, 5), secrets, msg.ID, start, body); err != nil {
		return webhook.Attempt{Err: err.Error()}
	}
	return webhook.Attempt{StatusCode: http.StatusNoContent, Latency: time.Since(start)}
}

// BenchmarkCommitToFirstAttempt measures, for events committed one at a
// time while delivery runs, the time from the commit to the endpoint
// receiving the first attempt, and reports the 50th and 99th percentiles.
func BenchmarkCommitToFirstAttempt(b *testing.B) {
	const n = 200
	var lat []time.Duration // every round's, pooled
	for range b.N {
		e := webhooktest.NewEnv(b, webhooktest.Options{})
		rcv := webhooktest.New(b)
		e.Register(rcv.URL(), event.AgentRegistered)
		e.Start(delivery.Config{})
		for i := range n {
			e.RegisterAgent(fmt.Sprintf("lat-%d", i))
			committed := time.Now()
			got := rcv.Wait(b, i+1, time.Minute, event.AgentRegistered)
			lat = append(lat, got[i].At.Sub(committed))
			time.Sleep(5 * time.Millisecond)
		}
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
}
