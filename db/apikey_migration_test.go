package db_test

import (
	"context"
	"testing"

	"github.com/agenttrust/service/auth"
	"github.com/agenttrust/service/db"
	"github.com/agenttrust/service/db/dbtest"
)

// Keys made before roles existed become admin keys with no agents, and
// keep working.
func TestAPIKeyRolesMigration(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d, _ := dbtest.Unmigrated(t)
	if err := d.MigrateBefore(ctx, "20261127040000"); err != nil {
		t.Fatalf("older migrations: %v", err)
	}
	const key = "att_sk_old_key_made_before_roles"
	if err := d.Exec(ctx, `INSERT INTO orgs (id, name) VALUES ('org_a', 'a')`); err != nil {
		t.Fatal(err)
	}
	if err := d.Exec(ctx, `INSERT INTO api_keys (id, org_id, hash) VALUES ('key_old', 'org_a', ?)`, auth.Hash(key)); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Migrate(ctx); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	p, err := db.NewOrgService(d).Authenticate(ctx, key)
	if err != nil || p.Role != auth.RoleAdmin || len(p.AgentIDs) != 0 || p.KeyID != "key_old" {
		t.Fatalf("old key after the migration: %+v %v", p, err)
	}
}
