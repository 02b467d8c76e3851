// Package dbtest gives each test its own Postgres database, cloned from a
// migrated template so that isolation stays cheap.
package dbtest

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"sync"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver

	"github.com/agenttrust/service/auth"
	"github.com/agenttrust/service/db"
	"github.com/agenttrust/service/id"
)

// AdminURL is the server tests run against: $TEST_DATABASE_URL or the local default.
func AdminURL() string {
	if u := os.Getenv("TEST_DATABASE_URL"); u != "" {
		return u
	}
	return "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
}

var (
	once     sync.Once
	template string
	onceErr  error
)

// New returns a fresh, migrated database for t, dropped when t ends.
func New(t testing.TB) *db.DB {
	t.Helper()
	d, _ := NewWithURL(t)
	return d
}

// NewWithURL is New that also returns the database's URL (for a second pool
// or a process under test).
func NewWithURL(t testing.TB) (*db.DB, string) {
	t.Helper()
	once.Do(func() { template, onceErr = ensureTemplate(context.Background()) })
	if onceErr != nil {
		t.Fatalf("prepare template database: %v", onceErr)
	}
	return create(t, "att_t_", "TEMPLATE "+template)
}

// Admin creates an organization named name in d and returns its first
// key's principal, an admin's.
func Admin(t testing.TB, d *db.DB, name string) auth.Principal {
	t.Helper()
	orgID, keyID, _, err := db.NewOrgService(d).CreateOrg(context.Background(), name)
	if err != nil {
		t.Fatalf("create organization %s: %v", name, err)
	}
	return auth.Principal{OrgID: orgID, KeyID: keyID, Role: auth.RoleAdmin}
}

// Unmigrated opens a new empty database, dropped when the test ends, and
// returns its URL too: for tests of the migrations themselves.
func Unmigrated(t testing.TB) (*db.DB, string) {
	t.Helper()
	return create(t, "att_mig_", "")
}

// create makes a database named prefix and a random suffix, with the
// CREATE DATABASE options opts, opens it, and drops it when t ends.
func create(t testing.TB, prefix, opts string) (*db.DB, string) {
	t.Helper()
	ctx := context.Background()
	admin := openAdmin()
	defer admin.Close()
	name := prefix + id.Random(8)
	if _, err := admin.ExecContext(ctx, fmt.Sprintf(`CREATE DATABASE %s %s`, name, opts)); err != nil {
		t.Fatalf("create test database: %v", err)
	}
	t.Cleanup(func() {
		a := openAdmin()
		defer a.Close()
		_, _ = a.ExecContext(context.Background(), fmt.Sprintf(`DROP DATABASE IF EXISTS %s WITH (FORCE)`, name))
	})
	u := withDatabase(AdminURL(), name)
	d, err := db.Open(ctx, u)
	if err != nil {
		t.Fatalf("open test database: %v", err)
	}
	t.Cleanup(func() { d.Close() }) // runs before the drop: cleanups run last first
	return d, u
}

// ensureTemplate builds the template for the current migrations once across
// all test processes (go test runs packages in parallel).
func ensureTemplate(ctx context.Context) (string, error) {
	sum, err := db.MigrationsChecksum()
	if err != nil {
		return "", err
	}
	h := sha256.Sum256([]byte(sum))
	name := "att_tmpl_" + hex.EncodeToString(h[:6])
	admin := openAdmin()
	defer admin.Close()
	conn, err := admin.Conn(ctx)
	if err != nil {
		return "", fmt.Errorf("connect to %s: %w", AdminURL(), err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `SELECT pg_advisory_lock(7418880)`); err != nil {
		return "", err
	}
	defer conn.ExecContext(ctx, `SELECT pg_advisory_unlock(7418880)`) //nolint:errcheck
	var exists bool
	if err := conn.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)`, name).Scan(&exists); err != nil {
		return "", err
	}
	if exists {
		return name, nil
	}
	building := name + "_build"
	_, _ = conn.ExecContext(ctx, fmt.Sprintf(`DROP DATABASE IF EXISTS %s WITH (FORCE)`, building))
	if _, err := conn.ExecContext(ctx, fmt.Sprintf(`CREATE DATABASE %s`, building)); err != nil {
		return "", err
	}
	d, err := db.Open(ctx, withDatabase(AdminURL(), building))
	if err != nil {
		return "", err
	}
	_, err = d.Migrate(ctx)
	d.Close()
	if err != nil {
		return "", fmt.Errorf("migrate template: %w", err)
	}
	if _, err := conn.ExecContext(ctx, fmt.Sprintf(`ALTER DATABASE %s RENAME TO %s`, building, name)); err != nil {
		return "", err
	}
	return name, nil
}

func openAdmin() *sql.DB { return OpenSQL(AdminURL()) }

// OpenSQL opens database/sql over pgx at url, for tests that reach the
// database behind the service's back.
func OpenSQL(url string) *sql.DB {
	db, err := sql.Open("pgx", url)
	if err != nil {
		panic(fmt.Sprintf("open %s: %v", url, err)) // only an unknown driver fails here
	}
	return db
}

func withDatabase(raw, name string) string {
	u, err := url.Parse(raw)
	if err != nil {
		panic(fmt.Sprintf("bad TEST_DATABASE_URL: %v", err))
	}
	u.Path = "/" + name
	return u.String()
}
