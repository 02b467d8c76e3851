// Command livebench measures live events at scale on loopback: it builds and
// starts the service on a fresh database, opens N websocket subscriptions
// (graphql-transport-ws) spread over organizations, and reports the server's
// resident memory per idle subscription, the commit-to-receipt latency of a
// burst of events as every subscriber sees it, and the log statements the
// server ran per wake-up. Run it with `make livebench` (raises the fd limit).
package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/agenttrust/service/bench/benchdb"
	"github.com/agenttrust/service/bench/promtext"
	"github.com/agenttrust/service/db"
)

// config is what the flags set.
type config struct {
	admin                       string
	subs, orgs, events, writers int
	memRate                     int
	profiles                    string
}

func main() {
	var c config
	flag.IntVar(&c.subs, "subs", 10000, "websocket subscriptions")
	flag.IntVar(&c.orgs, "orgs", 100, "organizations they are spread over")
	flag.IntVar(&c.events, "events", 1000, "events in the burst, spread over the organizations")
	flag.IntVar(&c.writers, "writers", 8, "concurrent writers of the burst")
	flag.IntVar(&c.memRate, "memprofilerate", 0, "the server's runtime.MemProfileRate (1 records every allocation, slowing it; 0 keeps Go's default)")
	flag.StringVar(&c.profiles, "profiles", filepath.Join(os.TempDir(), "livebench"), "directory for the server's heap profile and goroutine dump with the subscriptions idle")
	flag.StringVar(&c.admin, "admin", "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable", "Postgres server URL")
	flag.Parse()
	if err := run(c); err != nil {
		fmt.Fprintln(os.Stderr, "livebench:", err)
		os.Exit(1)
	}
}

type org struct{ id, key string }

// figures is what one run measured: the server's resident memory and
// metrics before the subscriptions, with them idle and after the burst, and
// how long each step took.
type figures struct {
	setup, written, all                      time.Duration
	rssBefore, rssUnforced, rssIdle, rssBusy int64
	mBefore, m0, m1                          map[string]float64
	want                                     int64 // deliveries the burst should make
}

func run(c config) error {
	ctx := context.Background()
	dbURL, drop, err := benchdb.Scratch(ctx, c.admin, "att_livebench_")
	if err != nil {
		return err
	}
	defer drop()
	d, err := db.Open(ctx, dbURL)
	if err != nil {
		return err
	}
	defer d.Close()
	orgs, err := seedOrgs(ctx, d, c.orgs)
	if err != nil {
		return err
	}
	srv, err := startServer(dbURL, c.memRate)
	if err != nil {
		return err
	}
	defer srv.close()
	var f figures
	if f.rssBefore, f.mBefore, err = srv.warmUp(orgs[0].key); err != nil {
		return err
	}
	start := time.Now()
	subs, err := openSubscribers(srv.addr, orgs, c.subs, c.subs*c.events/c.orgs)
	if err != nil {
		return err
	}
	f.setup = time.Since(start)
	if err := f.idle(srv, c); err != nil {
		return err
	}
	if err := f.burst(srv, subs, orgs, c); err != nil {
		return err
	}
	report(c, f, subs)
	if subs.got.Load() < f.want {
		return fmt.Errorf("only %d of %d deliveries arrived", subs.got.Load(), f.want)
	}
	return nil
}

// seedOrgs migrates the database and creates n organizations.
func seedOrgs(ctx context.Context, d *db.DB, n int) ([]org, error) {
	if _, err := d.Migrate(ctx); err != nil {
		return nil, err
	}
	orgSvc := db.NewOrgService(d)
	var orgs []org
	for i := range n {
		oid, _, key, err := orgSvc.CreateOrg(ctx, fmt.Sprintf("bench-%03d", i))
		if err != nil {
			return nil, err
		}
		orgs = append(orgs, org{oid, key})
	}
	return orgs, nil
}

// idle waits until the server counts every subscription, lets them idle,
// and takes the server's memory, profiles and metrics.
func (f *figures) idle(srv *server, c config) error {
	if err := waitMetric(srv.base, "att_live_subscriptions", float64(c.subs), true); err != nil {
		return err
	}
	time.Sleep(3 * time.Second) // idle: let the handshakes' garbage and goroutines settle
	var err error
	if f.rssUnforced, err = rss(srv.pid()); err != nil {
		return err
	}
	if f.rssIdle, err = settledRSS(srv.pid(), srv.debugAddr); err != nil {
		return err
	}
	if err := saveProfiles(srv.debugAddr, c.profiles); err != nil {
		return err
	}
	f.m0, err = promtext.Scrape(srv.base)
	return err
}

// burst writes c.events mutations spread over the organizations (each
// event reaches the c.subs/c.orgs subscribers of its organization), waits
// up to 2 minutes for every delivery, and closes the subscriptions.
func (f *figures) burst(srv *server, subs *subscribers, orgs []org, c config) error {
	start := time.Now()
	if err := writeBurst(srv.base, orgs, c.events, c.writers); err != nil {
		return err
	}
	f.written = time.Since(start)
	for i := range c.events {
		f.want += int64(subsOf(i%c.orgs, c.subs, c.orgs))
	}
	deadline := time.Now().Add(2 * time.Minute)
	for subs.got.Load() < f.want && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	f.all = time.Since(start)
	var err error
	if f.m1, err = promtext.Scrape(srv.base); err != nil {
		return err
	}
	f.rssBusy, _ = rss(srv.pid())
	subs.close()
	return nil
}

// report prints what the run measured.
func report(c config, f figures, subs *subscribers) {
	lat := subs.sorted()
	per := func(name string) float64 { return (f.m0[name] - f.mBefore[name]) / float64(c.subs) }
	reads := f.m1["att_live_log_reads_total"] - f.m0["att_live_log_reads_total"]
	wakes := f.m1["att_live_wakeups_total"] - f.m0["att_live_wakeups_total"]
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Printf("livebench: %d websocket subscriptions over %d organizations, server in its own process, loopback\n", c.subs, c.orgs)
	fmt.Printf("  subscribed in %s\n", f.setup.Round(time.Millisecond))
	fmt.Printf("  server RSS (after a GC that returns freed memory): %.1f MiB before, %.1f MiB with the subscriptions idle: %.1f KiB per idle subscription (connection included)\n",
		mib(f.rssBefore), mib(f.rssIdle), float64(f.rssIdle-f.rssBefore)/1024/float64(c.subs))
	fmt.Printf("  of which, per subscription: %.2f goroutines, %.1f KiB of goroutine stacks, %.1f KiB of heap in use\n",
		per("go_goroutines"), per("go_memstats_stack_inuse_bytes")/1024, per("go_memstats_heap_inuse_bytes")/1024)
	fmt.Printf("  (before that GC: %.1f KiB per subscription; heap profile and goroutine dump in %s)\n",
		float64(f.rssUnforced-f.rssBefore)/1024/float64(c.subs), c.profiles)
	fmt.Printf("  burst: %d events (mutations by %d writers, %s to write), %d deliveries expected, %d received in %s\n",
		c.events, c.writers, f.written.Round(time.Millisecond), f.want, subs.got.Load(), f.all.Round(time.Millisecond))
	fmt.Printf("  commit to receipt: p50 %s, p99 %s, max %s\n", pct(lat, 50), pct(lat, 99), pct(lat, 100))
	fmt.Printf("  log reads %.0f over %.0f wake-ups during the burst: %.2f statements per wake-up (for all %d subscribers)\n",
		reads, wakes, reads/math.Max(wakes, 1), c.subs)
	fmt.Printf("  server: %.0f events handed to subscribers, %.0f slow-consumer closes; connections the server ended: %d\n",
		f.m1["att_live_events_delivered_total"]-f.m0["att_live_events_delivered_total"],
		f.m1["att_live_slow_consumer_closes_total"]-f.m0["att_live_slow_consumer_closes_total"], subs.dropped.Load())
	if e, ok := subs.dropErr.Load().(string); ok {
		fmt.Printf("  (the last of them: %s)\n", e)
	}
	fmt.Printf("  server's collector target: GOGC=%.0f idle, %.0f after the burst; collections during the burst: %.0f\n",
		f.m0["go_gc_gogc_percent"], f.m1["go_gc_gogc_percent"], f.m1["go_gc_duration_seconds_count"]-f.m0["go_gc_duration_seconds_count"])
	fmt.Printf("  server RSS after the burst: %.1f MiB; load average: %s", mib(f.rssBusy), load)
}

func mib(b int64) float64 { return float64(b) / (1 << 20) }

func pct(sorted []float64, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(p/100*float64(len(sorted)))) - 1
	i = max(0, min(i, len(sorted)-1))
	return time.Duration(sorted[i] * float64(time.Second)).Round(time.Millisecond)
}
