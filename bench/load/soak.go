package main

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"time"
)

// A soak sample: what the server holds at one moment.
type sample struct {
	at         time.Duration // since the traffic started (negative: before)
	goroutines float64
	heap       float64 // go_memstats_heap_inuse_bytes
	fds        float64
	pool       float64 // att_db_open_connections: the service's main pool
	inUse      float64 // att_db_in_use_connections
	backends   float64 // every Postgres connection to the database (pools, River, LISTEN)
	rss        float64
}

func (s sample) String() string {
	return fmt.Sprintf("%8s  goroutines %5.0f  heap %6.1f MiB  fds %5.0f  pool conns %3.0f (in use %2.0f)  pg backends %3.0f  rss %6.1f MiB",
		s.at.Round(time.Second), s.goroutines, s.heap/(1<<20), s.fds, s.pool, s.inUse, s.backends, s.rss/(1<<20))
}

// limit is how far a figure may end above its starting level.
type limit struct {
	name  string
	get   func(sample) float64
	slack func(start float64) float64
	rule  string
}

var soakLimits = []limit{
	{"goroutines", func(s sample) float64 { return s.goroutines }, func(float64) float64 { return 5 }, "start + 5"},
	{"heap in use", func(s sample) float64 { return s.heap }, func(v float64) float64 { return max(v/2, 8<<20) }, "start + max(50%, 8 MiB)"},
	{"open fds", func(s sample) float64 { return s.fds }, func(float64) float64 { return 3 }, "start + 3"},
	{"pool connections", func(s sample) float64 { return s.pool }, func(float64) float64 { return 0 }, "start"},
	{"pool in use", func(s sample) float64 { return s.inUse }, func(float64) float64 { return 0 }, "start"},
	// River's own pool (webhook jobs, at most 10 connections) closes an idle
	// connection only after pgxpool's default 30 minutes: it may end fuller
	// than it started, within its size.
	{"pg backends", func(s sample) float64 { return s.backends }, func(float64) float64 { return 6 }, "start + 6 (River's pool)"},
}

// The soak's load: steady subscribers, subscribers connecting and leaving
// every 10 s, webhook endpoints receiving every transaction, and clients.
const soakSteady, soakChurn, soakEndpoints, soakWorkers = 200, 20, 5, 8

// soak is one soak run's server: its database, the webhook receiver its
// endpoints point at, and the dashboard seeded in it.
type soak struct {
	e     *env
	dbURL string
	drop  func()
	svc   *proc
	rcv   *receiver
	dash  *dashboard
}

// soakTraffic is what the traffic window left: the clients' outcome, the
// highest figures sampled, when it started, and how the churn ended.
type soakTraffic struct {
	out      outcome
	peak     sample
	t0       time.Time
	churnErr error
}

// runSoak runs mixed dashboard traffic (8 clients: 80% pages, 15%
// evaluates, 5% executes) for d against a real server process, with 200
// websocket subscribers attached throughout, 20 more connecting and leaving
// every 10 s, and 5 webhook endpoints receiving every transaction. It
// samples the server before, during and after, then waits up to settle for
// every figure to return to its starting level (the pools close idle
// connections after 5 minutes) and fails if one does not, or if a request
// failed, or if a subscriber or an endpoint missed an event.
func runSoak(ctx context.Context, admin string, d, settle time.Duration) error {
	raiseFileLimit()
	begin := time.Now()
	e, err := newEnv(ctx, admin)
	if err != nil {
		return err
	}
	defer e.close()
	s, err := startSoak(ctx, e)
	if err != nil {
		return err
	}
	defer s.close()
	p := plan{url: s.svc.base + "/graphql", workers: soakWorkers, duration: 5 * time.Second, next: s.dash.next}
	start, err := s.warmUp(ctx, p)
	if err != nil {
		return err
	}
	fmt.Printf("# make soak: %s of traffic, %s, %d cores, load average %s\n", d, time.Now().UTC().Format("2006-01-02 15:04 MST"), runtime.NumCPU(), loadavg())
	fmt.Printf("# %d clients (80%% pages, 15%% evaluates, 5%% executes), %d subscribers + %d churning every 10 s, %d webhook endpoints\n",
		soakWorkers, soakSteady, soakChurn, soakEndpoints)
	fmt.Println("start    ", start)
	seq0, err := lastSeq(ctx, s.dbURL)
	if err != nil {
		return err
	}
	subs, err := subscribe(ctx, s.svc.addr, []string{s.dash.orgs[0].key, s.dash.orgs[1].key}, soakSteady, txSubscription)
	if err != nil {
		return err
	}
	t, err := s.traffic(ctx, p, d, start)
	if err != nil {
		return err
	}
	missed, err := s.delivered(ctx, seq0, subs, t)
	if err != nil {
		return err
	}
	stopped := time.Now()
	end, err := s.settle(ctx, start, t.t0, settle)
	if err != nil {
		return err
	}
	printSoakTable(start, t.peak, end)
	fmt.Printf("returned %s after the traffic stopped; whole soak %s; load average %s\n",
		time.Since(stopped).Round(time.Second), time.Since(begin).Round(time.Second), loadavg())
	var errs []error
	if err := over(start, end); err != nil {
		errs = append(errs, err)
	}
	if t.out.errors > 0 {
		errs = append(errs, fmt.Errorf("%d requests failed%s", t.out.errors, firstErr(t.out)))
	}
	return errors.Join(append(append(errs, missed...), t.churnErr)...)
}

// startSoak starts the webhook receiver and the service on a database of
// its own, seeds the dashboard and registers the endpoints.
func startSoak(ctx context.Context, e *env) (*soak, error) {
	s := &soak{e: e}
	var err error
	if s.rcv, err = newReceiver(e.tmp); err != nil {
		return nil, err
	}
	if s.dbURL, s.drop, err = e.newDB(ctx, "soak"); err != nil {
		s.close()
		return nil, err
	}
	if s.svc, err = e.startService(ctx, s.dbURL, "WEBHOOK_ALLOW_PRIVATE_NETWORKS=true", "WEBHOOK_CA_FILE="+s.rcv.pem); err != nil {
		s.close()
		return nil, err
	}
	if s.dash, err = seedDashboard(ctx, s.svc.base, s.dbURL); err != nil {
		s.close()
		return nil, err
	}
	for i := range soakEndpoints {
		if _, err := registerWebhook(ctx, s.svc.base, s.dash.orgs[0].key, fmt.Sprintf("%s/soak/%d", s.rcv.srv.URL, i), "transaction.completed"); err != nil {
			s.close()
			return nil, err
		}
	}
	return s, nil
}

// close stops the service, drops the database and stops the receiver.
func (s *soak) close() {
	if s.svc != nil {
		s.svc.close()
	}
	if s.drop != nil {
		s.drop()
	}
	s.rcv.close()
}

// warmUp runs every path once (requests, a subscription, a delivery), lets
// the server go idle, and takes the starting level.
func (s *soak) warmUp(ctx context.Context, p plan) (sample, error) {
	p.run(ctx)
	if sub, err := subscribe(ctx, s.svc.addr, []string{s.dash.orgs[0].key}, 10, txSubscription); err == nil {
		time.Sleep(time.Second)
		sub.close()
	}
	time.Sleep(10 * time.Second)
	return s.take(ctx, 0)
}

// take samples the server's figures at a moment of the run.
func (s *soak) take(ctx context.Context, at time.Duration) (sample, error) {
	m, err := s.svc.metrics()
	if err != nil {
		return sample{}, err
	}
	n, err := s.e.backends(ctx, s.dbURL)
	if err != nil {
		return sample{}, err
	}
	rss, _ := s.svc.rss()
	return sample{at: at, goroutines: m["go_goroutines"], heap: m["go_memstats_heap_inuse_bytes"], fds: m["process_open_fds"],
		pool: m["att_db_open_connections"], inUse: m["att_db_in_use_connections"], backends: float64(n), rss: float64(rss)}, nil
}

// traffic runs p for d with subscribers churning beside it, sampling the
// server every twentieth of d (at least every 5 s).
func (s *soak) traffic(ctx context.Context, p plan, d time.Duration, start sample) (soakTraffic, error) {
	t := soakTraffic{peak: start, t0: time.Now()}
	var wg sync.WaitGroup
	wg.Go(func() {
		p.duration = d
		t.out = p.run(ctx)
	})
	churnCtx, stopChurn := context.WithCancel(ctx)
	defer stopChurn()
	churned := make(chan error, 1)
	go func() { churned <- churnSubscribers(churnCtx, s.svc.addr, s.dash.orgs[0].key, soakChurn) }()
	tick := time.NewTicker(max(d/20, 5*time.Second))
	for time.Since(t.t0) < d {
		select {
		case <-ctx.Done():
			return t, ctx.Err()
		case <-tick.C:
		}
		at, err := s.take(ctx, time.Since(t.t0))
		if err != nil {
			return t, err
		}
		t.peak = maxSample(t.peak, at)
		fmt.Println("traffic  ", at)
	}
	tick.Stop()
	wg.Wait()
	stopChurn()
	t.churnErr = <-churned
	return t, nil
}

// delivered waits for every transaction of the traffic window to reach
// every steady subscriber and every endpoint, prints what the traffic did,
// and returns what went missing.
func (s *soak) delivered(ctx context.Context, seq0 int64, subs *subscribers, t soakTraffic) ([]error, error) {
	events, err := eventsAfter(ctx, s.dbURL, seq0, "transaction.completed")
	if err != nil {
		return nil, err
	}
	ids := eventIDs(events)
	subs.waitFor(func(int) int { return len(ids) }, 2*time.Minute)
	lat := subs.close()
	subNote, subErr := subs.check(func(int) []string { return ids }, lat)
	hookNote, hookErr := waitWebhooks(ctx, s.rcv, ids, soakEndpoints, 5*time.Minute)
	fmt.Printf("traffic stopped after %s: %d requests answered (%s), %d failed%s\n", time.Since(t.t0).Round(time.Second),
		t.out.requests, kindCounts(t.out.kinds), t.out.errors, firstErr(t.out))
	fmt.Println("  " + subNote)
	fmt.Println("  " + hookNote)
	return []error{subErr, hookErr}, nil
}

// settle samples every 10 s until every figure is back at its starting
// level, settle has passed, or ctx ends, and returns the last sample.
func (s *soak) settle(ctx context.Context, start sample, t0 time.Time, settle time.Duration) (sample, error) {
	stopped := time.Now()
	for {
		end, err := s.take(ctx, time.Since(t0))
		if err != nil {
			return end, err
		}
		if over(start, end) == nil || time.Since(stopped) >= settle || ctx.Err() != nil {
			fmt.Println("end      ", end)
			return end, nil
		}
		fmt.Println("settling ", end)
		time.Sleep(10 * time.Second)
	}
}

// printSoakTable prints each figure at the start, its peak and its end
// beside the level it may end at.
func printSoakTable(start, peak, end sample) {
	fmt.Printf("\n%-18s %12s %12s %12s   %-26s %s\n", "figure", "start", "peak", "end", "allowed end", "verdict")
	for _, l := range soakLimits {
		verdict := "ok"
		if l.get(end) > l.get(start)+l.slack(l.get(start)) {
			verdict = "DID NOT RETURN"
		}
		unit := func(v float64) string { return fmt.Sprintf("%.0f", v) }
		if l.name == "heap in use" {
			unit = func(v float64) string { return fmt.Sprintf("%.1f MiB", v/(1<<20)) }
		}
		fmt.Printf("%-18s %12s %12s %12s   %-26s %s\n", l.name, unit(l.get(start)), unit(l.get(peak)), unit(l.get(end)), l.rule, verdict)
	}
}

// over says which figures of end are above their allowed level.
func over(start, end sample) error {
	var bad []string
	for _, l := range soakLimits {
		if l.get(end) > l.get(start)+l.slack(l.get(start)) {
			bad = append(bad, fmt.Sprintf("%s %.0f > %.0f", l.name, l.get(end), l.get(start)+l.slack(l.get(start))))
		}
	}
	if bad == nil {
		return nil
	}
	return fmt.Errorf("did not return to the starting level: %s", strings.Join(bad, ", "))
}

func maxSample(a, b sample) sample {
	return sample{at: b.at, goroutines: max(a.goroutines, b.goroutines), heap: max(a.heap, b.heap), fds: max(a.fds, b.fds),
		pool: max(a.pool, b.pool), inUse: max(a.inUse, b.inUse), backends: max(a.backends, b.backends), rss: max(a.rss, b.rss)}
}

func firstErr(o outcome) string {
	if o.firstErr == "" {
		return ""
	}
	return " (first: " + o.firstErr + ")"
}

// churnSubscribers connects n subscribers every 10 s and closes them 10 s
// later, until ctx ends.
func churnSubscribers(ctx context.Context, addr, key string, n int) error {
	var prev *subscribers
	defer func() {
		if prev != nil {
			prev.close()
		}
	}()
	t := time.NewTicker(10 * time.Second)
	defer t.Stop()
	for {
		s, err := subscribe(ctx, addr, []string{key}, n, txSubscription)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("churn: %w", err)
		}
		if prev != nil {
			prev.close()
		}
		prev = s
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// waitWebhooks waits until every event of ids reached each of the n
// endpoints, and reports how many deliveries arrived and were doubled.
func waitWebhooks(ctx context.Context, rcv *receiver, ids []string, n int, within time.Duration) (string, error) {
	want := map[string]bool{}
	for _, id := range ids {
		want[id] = true
	}
	deadline := time.Now().Add(within)
	for {
		got := map[string]int{} // path + id → deliveries
		for _, d := range rcv.deliveries() {
			if want[d.header.Get("webhook-id")] {
				got[d.path+" "+d.header.Get("webhook-id")]++
			}
		}
		dups := 0
		for _, c := range got {
			dups += c - 1
		}
		if len(got) == len(ids)*n || time.Now().After(deadline) || ctx.Err() != nil {
			note := fmt.Sprintf("%d webhook endpoints: %d of %d expected deliveries received, %d delivered twice", n, len(got), len(ids)*n, dups)
			if len(got) != len(ids)*n {
				return note, errors.New("webhook deliveries missing: " + note)
			}
			return note, nil
		}
		time.Sleep(100 * time.Millisecond)
	}
}
