package localpg

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// binaries are the Postgres programs a private cluster needs.
type binaries struct{ initdb, pgctl string }

func findBinaries(look func(string) (string, error)) (binaries, error) {
	initdb, err := look("initdb")
	if err != nil {
		return binaries{}, err
	}
	pgctl, err := look("pg_ctl")
	if err != nil {
		return binaries{}, err
	}
	return binaries{initdb: initdb, pgctl: pgctl}, nil
}

// BinDir is the directory holding the Postgres programs a private cluster
// needs (initdb and pg_ctl): on PATH, else the newest
// /usr/lib/postgresql/<version>/bin. Tests that run a cluster of their own
// (internal/chaos) find it here.
func BinDir() (string, error) {
	b, err := findBinaries(lookPath)
	if err != nil {
		return "", err
	}
	if dir := filepath.Dir(b.pgctl); dir == filepath.Dir(b.initdb) {
		return dir, nil
	}
	return "", fmt.Errorf("initdb (%s) and pg_ctl (%s) are in different directories", b.initdb, b.pgctl)
}

// versionDirs globs pattern (whose second-to-last element is a version such
// as "15" or "9.6") and returns the matches, highest version first.
func versionDirs(pattern string) []string {
	dirs, _ := filepath.Glob(pattern)
	version := func(dir string) []int {
		var v []int
		for _, s := range strings.Split(filepath.Base(filepath.Dir(dir)), ".") {
			n, err := strconv.Atoi(s)
			if err != nil {
				n = -1
			}
			v = append(v, n)
		}
		return v
	}
	slices.SortStableFunc(dirs, func(a, b string) int { return slices.Compare(version(b), version(a)) })
	return dirs
}

// cluster is a private Postgres cluster living in dir.
type cluster struct {
	bins binaries
	dir  string              // Options.StateDir
	data string              // dir/data
	cred *syscall.Credential // user to run as; nil unless we are root
	log  *slog.Logger
}

// startPrivate initialises (if needed) and starts (unless running) the
// cluster in opts.StateDir, then ensures opts.Database exists on it.
func startPrivate(ctx context.Context, opts Options, bins binaries) (Result, error) {
	c, who, err := newCluster(opts, bins)
	if err != nil {
		return Result{}, err
	}
	unlock, err := c.lock()
	if err != nil {
		return Result{}, err
	}
	defer unlock()

	if _, err := os.Stat(filepath.Join(c.data, "PG_VERSION")); errors.Is(err, fs.ErrNotExist) {
		c.log.Info("localpg: initialising private cluster", "dir", c.data, "initdb", bins.initdb, "user", who)
		if err := c.run(ctx, bins.initdb, "-D", c.data, "-A", "trust", "-U", "postgres", "--encoding", "UTF8", "--no-locale"); err != nil {
			return Result{}, err
		}
	}
	sockDir, err := c.socketDir(c.cred)
	if err != nil {
		return Result{}, err
	}
	port, running, err := c.start(ctx, sockDir, who)
	if err != nil {
		return Result{}, err
	}
	addr := filepath.Join(sockDir, ".s.PGSQL."+strconv.Itoa(port))
	if _, err := os.Stat(addr); err != nil && running {
		// a running cluster without the socket listens on TCP only
		addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	}
	if err := ensureDatabase(ctx, "postgres", addr, opts.Database); err != nil {
		return Result{}, fmt.Errorf("create database %q: %w", opts.Database, err)
	}
	stop := func(context.Context) error { return nil }
	if !running {
		var once sync.Once
		var stopErr error
		stop = func(ctx context.Context) error {
			once.Do(func() { stopErr = c.stop(ctx) })
			return stopErr
		}
	}
	return Result{URL: makeDSN("postgres", addr, opts.Database), Source: "private", Stop: stop}, nil
}

// newCluster is the cluster in opts.StateDir (or the default state
// directory), its directories made and owned by the user it runs as, whose
// name it returns too.
func newCluster(opts Options, bins binaries) (*cluster, string, error) {
	cred, who, err := RunAs()
	if err != nil {
		return nil, "", err
	}
	dir := opts.StateDir
	if dir == "" {
		if dir, err = defaultStateDir(cred != nil); err != nil {
			return nil, "", err
		}
	}
	if dir, err = filepath.Abs(dir); err != nil {
		return nil, "", err
	}
	c := &cluster{bins: bins, dir: dir, data: filepath.Join(dir, "data"), cred: cred, log: opts.Logger}
	// The socket directory is the cluster user's alone: the cluster trusts
	// whoever reaches its socket, so only that user (and root) may.
	if err := os.MkdirAll(filepath.Join(dir, "run"), 0o700); err != nil {
		return nil, "", err
	}
	if err := os.Chmod(filepath.Join(dir, "run"), 0o700); err != nil {
		return nil, "", err
	}
	if cred != nil {
		if err := checkSearchable(dir, cred, who); err != nil {
			return nil, "", err
		}
		if err := chownTree(dir, cred); err != nil {
			return nil, "", err
		}
	}
	return c, who, nil
}

// start starts the cluster on a free port, its socket in sockDir, unless it
// is running; it returns the cluster's port and whether it was running.
func (c *cluster) start(ctx context.Context, sockDir, who string) (port int, running bool, err error) {
	if port, running = c.runningPort(ctx); running {
		c.log.Info("localpg: reusing running private cluster", "dir", c.data, "port", port)
		return port, true, nil
	}
	if port, err = c.freePort(); err != nil {
		return 0, false, err
	}
	// No TCP at all: the private cluster answers only on its Unix socket,
	// in a directory only the cluster's user can enter.
	c.log.Info("localpg: starting private cluster", "dir", c.data, "socket", sockDir, "port", port, "user", who)
	o := fmt.Sprintf("-p %d -k %s -c listen_addresses='' -c unix_socket_permissions=0700", port, shellQuote(sockDir))
	if err := c.run(ctx, c.bins.pgctl, "-D", c.data, "-l", filepath.Join(c.dir, "postgres.log"), "-w", "-o", o, "start"); err != nil {
		return 0, false, err
	}
	_ = os.WriteFile(filepath.Join(c.dir, "port"), []byte(strconv.Itoa(port)+"\n"), 0o644)
	return port, false, nil
}

// socketDir is where the cluster's Unix socket lives: dir/run, or, when that
// path is too long for a socket address (sun_path is about 107 bytes), a
// private directory under the system's temporary directory.
func (c *cluster) socketDir(cred *syscall.Credential) (string, error) {
	sock := filepath.Join(c.dir, "run")
	if len(sock) <= 80 {
		return sock, nil
	}
	sum := sha256.Sum256([]byte(c.dir))
	sock = filepath.Join(os.TempDir(), "agenttrust-pg-"+hex.EncodeToString(sum[:6]))
	if err := os.MkdirAll(sock, 0o700); err != nil {
		return "", err
	}
	if err := os.Chmod(sock, 0o700); err != nil {
		return "", err
	}
	if cred != nil {
		if err := os.Chown(sock, int(cred.Uid), int(cred.Gid)); err != nil {
			return "", err
		}
	}
	return sock, nil
}

func (c *cluster) stop(ctx context.Context) error {
	unlock, err := c.lock()
	if err != nil {
		return err
	}
	defer unlock()
	c.log.Info("localpg: stopping private cluster", "dir", c.data)
	return c.run(ctx, c.bins.pgctl, "-D", c.data, "-m", "fast", "-w", "stop")
}

// lock serialises cluster set-up and shutdown between processes.
func (c *cluster) lock() (unlock func(), err error) {
	f, err := os.OpenFile(filepath.Join(c.dir, "lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", f.Name(), err)
	}
	return func() { f.Close() }, nil // closing releases the flock
}

// run executes a Postgres program as c.cred, returning its output on failure.
func (c *cluster) run(ctx context.Context, bin string, args ...string) error {
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = c.dir
	cmd.WaitDelay = 5 * time.Second
	if c.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: c.cred}
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%s %s: %w: %s", filepath.Base(bin), strings.Join(args, " "), err, bytes.TrimSpace(out))
	}
	return nil
}

// runningPort returns the port of the cluster if pg_ctl says it is running
// (line 4 of postmaster.pid holds the port).
func (c *cluster) runningPort(ctx context.Context) (int, bool) {
	pid, err := os.ReadFile(filepath.Join(c.data, "postmaster.pid"))
	if err != nil || c.run(ctx, c.bins.pgctl, "-D", c.data, "status") != nil {
		return 0, false
	}
	lines := strings.Split(string(pid), "\n")
	if len(lines) < 4 {
		return 0, false
	}
	port, err := strconv.Atoi(strings.TrimSpace(lines[3]))
	return port, err == nil && port > 0
}

// freePort returns the port recorded by the previous start if it is still
// free (keeping the URL stable), else a fresh port chosen by the kernel.
func (c *cluster) freePort() (int, error) {
	if b, err := os.ReadFile(filepath.Join(c.dir, "port")); err == nil {
		if p, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && p > 0 {
			if l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p))); err == nil {
				l.Close()
				return p, nil
			}
		}
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// RunAs returns the unprivileged user Postgres must run as when we are root
// (postgres if it exists, else nobody), or nil when we are not root.
func RunAs() (*syscall.Credential, string, error) {
	if os.Geteuid() != 0 {
		return nil, "", nil
	}
	for _, name := range []string{"postgres", "nobody"} {
		u, err := user.Lookup(name)
		if err != nil {
			continue
		}
		uid, err1 := strconv.ParseUint(u.Uid, 10, 32)
		gid, err2 := strconv.ParseUint(u.Gid, 10, 32)
		if err1 == nil && err2 == nil {
			return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, name, nil
		}
	}
	return nil, "", errors.New("running as root and neither user postgres nor nobody exists")
}

// defaultStateDir is documented on Options.
func defaultStateDir(root bool) (string, error) {
	if root {
		if err := os.MkdirAll("/var/lib/agenttrust/pg", 0o755); err == nil {
			return "/var/lib/agenttrust/pg", os.Chmod("/var/lib/agenttrust", 0o755)
		}
		return filepath.Join(os.TempDir(), "agenttrust-pg"), nil
	}
	if x := os.Getenv("XDG_STATE_HOME"); filepath.IsAbs(x) {
		return filepath.Join(x, "agenttrust", "pg"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("no state directory: %w", err)
	}
	return filepath.Join(home, ".local", "state", "agenttrust", "pg"), nil
}

// checkSearchable reports a clear error when a parent of dir cannot be
// traversed by cred (initdb would otherwise fail obscurely).
func checkSearchable(dir string, cred *syscall.Credential, who string) error {
	for p := filepath.Dir(dir); ; p = filepath.Dir(p) {
		fi, err := os.Stat(p)
		if err != nil {
			return err
		}
		st, ok := fi.Sys().(*syscall.Stat_t)
		perm := fi.Mode().Perm()
		if ok && perm&0o001 == 0 && !(st.Uid == cred.Uid && perm&0o100 != 0) && !(st.Gid == cred.Gid && perm&0o010 != 0) {
			return fmt.Errorf("%s is not searchable by user %s, which runs Postgres because we are root: chmod o+x it or choose another state directory", p, who)
		}
		if p == filepath.Dir(p) {
			return nil
		}
	}
}

// chownTree gives dir and everything below it to cred.
func chownTree(dir string, cred *syscall.Credential) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil {
			var fi fs.FileInfo
			if fi, err = d.Info(); err == nil {
				if st, ok := fi.Sys().(*syscall.Stat_t); ok && (st.Uid != cred.Uid || st.Gid != cred.Gid) {
					err = os.Lchown(p, int(cred.Uid), int(cred.Gid))
				}
			}
		}
		if errors.Is(err, fs.ErrNotExist) { // a running server removed a temp file
			return nil
		}
		return err
	})
}

// shellQuote quotes s for the shell pg_ctl uses to run postgres -o options.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// KeyFile is where the service keeps the ENCRYPTION_KEY it generates when
// none is configured: beside the private cluster's state directory.
func KeyFile() (string, error) {
	dir, err := defaultStateDir(os.Geteuid() == 0)
	if err != nil {
		return "", err
	}
	return filepath.Join(filepath.Dir(dir), "encryption.key"), nil
}
