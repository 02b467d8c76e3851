package db

import (
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"

	"github.com/uptrace/bun/migrate"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// migrationLockID is the advisory lock that serializes migrations across replicas.
const migrationLockID = 0x6174745f6d6967 // "att_mig"

func migrations() (*migrate.Migrations, error) {
	m := migrate.NewMigrations()
	if err := m.Discover(migrationFiles); err != nil {
		return nil, fmt.Errorf("discover migrations: %w", err)
	}
	return m, nil
}

// Migrate applies every embedded migration not yet applied. Replicas starting
// together wait on one advisory lock, so each migration runs once.
func (d *DB) Migrate(ctx context.Context) (applied []string, err error) {
	applied = []string{}
	ms, err := migrations()
	if err != nil {
		return nil, err
	}
	conn, err := d.bun.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("migrate: %w", err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "SELECT pg_advisory_lock(?)", migrationLockID); err != nil {
		return nil, fmt.Errorf("migrate: take lock: %w", err)
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock(?)", migrationLockID) //nolint:errcheck // released with the session anyway

	m := migrate.NewMigrator(d.bun, ms, migrate.WithMarkAppliedOnSuccess(true))
	if err := m.Init(ctx); err != nil {
		return nil, fmt.Errorf("migrate: init: %w", err)
	}
	group, err := m.Migrate(ctx)
	if err != nil {
		return nil, fmt.Errorf("migrate: %w", err)
	}
	for _, mg := range group.Migrations {
		applied = append(applied, mg.Name)
	}
	river, err := migrateRiver(ctx, d)
	if err != nil {
		return nil, err
	}
	applied = append(applied, river...)
	d.migrated.Store(true)
	return applied, nil
}

// Ready reports whether the database answers and every embedded migration is applied.
func (d *DB) Ready(ctx context.Context) error {
	if err := d.Ping(ctx); err != nil {
		return fmt.Errorf("database unreachable: %w", err)
	}
	if d.migrated.Load() {
		return nil
	}
	ms, err := migrations()
	if err != nil {
		return err
	}
	status, err := migrate.NewMigrator(d.bun, ms).MigrationsWithStatus(ctx)
	if err != nil {
		return fmt.Errorf("read migration status: %w", err)
	}
	if un := status.Unapplied(); len(un) > 0 {
		return fmt.Errorf("%d migrations not applied (first %s): run migrate", len(un), un[0].Name)
	}
	d.migrated.Store(true)
	return nil
}

// MigrationsChecksum identifies the embedded migrations' content, so test
// templates are rebuilt when a migration changes.
func MigrationsChecksum() (string, error) {
	entries, err := migrationFiles.ReadDir("migrations")
	if err != nil {
		return "", err
	}
	h := sha256.New()
	for _, e := range entries {
		b, err := migrationFiles.ReadFile("migrations/" + e.Name())
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s\x00%d\x00", e.Name(), len(b))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
