// Package localpg decides which Postgres the service uses when the
// DATABASE_URL environment variable is unset: an existing server on
// 127.0.0.1:5432 if one answers, otherwise a private cluster started from the
// Postgres binaries installed on the machine.
package localpg

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
)

// hint tells the user how to bypass local discovery entirely.
const hint = "set DATABASE_URL=postgres://user:pass@host:5432/db?sslmode=disable"

// ErrNoPostgres is returned (wrapped) by Resolve when no server answers at
// Options.Probe and no initdb/pg_ctl binaries are installed; its message says
// how to set DATABASE_URL.
var ErrNoPostgres = errors.New("localpg: no Postgres found on this machine; " + hint)

// Options tunes Resolve; the zero value is the production behaviour.
//
// StateDir defaults to $XDG_STATE_HOME/agenttrust/pg, else
// ~/.local/state/agenttrust/pg. When the process runs as root, Postgres must
// run as an unprivileged user (postgres if it exists, else nobody) that cannot
// traverse /root, so the default becomes /var/lib/agenttrust/pg, or
// $TMPDIR/agenttrust-pg if that cannot be created. An explicit StateDir must
// then be reachable by that user (every parent directory searchable).
type Options struct {
	Probe    string                       // host:port to try first; default "127.0.0.1:5432"
	User     string                       // role to connect as on the probed server; default "postgres"
	Database string                       // database to use/create; default "agenttrust"
	StateDir string                       // where a private cluster lives; see above for the default
	LookPath func(string) (string, error) // default exec.LookPath, then /usr/lib/postgresql/*/bin (newest first)
	Logger   *slog.Logger                 // may be nil
}

// Result says which Postgres Resolve chose.
type Result struct {
	URL    string                          // postgres://... DSN usable by pgx (sslmode=disable)
	Source string                          // "probe" (existing server) or "private" (cluster in StateDir)
	Stop   func(ctx context.Context) error // stops a private cluster this Resolve started; otherwise a no-op
}

// Resolve finds or starts a Postgres server and makes sure Options.Database
// exists on it. It returns an error wrapping ErrNoPostgres when nothing answers
// and no binaries are found, or the initdb/pg_ctl/SQL error (with a
// DATABASE_URL hint) when a private cluster cannot be started.
func Resolve(ctx context.Context, opts Options) (Result, error) {
	opts = withDefaults(opts)
	log := opts.Logger

	probeErr := probe(ctx, opts.Probe)
	if probeErr == nil {
		dsn := makeDSN(opts.User, opts.Probe, opts.Database)
		probeErr = ensureDatabase(ctx, opts.User, opts.Probe, opts.Database)
		if probeErr == nil {
			log.Info("localpg: using existing Postgres", "addr", opts.Probe, "database", opts.Database)
			return Result{URL: dsn, Source: "probe", Stop: func(context.Context) error { return nil }}, nil
		}
		log.Info("localpg: server answers but is unusable; trying a private cluster", "addr", opts.Probe, "err", probeErr)
	} else {
		log.Info("localpg: no Postgres answers", "addr", opts.Probe, "err", probeErr)
	}

	bins, err := findBinaries(opts.LookPath)
	if err != nil {
		log.Info("localpg: no Postgres binaries found", "err", err)
		return Result{}, fmt.Errorf("%w (probe %s: %v; %v)", ErrNoPostgres, opts.Probe, probeErr, err)
	}
	res, err := startPrivate(ctx, opts, bins)
	if err != nil {
		return Result{}, fmt.Errorf("localpg: private Postgres: %w; or %s", err, hint)
	}
	return res, nil
}

func withDefaults(o Options) Options {
	if o.Probe == "" {
		o.Probe = "127.0.0.1:5432"
	}
	if o.User == "" {
		o.User = "postgres"
	}
	if o.Database == "" {
		o.Database = "agenttrust"
	}
	if o.LookPath == nil {
		o.LookPath = lookPath
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o
}

// probe reports whether something accepts TCP connections at addr.
func probe(ctx context.Context, addr string) error {
	d := net.Dialer{Timeout: time.Second}
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	return c.Close()
}

// makeDSN builds a URL for addr: host:port, or the path of a Unix socket
// file, dir/.s.PGSQL.<port> (as pgx reads it: host=<dir>&port=<port>).
func makeDSN(user, addr, db string) string {
	if strings.HasPrefix(addr, "/") {
		q := url.Values{"host": {filepath.Dir(addr)}, "port": {strings.TrimPrefix(filepath.Base(addr), ".s.PGSQL.")}, "sslmode": {"disable"}}
		u := url.URL{Scheme: "postgres", User: url.User(user), Host: "localhost", Path: "/" + db, RawQuery: q.Encode()}
		return u.String()
	}
	u := url.URL{Scheme: "postgres", User: url.User(user), Host: addr, Path: "/" + db, RawQuery: "sslmode=disable"}
	return u.String()
}

// ensureDatabase connects to the maintenance database "postgres" at addr and
// creates db unless it exists. A concurrent creator (42P04) is not an error.
func ensureDatabase(ctx context.Context, user, addr, db string) error {
	cfg, err := pgx.ParseConfig(makeDSN(user, addr, "postgres"))
	if err != nil {
		return err
	}
	cfg.ConnectTimeout = 2 * time.Second
	sqldb := stdlib.OpenDB(*cfg)
	defer sqldb.Close()

	var exists bool
	err = sqldb.QueryRowContext(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", db).Scan(&exists)
	if err != nil || exists {
		return err
	}
	_, err = sqldb.ExecContext(ctx, "CREATE DATABASE "+quoteIdent(db))
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "42P04" { // duplicate_database
		return nil
	}
	return err
}

// quoteIdent quotes a Postgres identifier, doubling embedded quotes.
func quoteIdent(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// lookPath is the default Options.LookPath: PATH first, then the newest
// /usr/lib/postgresql/<version>/bin.
func lookPath(name string) (string, error) {
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	for _, dir := range versionDirs("/usr/lib/postgresql/*/bin") {
		if p, err := exec.LookPath(dir + "/" + name); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s: %w", name, exec.ErrNotFound)
}
