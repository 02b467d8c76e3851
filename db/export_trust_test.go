package db

import (
	"context"
	"io/fs"
	"strings"
	"testing/fstest"

	"github.com/uptrace/bun/migrate"
)

// MigrateBefore applies only the embedded migrations whose names sort
// before cutoff, so a test can write data in an older schema.
func (d *DB) MigrateBefore(ctx context.Context, cutoff string) error {
	entries, err := fs.ReadDir(migrationFiles, "migrations")
	if err != nil {
		return err
	}
	older := fstest.MapFS{}
	for _, e := range entries {
		if e.Name() < cutoff {
			b, err := migrationFiles.ReadFile("migrations/" + e.Name())
			if err != nil {
				return err
			}
			older["migrations/"+e.Name()] = &fstest.MapFile{Data: b}
		}
	}
	ms := migrate.NewMigrations()
	if err := ms.Discover(older); err != nil {
		return err
	}
	m := migrate.NewMigrator(d.bun, ms, migrate.WithMarkAppliedOnSuccess(true))
	if err := m.Init(ctx); err != nil {
		return err
	}
	if _, err = m.Migrate(ctx); err != nil {
		return err
	}
	// River's queue schema is versioned apart from ours: bring it up too, so
	// the Migrate after this applies only the service's own later files.
	_, err = migrateRiver(ctx, d)
	return err
}

// Exec runs raw SQL, for tests that write behind the service's back.
func (d *DB) Exec(ctx context.Context, query string, args ...any) error {
	_, err := d.bun.ExecContext(ctx, strings.TrimSpace(query), args...)
	return err
}
