package chaos

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/pem"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agenttrust/service/client"
	"github.com/agenttrust/service/db"
	"github.com/agenttrust/service/db/dbtest"
	"github.com/agenttrust/service/keyring"
)

// env is one scenario's world: a database, an organization with its key,
// the server processes running against it, and the webhook receivers.
type env struct {
	t      *testing.T
	dbURL  string
	db     *db.DB  // the service's own store, for reading the event log
	sql    *sql.DB // behind the service's back: checks and seeds
	orgID  string
	key    string
	encKey string
	caFile string
	// retrySchedule is WEBHOOK_RETRY_SCHEDULE of every process.
	retrySchedule string
}

// newEnv migrates the database at dbURL (a no-op for a test database cloned
// from the migrated template) and creates the organization.
func newEnv(t *testing.T, dbURL string) *env {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	d, err := db.Open(ctx, dbURL)
	if err != nil {
		t.Fatalf("open %s: %v", dbURL, err)
	}
	t.Cleanup(func() { d.Close() })
	if _, err := d.Migrate(ctx); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	e := &env{t: t, dbURL: dbURL, db: d, encKey: keyring.Generate(), caFile: caFile(t), retrySchedule: "200ms,500ms,1s,2s,5s,10s"}
	e.sql = openSQL(dbURL)
	t.Cleanup(func() { e.sql.Close() })
	if e.orgID, _, e.key, err = db.NewOrgService(d).CreateOrg(ctx, "chaos"); err != nil {
		t.Fatalf("create organization: %v", err)
	}
	return e
}

func openSQL(url string) *sql.DB {
	return dbtest.OpenSQL(url)
}

// reconnect replaces the checking side's connections after a Postgres
// restart (they were cut; the service's own must recover by themselves).
func (e *env) reconnect() {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	d, err := db.Open(ctx, e.dbURL)
	if err != nil {
		e.t.Fatalf("reopen %s: %v", e.dbURL, err)
	}
	old, oldSQL := e.db, e.sql
	e.db, e.sql = d, openSQL(e.dbURL)
	old.Close()
	oldSQL.Close()
	e.t.Cleanup(func() { d.Close() })
}

// client talks to one server process, never retrying by itself: the
// scenarios decide what to retry, with which idempotency key.
func (e *env) client(s *server) *client.Client { return e.clientWith(s, e.key) }

// clientWith is client for the organization of key.
func (e *env) clientWith(s *server, key string) *client.Client {
	c, err := client.New(client.Options{APIKey: key, BaseURL: s.URL, NoRetries: true, Timeout: 20 * time.Second,
		RetryWaitMin: 100 * time.Millisecond, RetryWaitMax: time.Second})
	if err != nil {
		e.t.Fatal(err)
	}
	return c
}

// server is the service's binary running as a child process.
type server struct {
	t    *testing.T
	name string
	bin  string
	env  []string
	addr string // 127.0.0.1:port, kept across restarts
	URL  string

	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{}
	logs *tail
	// starts counts the processes started (the first start and restarts).
	starts int
}

// startServer runs the binary against the env's database, with short
// webhook retries, private networks allowed, the receivers' CA trusted and
// the scenario's extra settings (NAME=value), and waits until /readyz
// answers 200.
func (e *env) startServer(name string, settings ...string) *server {
	e.t.Helper()
	s := &server{t: e.t, name: name, bin: serverBinary(e.t), addr: freeAddr(e.t), logs: &tail{max: 256 << 10}}
	s.URL = "http://" + s.addr
	s.env = append(os.Environ(),
		"DATABASE_URL="+e.dbURL,
		"LISTEN_ADDR="+s.addr,
		"ENCRYPTION_KEY="+e.encKey,
		"LOG_LEVEL=warn",
		"RATE_LIMIT_RPS=100000", "RATE_LIMIT_BURST=100000",
		"WEBHOOK_ALLOW_PRIVATE_NETWORKS=true",
		"WEBHOOK_CA_FILE="+e.caFile,
		"WEBHOOK_RETRY_SCHEDULE="+e.retrySchedule,
		"BOOTSTRAP_API_KEY=",
		"GORACE=halt_on_error=1",
	)
	s.env = append(s.env, settings...)
	s.start()
	e.t.Cleanup(func() {
		s.stop()
		if e.t.Failed() {
			e.t.Logf("server %s log (last %d bytes):\n%s", s.name, s.logs.max, s.logs.String())
		}
	})
	return s
}

func (s *server) start() {
	s.t.Helper()
	s.mu.Lock()
	cmd := exec.Command(s.bin)
	cmd.Env = s.env
	cmd.Stdout = s.logs
	cmd.Stderr = s.logs
	// The server dies with the test process, whatever happens to it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		s.mu.Unlock()
		s.t.Fatalf("start %s: %v", s.name, err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	s.cmd, s.done = cmd, done
	s.starts++
	fmt.Fprintf(s.logs, "--- chaos: process %d of %s started (pid %d)\n", s.starts, s.name, cmd.Process.Pid)
	s.mu.Unlock()
	if err := s.waitReady(90 * time.Second); err != nil {
		s.t.Fatalf("%s: %v\n%s", s.name, err, s.logs.String())
	}
}

// waitReady polls /readyz until it answers 200.
func (s *server) waitReady(timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	hc := &http.Client{Timeout: 3 * time.Second}
	for {
		s.mu.Lock()
		done := s.done
		s.mu.Unlock()
		select {
		case <-done:
			return errors.New("the process exited before it was ready")
		default:
		}
		resp, err := hc.Get(s.URL + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("not ready within %s (last: %v)", timeout, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// kill sends SIGKILL: no drain, no deferred function, no River shutdown.
func (s *server) kill() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		return
	}
	fmt.Fprintf(s.logs, "--- chaos: SIGKILL to pid %d\n", s.cmd.Process.Pid)
	_ = s.cmd.Process.Signal(syscall.SIGKILL)
	<-s.done
	s.cmd = nil
}

// stop ends the process gracefully (SIGTERM), or kills it after 40 s.
func (s *server) stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(40 * time.Second):
		_ = s.cmd.Process.Signal(syscall.SIGKILL)
		<-s.done
	}
	s.cmd = nil
}

// pid is the running process's id (0 when none runs).
func (s *server) pid() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		return 0
	}
	select {
	case <-s.done:
		return 0
	default:
		return s.cmd.Process.Pid
	}
}

// freeAddr returns a loopback address with a port nobody listens on now.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// caFile writes the certificate every httptest TLS server uses, for
// WEBHOOK_CA_FILE.
func caFile(t *testing.T) string {
	t.Helper()
	ts := httptest.NewTLSServer(http.NotFoundHandler())
	defer ts.Close()
	path := filepath.Join(t.TempDir(), "receivers.pem")
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ts.Certificate().Raw}), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// tail keeps the last max bytes written to it.
type tail struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (w *tail) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	if over := len(w.buf) - w.max; over > 0 {
		w.buf = append(w.buf[:0], w.buf[over:]...)
	}
	return len(p), nil
}

func (w *tail) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return string(bytes.Clone(w.buf))
}

// eventually polls cond until it holds or timeout passes, and reports
// whether it held.
func eventually(timeout time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(timeout)
	for {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(50 * time.Millisecond)
	}
}
