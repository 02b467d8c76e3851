package chaos

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/uptrace/bun/driver/pgdriver"
)

// cluster is a private Postgres cluster in a temporary directory, on its
// own loopback port: the scenario may stop and start it without touching
// the Postgres other tests share.
type cluster struct {
	t        *testing.T
	bin      string // directory of initdb and pg_ctl
	dir      string
	data     string
	port     int
	cred     *syscall.Credential // the postgres user, when we are root
	URL      string              // the scenario's database
	adminURL string
}

// pgBinDir finds initdb and pg_ctl: on PATH, else the newest
// /usr/lib/postgresql/*/bin.
func pgBinDir() (string, bool) {
	if p, err := exec.LookPath("pg_ctl"); err == nil {
		if _, err := exec.LookPath("initdb"); err == nil {
			return filepath.Dir(p), true
		}
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	version := func(d string) float64 {
		v, _ := strconv.ParseFloat(filepath.Base(filepath.Dir(d)), 64)
		return v
	}
	slices.SortFunc(dirs, func(a, b string) int { return int(version(b)*100 - version(a)*100) })
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			if _, err := os.Stat(filepath.Join(d, "pg_ctl")); err == nil {
				return d, true
			}
		}
	}
	return "", false
}

// newCluster initialises and starts a private cluster, or skips the test
// when no Postgres binaries are installed.
func newCluster(t *testing.T) *cluster {
	t.Helper()
	bin, ok := pgBinDir()
	if !ok {
		t.Skip("SKIPPED: no initdb/pg_ctl on PATH or under /usr/lib/postgresql/*/bin, so no private Postgres cluster to restart " +
			"(the shared one on 127.0.0.1:5432 must never be restarted): install the postgresql server package to run this scenario")
	}
	dir, err := os.MkdirTemp("", "chaos-pg-")
	if err != nil {
		t.Fatal(err)
	}
	c := &cluster{t: t, bin: bin, dir: dir, data: filepath.Join(dir, "data")}
	if os.Geteuid() == 0 {
		// Postgres refuses to run as root: run it as postgres (or nobody).
		for _, name := range []string{"postgres", "nobody"} {
			if u, err := user.Lookup(name); err == nil {
				uid, _ := strconv.Atoi(u.Uid)
				gid, _ := strconv.Atoi(u.Gid)
				c.cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
				break
			}
		}
		if c.cred == nil {
			t.Skip("SKIPPED: running as root and neither user postgres nor nobody exists to run a private Postgres cluster")
		}
		if err := os.Chown(dir, int(c.cred.Uid), int(c.cred.Gid)); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		_ = c.pgctl(context.Background(), "-D", c.data, "-m", "immediate", "-w", "stop")
		os.RemoveAll(dir)
	})
	c.port, err = strconv.Atoi(strings.TrimPrefix(freeAddr(t), "127.0.0.1:"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := c.run(ctx, "initdb", "-D", c.data, "-A", "trust", "-U", "postgres", "-E", "UTF8", "--no-locale", "-N"); err != nil {
		t.Fatal(err)
	}
	c.start()
	c.adminURL = fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", c.port)
	c.URL = fmt.Sprintf("postgres://postgres@127.0.0.1:%d/chaos?sslmode=disable", c.port)
	admin := sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(c.adminURL)))
	defer admin.Close()
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE chaos"); err != nil {
		t.Fatal(err)
	}
	return c
}

// start starts the cluster (after a stop, with crash recovery when the stop
// was immediate) and waits until it accepts connections. Durability to disk
// is Postgres' promise, not the service's: fsync is off to spare the
// shared machine's disk.
func (c *cluster) start() {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	opts := fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off -c max_connections=200", c.port, c.dir)
	if err := c.pgctl(ctx, "-D", c.data, "-l", filepath.Join(c.dir, "postgres.log"), "-w", "-t", "120", "-o", opts, "start"); err != nil {
		log, _ := os.ReadFile(filepath.Join(c.dir, "postgres.log"))
		c.t.Fatalf("%v\n%s", err, log)
	}
}

// stop stops the cluster: "fast" (clients are disconnected, a checkpoint
// is written) or "immediate" (every process quits at once, like a crash).
func (c *cluster) stop(mode string) {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := c.pgctl(ctx, "-D", c.data, "-m", mode, "-w", "-t", "120", "stop"); err != nil {
		c.t.Fatal(err)
	}
}

func (c *cluster) pgctl(ctx context.Context, args ...string) error { return c.run(ctx, "pg_ctl", args...) }

func (c *cluster) run(ctx context.Context, prog string, args ...string) error {
	cmd := exec.CommandContext(ctx, filepath.Join(c.bin, prog), args...)
	cmd.Dir = c.dir
	cmd.WaitDelay = 5 * time.Second // a daemon holding our pipes must not hang us
	if c.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: c.cred}
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s %s: %w: %s", prog, strings.Join(args, " "), err, bytes.TrimSpace(out.Bytes()))
	}
	return nil
}
