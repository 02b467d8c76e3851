package db

import (
	"os"
	"strconv"
	"testing"

	"github.com/jackc/pgx/v5"
)

// The parser and the visibility rule against Postgres' own
// pg_visible_in_snapshot, for xids on every side of a snapshot's bounds.
func TestSnapshotSeesAsPostgres(t *testing.T) {
	t.Parallel()
	url := os.Getenv("TEST_DATABASE_URL")
	if url == "" {
		url = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
	}
	conn, err := pgx.Connect(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(t.Context())
	for _, text := range []string{"1:1:", "100:100:", "100:110:", "100:110:100,103,109", "5:9:7"} {
		snap, err := parseSnapshot(text)
		if err != nil {
			t.Fatal(err)
		}
		for xid := uint64(1); xid <= 120; xid++ {
			var want bool
			if err := conn.QueryRow(t.Context(), `SELECT pg_visible_in_snapshot($1::text::xid8, $2::pg_snapshot)`, strconv.FormatUint(xid, 10), text).Scan(&want); err != nil {
				t.Fatal(err)
			}
			if got := snap.sees(xid); got != want {
				t.Fatalf("%s sees %d: %v, Postgres says %v", text, xid, got, want)
			}
		}
	}
	for _, bad := range []string{"", "1:2", "a:2:", "1:b:", "1:2:x"} {
		if _, err := parseSnapshot(bad); err == nil {
			t.Fatalf("parsed %q", bad)
		}
	}
}
