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

// runSoak runs mixed dashboard traffic (8 clients: 80% pages, 15%
// evaluates, 5% executes) for d against a real server process, with 200
// websocket subscribers attached throughout, 20 more connecting and leaving
// every 10 s, and 5 webhook endpoints receiving every transaction. It
// samples the server before, during and after, then waits up to settle for
// every figure to return to its starting level (the pools close idle
// connections after 5 minutes) and fails if one does not, or if a request
// failed, or if a subscriber or an endpoint missed an event.
func runSoak(ctx context.Context, admin string, d, settle time.Duration) error {
	const steady, churn, endpoints, workers = 200, 20, 5, 8
	raiseFileLimit()
	begin := time.Now()
	e, err := newEnv(ctx, admin)
	if err != nil {
		return err
	}
	defer e.close()
	rcv, err := newReceiver(e.tmp)
	if err != nil {
		return err
	}
	defer rcv.close()
	dbURL, drop, err := e.newDB(ctx, "soak")
	if err != nil {
		return err
	}
	defer drop()
	svc, err := e.startService(ctx, dbURL, "WEBHOOK_ALLOW_PRIVATE_NETWORKS=true", "WEBHOOK_CA_FILE="+rcv.pem)
	if err != nil {
		return err
	}
	defer svc.close()
	dash, err := seedDashboard(ctx, svc.base, dbURL)
	if err != nil {
		return err
	}
	for i := range endpoints {
		if _, err := registerWebhook(ctx, svc.base, dash.orgs[0].key, fmt.Sprintf("%s/soak/%d", rcv.srv.URL, i), "transaction.completed"); err != nil {
			return err
		}
	}
	// Warm up every path once (requests, a subscription, a delivery), let
	// the server go idle, then take the starting level.
	p := plan{url: svc.base + "/graphql", workers: workers, duration: 5 * time.Second, next: dash.next}
	p.run(ctx)
	if s, err := subscribe(ctx, svc.addr, []string{dash.orgs[0].key}, 10, txSubscription); err == nil {
		time.Sleep(time.Second)
		s.close()
	}
	time.Sleep(10 * time.Second)
	take := func(at time.Duration) (sample, error) {
		m, err := svc.metrics()
		if err != nil {
			return sample{}, err
		}
		n, err := e.backends(ctx, dbURL)
		if err != nil {
			return sample{}, err
		}
		rss, _ := svc.rss()
		return sample{at: at, goroutines: m["go_goroutines"], heap: m["go_memstats_heap_inuse_bytes"], fds: m["process_open_fds"],
			pool: m["att_db_open_connections"], inUse: m["att_db_in_use_connections"], backends: float64(n), rss: float64(rss)}, nil
	}
	start, err := take(0)
	if err != nil {
		return err
	}
	fmt.Printf("# make soak: %s of traffic, %s, %d cores, load average %s\n", d, time.Now().UTC().Format("2006-01-02 15:04 MST"), runtime.NumCPU(), loadavg())
	fmt.Printf("# %d clients (80%% pages, 15%% evaluates, 5%% executes), %d subscribers + %d churning every 10 s, %d webhook endpoints\n",
		workers, steady, churn, endpoints)
	fmt.Println("start    ", start)

	seq0, err := lastSeq(ctx, dbURL)
	if err != nil {
		return err
	}
	subs, err := subscribe(ctx, svc.addr, []string{dash.orgs[0].key, dash.orgs[1].key}, steady, txSubscription)
	if err != nil {
		return err
	}
	t0 := time.Now()
	var wg sync.WaitGroup
	var out outcome
	wg.Go(func() {
		p.duration = d
		out = p.run(ctx)
	})
	churnCtx, stopChurn := context.WithCancel(ctx)
	defer stopChurn()
	churned := make(chan error, 1)
	go func() { churned <- churnSubscribers(churnCtx, svc.addr, dash.orgs[0].key, churn) }()
	peak := start
	tick := time.NewTicker(max(d/20, 5*time.Second))
	for time.Since(t0) < d {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
		s, err := take(time.Since(t0))
		if err != nil {
			return err
		}
		peak = maxSample(peak, s)
		fmt.Println("traffic  ", s)
	}
	tick.Stop()
	wg.Wait()
	stopChurn()
	churnErr := <-churned

	// Every transaction of the traffic window must reach every steady
	// subscriber and every endpoint.
	events, err := eventsAfter(ctx, dbURL, seq0, "transaction.completed")
	if err != nil {
		return err
	}
	ids := make([]string, len(events))
	for i, ev := range events {
		ids[i] = ev.id
	}
	subs.waitFor(func(int) int { return len(ids) }, 2*time.Minute)
	lat := subs.close()
	subNote, subErr := subs.check(func(int) []string { return ids }, lat)
	hookNote, hookErr := waitWebhooks(ctx, rcv, ids, endpoints, 5*time.Minute)

	fmt.Printf("traffic stopped after %s: %d requests answered (%s), %d failed%s\n", time.Since(t0).Round(time.Second),
		out.requests, kindCounts(out.kinds), out.errors, firstErr(out))
	fmt.Println("  " + subNote)
	fmt.Println("  " + hookNote)

	// Settle: wait for every figure to come back.
	stopped := time.Now()
	var end sample
	for {
		if end, err = take(time.Since(t0)); err != nil {
			return err
		}
		if over(start, end) == nil || time.Since(stopped) >= settle || ctx.Err() != nil {
			break
		}
		fmt.Println("settling ", end)
		time.Sleep(10 * time.Second)
	}
	fmt.Println("end      ", end)
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
	fmt.Printf("returned %s after the traffic stopped; whole soak %s; load average %s\n",
		time.Since(stopped).Round(time.Second), time.Since(begin).Round(time.Second), loadavg())
	var errs []error
	if err := over(start, end); err != nil {
		errs = append(errs, err)
	}
	if out.errors > 0 {
		errs = append(errs, fmt.Errorf("%d requests failed%s", out.errors, firstErr(out)))
	}
	return errors.Join(append(errs, subErr, hookErr, churnErr)...)
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
