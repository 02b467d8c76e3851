package localpg_test

import (
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"log/slog"
	"net"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/agenttrust/service/internal/localpg"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

func openDB(t *testing.T, dsn string) *sql.DB {
	t.Helper()
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.ConnectTimeout = 2 * time.Second
	db := stdlib.OpenDB(*cfg)
	t.Cleanup(func() { db.Close() })
	return db
}

func selectOne(ctx context.Context, db *sql.DB) error {
	var n int
	if err := db.QueryRowContext(ctx, "SELECT 1").Scan(&n); err != nil {
		return err
	}
	if n != 1 {
		return errors.New("SELECT 1 returned something else")
	}
	return nil
}

func testLogger(t *testing.T) *slog.Logger {
	return slog.New(slog.NewTextHandler(t.Output(), nil))
}

// unusedAddr returns a 127.0.0.1 address nothing listens on.
func unusedAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

func TestResolveProbe(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	if c, err := net.DialTimeout("tcp", "127.0.0.1:5432", time.Second); err != nil {
		t.Skipf("no Postgres on 127.0.0.1:5432: %v", err)
	} else {
		c.Close()
	}
	// Spaces and quotes check identifier quoting and URL escaping.
	name := `localpg_test_` + rand.Text()[:10] + ` "q"`
	t.Cleanup(func() {
		db, err := sql.Open("pgx", "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable")
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		q := `DROP DATABASE IF EXISTS "` + strings.ReplaceAll(name, `"`, `""`) + `" WITH (FORCE)`
		if _, err := db.ExecContext(context.Background(), q); err != nil {
			t.Errorf("drop %s: %v", name, err)
		}
	})

	opts := localpg.Options{Database: name, Logger: testLogger(t), LookPath: func(string) (string, error) { return "", exec.ErrNotFound }}
	res, err := localpg.Resolve(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	if res.Source != "probe" || !strings.Contains(res.URL, "sslmode=disable") {
		t.Fatalf("got %+v", res)
	}
	var got string
	db := openDB(t, res.URL)
	if err := db.QueryRowContext(ctx, "SELECT current_database()").Scan(&got); err != nil || got != name {
		t.Fatalf("current_database() = %q, %v; want %q", got, err, name)
	}

	res2, err := localpg.Resolve(ctx, opts)
	if err != nil || res2.URL != res.URL || res2.Source != "probe" {
		t.Fatalf("second Resolve = %+v, %v", res2, err)
	}
	if err := res2.Stop(ctx); err != nil {
		t.Fatalf("Stop on probe: %v", err)
	}
	if err := selectOne(ctx, db); err != nil {
		t.Fatal(err)
	}
}

func TestResolveNothing(t *testing.T) {
	t.Parallel()
	_, err := localpg.Resolve(t.Context(), localpg.Options{
		Probe:    unusedAddr(t),
		Logger:   testLogger(t),
		LookPath: func(string) (string, error) { return "", exec.ErrNotFound },
	})
	if !errors.Is(err, localpg.ErrNoPostgres) {
		t.Fatalf("err = %v, want ErrNoPostgres", err)
	}
	if !strings.Contains(err.Error(), "DATABASE_URL") {
		t.Fatalf("message does not mention DATABASE_URL: %v", err)
	}
}

func TestResolvePrivate(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a Postgres cluster")
	}
	t.Parallel()
	ctx, cancel := context.WithTimeout(t.Context(), 25*time.Second)
	defer cancel()

	// Not t.TempDir: its 0700 parents would stop the unprivileged user we
	// switch to when the tests run as root.
	dir, err := os.MkdirTemp("", "localpg-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	opts := localpg.Options{Probe: unusedAddr(t), StateDir: dir + "/pg", Logger: testLogger(t)} // default Database

	res, err := localpg.Resolve(ctx, opts)
	if errors.Is(err, localpg.ErrNoPostgres) {
		t.Skipf("no Postgres binaries: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { res.Stop(context.Background()) })
	if res.Source != "private" {
		t.Fatalf("Source = %q", res.Source)
	}
	if err := selectOne(ctx, openDB(t, res.URL)); err != nil {
		t.Fatal(err)
	}
	// Only a Unix socket in a directory of the cluster user's alone; no TCP.
	u, err := url.Parse(res.URL)
	if err != nil || u.Query().Get("host") != dir+"/pg/run" || u.Query().Get("port") == "" {
		t.Fatalf("URL %s is not the private socket", res.URL)
	}
	if fi, err := os.Stat(dir + "/pg/run"); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("socket directory: %v %v", fi.Mode(), err)
	}
	port, _ := os.ReadFile(dir + "/pg/port")
	if c, err := net.DialTimeout("tcp", "127.0.0.1:"+strings.TrimSpace(string(port)), time.Second); err == nil {
		c.Close()
		t.Fatal("the private cluster listens on TCP")
	}

	// A second Resolve reuses the running cluster and must not stop it.
	again, err := localpg.Resolve(ctx, opts)
	if err != nil || again.URL != res.URL || again.Source != "private" {
		t.Fatalf("second Resolve = %+v, %v; want URL %s", again, err, res.URL)
	}
	if err := again.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	if err := selectOne(ctx, openDB(t, res.URL)); err != nil {
		t.Fatalf("cluster gone after no-op Stop: %v", err)
	}

	if err := res.Stop(ctx); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	if err := selectOne(ctx, openDB(t, res.URL)); err == nil {
		t.Fatal("server still answers after Stop")
	}

	// Restarting keeps the recorded port, so the URL is stable.
	third, err := localpg.Resolve(ctx, opts)
	if err != nil || third.URL != res.URL {
		t.Fatalf("restart = %+v, %v; want URL %s", third, err, res.URL)
	}
	if err := third.Stop(ctx); err != nil {
		t.Fatalf("Stop after restart: %v", err)
	}
}
