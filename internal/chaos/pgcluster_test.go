package chaos

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/agenttrust/service/db"
	"github.com/agenttrust/service/db/dbtest"
	"github.com/agenttrust/service/internal/localpg"
)

// cluster is a private Postgres cluster in a temporary directory, on its
// own loopback port: the scenario may stop and start it without touching
// the Postgres other tests share.
type cluster struct {
	bin  string // directory of initdb and pg_ctl
	dir  string
	data string
	port int
	cred *syscall.Credential // the postgres user, when we are root
	URL  string              // a database of its own: chaos
}

// errNoBinaries explains a skip: without the Postgres server binaries there
// is no private cluster, and the shared Postgres must never be restarted or
// crowded by these scenarios' processes.
const errNoBinaries = "SKIPPED: no initdb/pg_ctl on PATH or under /usr/lib/postgresql/*/bin, so no private Postgres cluster " +
	"(the chaos scenarios stop, crash and crowd their Postgres; the shared one on 127.0.0.1:5432 must not be): " +
	"install the PostgreSQL server package (Debian: apt-get install postgresql) to run them"

// newCluster initialises and starts a private cluster for t alone (it may
// stop and start it), or skips t when no Postgres binaries are installed.
func newCluster(t *testing.T) *cluster {
	t.Helper()
	c, err := startCluster()
	if errors.Is(err, errSkip) {
		t.Skip(err.Error())
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.close)
	return c
}

var errSkip = errors.New(errNoBinaries)

var (
	sharedOnce    sync.Once
	sharedCluster *cluster
	sharedErr     error
	dbSeq         atomic.Int64
)

// privateDB returns the URL of a fresh migrated database for t in the run's
// shared private cluster (started on first use, stopped by TestMain). Three
// server processes hold over a hundred connections: the shared Postgres on
// 5432 (max_connections 100, used by every other test) could not spare them.
func privateDB(t *testing.T) string {
	t.Helper()
	sharedOnce.Do(func() {
		if sharedCluster, sharedErr = startCluster(); sharedErr != nil {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		if sharedErr = sharedCluster.createDB(ctx, "chaos_template", ""); sharedErr != nil {
			return
		}
		d, err := db.Open(ctx, sharedCluster.dbURL("chaos_template"))
		if err != nil {
			sharedErr = err
			return
		}
		_, sharedErr = d.Migrate(ctx)
		d.Close()
	})
	if errors.Is(sharedErr, errSkip) {
		t.Skip(sharedErr.Error())
	}
	if sharedErr != nil {
		t.Fatalf("private cluster: %v", sharedErr)
	}
	name := fmt.Sprintf("chaos_%d", dbSeq.Add(1))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := sharedCluster.createDB(ctx, name, "chaos_template"); err != nil {
		t.Fatal(err)
	}
	return sharedCluster.dbURL(name)
}

// closeShared stops the shared cluster, if one was started.
func closeShared() {
	if sharedCluster != nil {
		sharedCluster.close()
	}
}

// startCluster initialises and starts a private cluster in a temporary
// directory, on a free loopback port.
func startCluster() (*cluster, error) {
	bin, err := localpg.BinDir()
	if err != nil {
		return nil, errSkip
	}
	dir, err := os.MkdirTemp("", "chaos-pg-")
	if err != nil {
		return nil, err
	}
	c := &cluster{bin: bin, dir: dir, data: filepath.Join(dir, "data")}
	// Postgres refuses to run as root: as root, run it as postgres (or nobody).
	cred, _, err := localpg.RunAs()
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("%w (%v)", errSkip, err)
	}
	if c.cred = cred; cred != nil {
		if err := os.Chown(dir, int(c.cred.Uid), int(c.cred.Gid)); err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	c.port = l.Addr().(*net.TCPAddr).Port
	l.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := c.run(ctx, "initdb", "-D", c.data, "-A", "trust", "-U", "postgres", "-E", "UTF8", "--no-locale", "-N"); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	if err := c.start(); err != nil {
		c.close()
		return nil, err
	}
	c.URL = c.dbURL("chaos")
	if err := c.createDB(ctx, "chaos", ""); err != nil {
		c.close()
		return nil, err
	}
	return c, nil
}

func (c *cluster) dbURL(name string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", c.port, name)
}

func (c *cluster) createDB(ctx context.Context, name, template string) error {
	admin := dbtest.OpenSQL(c.dbURL("postgres"))
	defer admin.Close()
	q := "CREATE DATABASE " + name
	if template != "" {
		q += " TEMPLATE " + template
	}
	_, err := admin.ExecContext(ctx, q)
	return err
}

// close stops the cluster at once and deletes it.
func (c *cluster) close() {
	_ = c.pgctl(context.Background(), "-D", c.data, "-m", "immediate", "-w", "stop")
	os.RemoveAll(c.dir)
}

// start starts the cluster (after a stop, with crash recovery when the stop
// was immediate) and waits until it accepts connections. Durability to disk
// is Postgres' promise, not the service's: fsync is off to spare the
// shared machine's disk. Commit timestamps are kept, to judge which events
// committed after a webhook endpoint's registration.
func (c *cluster) start() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	opts := fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off -c max_connections=500 -c shared_buffers=64MB -c track_commit_timestamp=on", c.port, c.dir)
	if err := c.pgctl(ctx, "-D", c.data, "-l", filepath.Join(c.dir, "postgres.log"), "-w", "-t", "120", "-o", opts, "start"); err != nil {
		log, _ := os.ReadFile(filepath.Join(c.dir, "postgres.log"))
		return fmt.Errorf("%w\n%s", err, log)
	}
	return nil
}

// stop stops the cluster: "fast" (clients are disconnected, a checkpoint
// is written) or "immediate" (every process quits at once, like a crash).
func (c *cluster) stop(mode string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	return c.pgctl(ctx, "-D", c.data, "-m", mode, "-w", "-t", "120", "stop")
}
func (c *cluster) pgctl(ctx context.Context, args ...string) error {
	return c.run(ctx, "pg_ctl", args...)
}

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
