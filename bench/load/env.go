package main

import (
	"context"
	"database/sql"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/agenttrust/service/bench/benchdb"
	"github.com/agenttrust/service/bench/promtext"
	"github.com/agenttrust/service/db"
	"github.com/agenttrust/service/id"
	"github.com/agenttrust/service/keyring"
)

// env is what every scenario shares: the Postgres server, a migrated template
// database each scenario's database is copied from, the service binary built
// once, and a temporary directory; close removes all of them.
type env struct {
	admin    string // URL of the Postgres server's maintenance database
	template string // name of the migrated template database
	bin      string // the service binary
	self     string // this program, for its floor subcommand
	tmp      string
	encKey   string // ENCRYPTION_KEY shared by every server process
	mu       sync.Mutex
	dbs      []string // created databases, dropped by close
	monitor  *sql.DB  // one held connection for backends, so that sampling never needs a new one
}

// newEnv builds the service, creates and migrates the template database.
func newEnv(ctx context.Context, admin string) (*env, error) {
	e := &env{admin: admin, encKey: keyring.Generate()}
	var err error
	if e.tmp, err = os.MkdirTemp("", "agenttrust-load"); err != nil {
		return nil, err
	}
	if e.self, err = os.Executable(); err != nil {
		return nil, err
	}
	root, err := benchdb.ModuleRoot()
	if err != nil {
		return nil, err
	}
	e.bin = filepath.Join(e.tmp, "agenttrust")
	build := exec.CommandContext(ctx, "go", "build", "-o", e.bin, ".")
	build.Dir, build.Stdout, build.Stderr = root, os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		e.close()
		return nil, fmt.Errorf("build the service: %w", err)
	}
	e.template = "att_load_tmpl_" + strings.ToLower(id.Random(6))
	if err := e.exec(ctx, "CREATE DATABASE "+e.template); err != nil {
		e.close()
		return nil, fmt.Errorf("create template database: %w", err)
	}
	e.dbs = append(e.dbs, e.template)
	d, err := db.Open(ctx, e.url(e.template))
	if err != nil {
		e.close()
		return nil, err
	}
	_, err = d.Migrate(ctx)
	d.Close()
	if err != nil {
		e.close()
		return nil, fmt.Errorf("migrate the template: %w", err)
	}
	return e, nil
}

// close drops every database this run created and removes the binary.
func (e *env) close() {
	e.mu.Lock()
	dbs := e.dbs
	e.dbs = nil
	e.mu.Unlock()
	for i := len(dbs) - 1; i >= 0; i-- {
		if err := e.exec(context.Background(), "DROP DATABASE IF EXISTS "+dbs[i]+" WITH (FORCE)"); err != nil {
			fmt.Fprintln(os.Stderr, "load: drop database:", err)
		}
	}
	if e.tmp != "" {
		os.RemoveAll(e.tmp)
	}
	if e.monitor != nil {
		e.monitor.Close()
	}
}

// newDB copies the template into a fresh database and returns its URL and a
// function that drops it (close drops it too, should the scenario fail).
func (e *env) newDB(ctx context.Context, label string) (string, func(), error) {
	name := "att_load_" + label + "_" + strings.ToLower(id.Random(6))
	if err := e.exec(ctx, "CREATE DATABASE "+name+" TEMPLATE "+e.template); err != nil {
		return "", nil, fmt.Errorf("create database: %w", err)
	}
	e.mu.Lock()
	e.dbs = append(e.dbs, name)
	e.mu.Unlock()
	drop := func() {
		if err := e.exec(context.Background(), "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			fmt.Fprintln(os.Stderr, "load: drop database:", err)
			return
		}
		e.mu.Lock()
		defer e.mu.Unlock()
		for i, n := range e.dbs {
			if n == name {
				e.dbs = append(e.dbs[:i], e.dbs[i+1:]...)
				break
			}
		}
	}
	return e.url(name), drop, nil
}

func (e *env) url(name string) string {
	u, _ := url.Parse(e.admin)
	u.Path = "/" + name
	q := u.Query()
	if q.Get("sslmode") == "" {
		q.Set("sslmode", "disable")
	}
	u.RawQuery = q.Encode()
	return u.String()
}

func (e *env) exec(ctx context.Context, q string) error {
	conn := benchdb.Open(e.admin)
	defer conn.Close()
	_, err := conn.ExecContext(ctx, q)
	return err
}

// backends counts the Postgres connections open to a database, whoever holds them.
func (e *env) backends(ctx context.Context, dbURL string) (int, error) {
	u, err := url.Parse(dbURL)
	if err != nil {
		return 0, err
	}
	e.mu.Lock()
	if e.monitor == nil {
		e.monitor = benchdb.Open(e.admin)
		e.monitor.SetMaxOpenConns(1)
		e.monitor.SetMaxIdleConns(1)
	}
	conn := e.monitor
	e.mu.Unlock()
	var n int
	// A shared server may be out of connections for a moment: retry.
	for range 10 {
		if err = conn.QueryRowContext(ctx, `SELECT count(*) FROM pg_stat_activity WHERE datname = $1`, strings.TrimPrefix(u.Path, "/")).Scan(&n); err == nil {
			return n, nil
		}
		time.Sleep(time.Second)
	}
	return n, err
}

// proc is a server process under measurement: the service or a baseline.
type proc struct {
	name string
	cmd  *exec.Cmd
	base string // http://host:port
	addr string
	done chan struct{}
	err  error // from Wait, once done is closed
	mu   sync.Mutex
	peak int64 // highest VmRSS seen since the last resetPeak
	stop chan struct{}
}

// served is a scenario's database and the service running on it, with n
// organizations (and their keys) when asked for.
type served struct {
	dbURL string
	svc   *proc
	orgs  []org
	drop  func()
}

// close stops the service and drops the database.
func (s *served) close() {
	s.svc.close()
	s.drop()
}

// serve makes a database for a scenario (label names it), starts the
// service on it with the extra environment, and creates orgs organizations.
func (e *env) serve(ctx context.Context, label string, orgs int, extra ...string) (*served, error) {
	dbURL, drop, err := e.newDB(ctx, label)
	if err != nil {
		return nil, err
	}
	s := &served{dbURL: dbURL, drop: drop}
	if s.svc, err = e.startService(ctx, dbURL, extra...); err != nil {
		drop()
		return nil, err
	}
	if orgs > 0 {
		if s.orgs, err = newOrgs(ctx, dbURL, orgs); err != nil {
			s.close()
			return nil, err
		}
	}
	return s, nil
}

// startService starts the service binary on dbURL with the rate limit out of
// the way and extra settings (KEY=value), and waits until it is ready.
func (e *env) startService(ctx context.Context, dbURL string, extra ...string) (*proc, error) {
	addr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(e.bin)
	cmd.Env = append(os.Environ(), "DATABASE_URL="+dbURL, "LISTEN_ADDR="+addr, "LOG_LEVEL=error",
		"ENCRYPTION_KEY="+e.encKey, "RATE_LIMIT_RPS=10000000", "RATE_LIMIT_BURST=10000000")
	cmd.Env = append(cmd.Env, extra...)
	return startProc(ctx, "service", cmd, addr, "/readyz")
}

// startFloor starts this program's floor subcommand: the bare pgx + JSON
// handler in its own process, so that its memory and CPU are its own.
func (e *env) startFloor(ctx context.Context, dbURL, orgID string) (*proc, error) {
	addr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(e.self, "floor", "-db", dbURL, "-org", orgID, "-addr", addr)
	return startProc(ctx, "floor", cmd, addr, "/healthz")
}

func startProc(ctx context.Context, name string, cmd *exec.Cmd, addr, ready string) (*proc, error) {
	cmd.Stderr = os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL} // never outlive the load tool
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	p := &proc{name: name, cmd: cmd, addr: addr, base: "http://" + addr, done: make(chan struct{}), stop: make(chan struct{})}
	go func() { p.err = cmd.Wait(); close(p.done) }()
	go p.sample()
	deadline := time.Now().Add(60 * time.Second)
	for {
		if resp, err := http.Get(p.base + ready); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return p, nil
			}
		}
		select {
		case <-p.done:
			return nil, fmt.Errorf("%s exited before it was ready: %v", name, p.err)
		case <-ctx.Done():
			p.close()
			return nil, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			p.close()
			return nil, fmt.Errorf("%s was not ready within a minute", name)
		}
	}
}

// sample records the peak resident set size every 50 ms until close.
func (p *proc) sample() {
	t := time.NewTicker(50 * time.Millisecond)
	defer t.Stop()
	for {
		if rss, err := p.rss(); err == nil {
			p.mu.Lock()
			p.peak = max(p.peak, rss)
			p.mu.Unlock()
		}
		select {
		case <-p.stop:
			return
		case <-t.C:
		}
	}
}

// resetPeak starts a new peak RSS window (after seeding and warm-up).
func (p *proc) resetPeak() {
	rss, _ := p.rss()
	p.mu.Lock()
	p.peak = rss
	p.mu.Unlock()
}

func (p *proc) peakRSS() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.peak
}

// close asks the process to stop (SIGINT: the service drains) and kills it
// after 40 s.
func (p *proc) close() {
	select {
	case <-p.stop:
		return
	default:
		close(p.stop)
	}
	_ = p.cmd.Process.Signal(os.Interrupt)
	select {
	case <-p.done:
	case <-time.After(40 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

// rss is the process's resident set size in bytes.
func (p *proc) rss() (int64, error) { return statusBytes(p.cmd.Process.Pid, "VmRSS:") }

// statusBytes reads a size field (VmRSS:, VmHWM:) of /proc/<pid>/status, in bytes.
func statusBytes(pid int, field string) (int64, error) {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == field {
			kb, err := strconv.ParseInt(f[1], 10, 64)
			return kb * 1024, err
		}
	}
	return 0, fmt.Errorf("no %s for %d", field, pid)
}

// cpu is the process's user + system CPU time so far, from /proc/<pid>/stat
// (in clock ticks of 1/100 s, USER_HZ on Linux).
func (p *proc) cpu() time.Duration {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	// The command name (field 2) may hold spaces; fields count from after it.
	s := string(raw)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 13 {
		return 0
	}
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(utime+stime) * 10 * time.Millisecond
}

// metrics scrapes the service's /metrics into name → value, summing the
// series of a labelled metric.
func (p *proc) metrics() (map[string]float64, error) { return promtext.Scrape(p.base) }

// waitMetric waits until a metric of the service reaches want.
func (p *proc) waitMetric(name string, want float64, within time.Duration) error {
	deadline := time.Now().Add(within)
	var last float64
	for time.Now().Before(deadline) {
		m, err := p.metrics()
		if err == nil {
			if last = m[name]; last >= want {
				return nil
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("%s reached %v, not %v, within %s", name, last, want, within)
}

func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}
