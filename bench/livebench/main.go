// Command livebench measures live events at scale on loopback: it builds and
// starts the service on a fresh database, opens N websocket subscriptions
// (graphql-transport-ws) spread over organizations, and reports the server's
// resident memory per idle subscription, the commit-to-receipt latency of a
// burst of events as every subscriber sees it, and the log statements the
// server ran per wake-up. Run it with `make livebench` (raises the fd limit).
package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"flag"
	"fmt"
	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver
	"io"
	"math"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"

	"github.com/agenttrust/service/bench/promtext"
	"github.com/agenttrust/service/db"
	"github.com/agenttrust/service/id"
	"github.com/agenttrust/service/keyring"
)

func main() {
	subs := flag.Int("subs", 10000, "websocket subscriptions")
	orgs := flag.Int("orgs", 100, "organizations they are spread over")
	events := flag.Int("events", 1000, "events in the burst, spread over the organizations")
	writers := flag.Int("writers", 8, "concurrent writers of the burst")
	memRate := flag.Int("memprofilerate", 0, "the server's runtime.MemProfileRate (1 records every allocation, slowing it; 0 keeps Go's default)")
	profiles := flag.String("profiles", filepath.Join(os.TempDir(), "livebench"), "directory for the server's heap profile and goroutine dump with the subscriptions idle")
	admin := flag.String("admin", "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable", "Postgres server URL")
	flag.Parse()
	if err := run(*admin, *subs, *orgs, *events, *writers, *memRate, *profiles); err != nil {
		fmt.Fprintln(os.Stderr, "livebench:", err)
		os.Exit(1)
	}
}

type org struct{ id, key string }

func run(adminURL string, nSubs, nOrgs, nEvents, nWriters, memRate int, profiles string) error {
	ctx := context.Background()
	adminDB := openSQL(adminURL)
	defer adminDB.Close()
	name := "att_livebench_" + strings.ToLower(id.Random(6))
	if _, err := adminDB.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
		return fmt.Errorf("create database: %w", err)
	}
	defer adminDB.ExecContext(context.Background(), "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)") //nolint:errcheck
	dbURL := strings.Replace(adminURL, "/postgres?", "/"+name+"?", 1)
	d, err := db.Open(ctx, dbURL)
	if err != nil {
		return err
	}
	defer d.Close()
	if _, err := d.Migrate(ctx); err != nil {
		return err
	}
	orgSvc := db.NewOrgService(d)
	var os_ []org
	for i := range nOrgs {
		oid, _, key, err := orgSvc.CreateOrg(ctx, fmt.Sprintf("bench-%03d", i))
		if err != nil {
			return err
		}
		os_ = append(os_, org{oid, key})
	}

	// The server runs as its own process, so its memory is its own. The
	// pprof tag adds a loopback debug listener (pprof.go): profiles, and a
	// forced GC before each memory reading.
	bin := filepath.Join(os.TempDir(), "agenttrust-livebench")
	build := exec.Command("go", "build", "-tags", "pprof", "-o", bin, ".")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		return fmt.Errorf("build the service: %w", err)
	}
	defer os.Remove(bin)
	addr, err := freeAddr()
	if err != nil {
		return err
	}
	debugAddr, err := freeAddr()
	if err != nil {
		return err
	}
	srv := exec.Command(bin)
	srv.Env = append(os.Environ(), "PPROF_MEMPROFILERATE="+strconv.Itoa(memRate), "DATABASE_URL="+dbURL, "LISTEN_ADDR="+addr, "PPROF_ADDR="+debugAddr, "LOG_LEVEL=error",
		"ENCRYPTION_KEY="+keyring.Generate(), "RATE_LIMIT_RPS=1000000", "RATE_LIMIT_BURST=1000000")
	srv.Stderr = os.Stderr
	if err := srv.Start(); err != nil {
		return err
	}
	defer func() { _ = srv.Process.Signal(os.Interrupt); _ = srv.Wait() }()
	base := "http://" + addr
	if err := waitReady(base); err != nil {
		return err
	}
	// Warm the server up (one subscription and one mutation) before the
	// baseline, so one-time costs (parsed documents, pools) are not counted
	// per subscription.
	warm, err := subscribe(addr, os_[0].key)
	if err != nil {
		return fmt.Errorf("subscribe: %w", err)
	}
	if _, err := mutate(base, os_[0].key, 0); err != nil {
		return err
	}
	if _, _, err := warm.ReadMessage(); err != nil {
		return fmt.Errorf("warm-up subscription: %w", err)
	}
	warm.Close()
	if err := waitMetric(base, "att_live_subscriptions", 0, false); err != nil {
		return err
	}
	rssBefore, err := settledRSS(srv.Process.Pid, debugAddr)
	if err != nil {
		return err
	}
	mBefore, err := promtext.Scrape(base)
	if err != nil {
		return err
	}

	// Subscribe.
	var received sync.Mutex
	lat := make([]float64, 0, nSubs*nEvents/nOrgs)
	var got atomic.Int64
	var closing atomic.Bool // set once the benchmark closes the connections
	var dropped atomic.Int64
	var dropErr atomic.Value
	start := time.Now()
	conns := make([]*websocket.Conn, nSubs)
	sem := make(chan struct{}, 64)
	var wg sync.WaitGroup
	var dialErr atomic.Value
	for i := range nSubs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			c, err := subscribe(addr, os_[i%nOrgs].key)
			if err != nil {
				dialErr.Store(err)
				return
			}
			conns[i] = c
			go func() {
				for {
					_, raw, err := c.ReadMessage()
					if err != nil {
						if !closing.Load() {
							dropped.Add(1)
							dropErr.Store(err.Error())
						}
						return
					}
					now := time.Now()
					var m struct {
						Type    string
						Payload struct {
							Data struct{ Events struct{ CreatedAt time.Time } }
						}
					}
					if json.Unmarshal(raw, &m) != nil || m.Type != "next" {
						continue
					}
					received.Lock()
					lat = append(lat, now.Sub(m.Payload.Data.Events.CreatedAt).Seconds())
					received.Unlock()
					got.Add(1)
				}
			}()
		}()
	}
	wg.Wait()
	if err, ok := dialErr.Load().(error); ok {
		return fmt.Errorf("subscribe: %w", err)
	}
	setup := time.Since(start)
	if err := waitMetric(base, "att_live_subscriptions", float64(nSubs), true); err != nil {
		return err
	}
	time.Sleep(3 * time.Second) // idle: let the handshakes' garbage and goroutines settle
	rssUnforced, err := rss(srv.Process.Pid)
	if err != nil {
		return err
	}
	rssIdle, err := settledRSS(srv.Process.Pid, debugAddr)
	if err != nil {
		return err
	}
	if err := saveProfiles(debugAddr, profiles); err != nil {
		return err
	}
	m0, err := promtext.Scrape(base)
	if err != nil {
		return err
	}
	per := func(name string) float64 { return (m0[name] - mBefore[name]) / float64(nSubs) }

	// Burst: nEvents mutations spread over the organizations; each event
	// reaches the nSubs/nOrgs subscribers of its organization.
	burstStart := time.Now()
	var next atomic.Int64
	var werr atomic.Value
	for range nWriters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= nEvents {
					return
				}
				if _, err := mutate(base, os_[i%nOrgs].key, i); err != nil {
					werr.Store(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if err, ok := werr.Load().(error); ok {
		return fmt.Errorf("burst: %w", err)
	}
	written := time.Since(burstStart)
	want := int64(0)
	for i := range nEvents {
		want += int64(subsOf(i%nOrgs, nSubs, nOrgs))
	}
	deadline := time.Now().Add(2 * time.Minute)
	for got.Load() < want && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	all := time.Since(burstStart)
	m1, err := promtext.Scrape(base)
	if err != nil {
		return err
	}
	rssBusy, _ := rss(srv.Process.Pid)
	closing.Store(true)
	for _, c := range conns {
		if c != nil {
			c.Close()
		}
	}

	received.Lock()
	slices.Sort(lat)
	received.Unlock()
	reads := m1["att_live_log_reads_total"] - m0["att_live_log_reads_total"]
	wakes := m1["att_live_wakeups_total"] - m0["att_live_wakeups_total"]
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Printf("livebench: %d websocket subscriptions over %d organizations, server in its own process, loopback\n", nSubs, nOrgs)
	fmt.Printf("  subscribed in %s\n", setup.Round(time.Millisecond))
	fmt.Printf("  server RSS (after a GC that returns freed memory): %.1f MiB before, %.1f MiB with the subscriptions idle: %.1f KiB per idle subscription (connection included)\n",
		mib(rssBefore), mib(rssIdle), float64(rssIdle-rssBefore)/1024/float64(nSubs))
	fmt.Printf("  of which, per subscription: %.2f goroutines, %.1f KiB of goroutine stacks, %.1f KiB of heap in use\n",
		per("go_goroutines"), per("go_memstats_stack_inuse_bytes")/1024, per("go_memstats_heap_inuse_bytes")/1024)
	fmt.Printf("  (before that GC: %.1f KiB per subscription; heap profile and goroutine dump in %s)\n",
		float64(rssUnforced-rssBefore)/1024/float64(nSubs), profiles)
	fmt.Printf("  burst: %d events (mutations by %d writers, %s to write), %d deliveries expected, %d received in %s\n",
		nEvents, nWriters, written.Round(time.Millisecond), want, got.Load(), all.Round(time.Millisecond))
	fmt.Printf("  commit to receipt: p50 %s, p99 %s, max %s\n", pct(lat, 50), pct(lat, 99), pct(lat, 100))
	fmt.Printf("  log reads %.0f over %.0f wake-ups during the burst: %.2f statements per wake-up (for all %d subscribers)\n",
		reads, wakes, reads/math.Max(wakes, 1), nSubs)
	fmt.Printf("  server: %.0f events handed to subscribers, %.0f slow-consumer closes; connections the server ended: %d\n",
		m1["att_live_events_delivered_total"]-m0["att_live_events_delivered_total"],
		m1["att_live_slow_consumer_closes_total"]-m0["att_live_slow_consumer_closes_total"], dropped.Load())
	if e, ok := dropErr.Load().(string); ok {
		fmt.Printf("  (the last of them: %s)\n", e)
	}
	fmt.Printf("  server's collector target: GOGC=%.0f idle, %.0f after the burst; collections during the burst: %.0f\n",
		m0["go_gc_gogc_percent"], m1["go_gc_gogc_percent"], m1["go_gc_duration_seconds_count"]-m0["go_gc_duration_seconds_count"])
	fmt.Printf("  server RSS after the burst: %.1f MiB; load average: %s", mib(rssBusy), load)
	if got.Load() < want {
		return fmt.Errorf("only %d of %d deliveries arrived", got.Load(), want)
	}
	return nil
}

func subsOf(o, nSubs, nOrgs int) int {
	n := nSubs / nOrgs
	if o < nSubs%nOrgs {
		n++
	}
	return n
}

func subscribe(addr, key string) (*websocket.Conn, error) {
	d := websocket.Dialer{Subprotocols: []string{"graphql-transport-ws"}, HandshakeTimeout: 30 * time.Second,
		ReadBufferSize: 1024, WriteBufferSize: 1024}
	c, _, err := d.Dial("ws://"+addr+"/graphql", nil)
	if err != nil {
		return nil, err
	}
	if err := c.WriteJSON(map[string]any{"type": "connection_init", "payload": map[string]any{"Authorization": "Bearer " + key}}); err != nil {
		return nil, err
	}
	var ack struct{ Type string }
	_ = c.SetReadDeadline(time.Now().Add(30 * time.Second))
	if err := c.ReadJSON(&ack); err != nil || ack.Type != "connection_ack" {
		return nil, fmt.Errorf("connection_init: %v %q", err, ack.Type)
	}
	_ = c.SetReadDeadline(time.Time{})
	return c, c.WriteJSON(map[string]any{"type": "subscribe", "id": "1",
		"payload": map[string]any{"query": `subscription { events(types: ["agent.registered"]) { id createdAt } }`}})
}

func mutate(base, key string, i int) (string, error) {
	body, _ := json.Marshal(map[string]any{
		"query": `mutation($in: RegisterAgentInput!) { registerAgent(input: $in) { id } }`,
		"variables": map[string]any{"in": map[string]any{"name": fmt.Sprintf("bench-%d", i), "authorizedActions": []string{"purchase"},
			"spendingLimit": "10", "currency": "USD", "environment": "sandbox"}},
	})
	req, _ := http.NewRequest(http.MethodPost, base+"/graphql", strings.NewReader(string(body)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || strings.Contains(string(raw), `"errors"`) {
		return "", fmt.Errorf("registerAgent: %d %s", resp.StatusCode, raw)
	}
	return string(raw), nil
}

func waitReady(base string) error {
	for range 300 {
		if resp, err := http.Get(base + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("the service never became ready")
}

// waitMetric waits for a metric to reach want (atLeast) or fall to it.
func waitMetric(base, name string, want float64, atLeast bool) error {
	for range 600 {
		m, err := promtext.Scrape(base)
		if err == nil && (atLeast && m[name] >= want || !atLeast && m[name] <= want) {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("%s never reached %v", name, want)
}

// settledRSS collects the server's garbage, returns the freed memory to the
// OS and reads its resident set: memory that live state holds, not garbage
// the collector has yet to reach, whatever GOGC the service runs with.
func settledRSS(pid int, debugAddr string) (int64, error) {
	for range 5 { // each GC also halves the stacks that use under a quarter of theirs
		resp, err := http.Get("http://" + debugAddr + "/debug/freeosmemory")
		if err != nil {
			return 0, fmt.Errorf("force a GC: %w", err)
		}
		resp.Body.Close()
	}
	time.Sleep(500 * time.Millisecond)
	return rss(pid)
}

// saveProfiles writes the server's heap profile and goroutine dump.
func saveProfiles(debugAddr, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for file, path := range map[string]string{"heap.pprof": "heap?gc=1", "goroutines.txt": "goroutine?debug=1"} {
		resp, err := http.Get("http://" + debugAddr + "/debug/pprof/" + path)
		if err != nil {
			return err
		}
		raw, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, file), raw, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// rss reads a process's resident set size in bytes.
func rss(pid int) (int64, error) {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, err := strconv.ParseInt(f[1], 10, 64)
			return kb * 1024, err
		}
	}
	return 0, fmt.Errorf("no VmRSS for %d", pid)
}

func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
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

// openSQL opens database/sql over pgx for url.
func openSQL(url string) *sql.DB {
	db, err := sql.Open("pgx", url)
	if err != nil {
		panic(err) // only an unknown driver fails here
	}
	return db
}
