package localpg

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestVersionDirsNewestFirst(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	for _, v := range []string{"9.6", "15", "10", "16", "devel"} {
		if err := os.MkdirAll(filepath.Join(root, v, "bin"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	for _, d := range versionDirs(filepath.Join(root, "*", "bin")) {
		got = append(got, filepath.Base(filepath.Dir(d)))
	}
	if want := []string{"16", "15", "10", "9.6", "devel"}; !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

func TestQuoting(t *testing.T) {
	t.Parallel()
	if got := quoteIdent(`a"b`); got != `"a""b"` {
		t.Errorf("quoteIdent = %s", got)
	}
	if got := shellQuote(`/x/it's`); got != `'/x/it'\''s'` {
		t.Errorf("shellQuote = %s", got)
	}
	if got := makeDSN("postgres", "127.0.0.1:5", `a b`); got != "postgres://postgres@127.0.0.1:5/a%20b?sslmode=disable" {
		t.Errorf("makeDSN = %s", got)
	}
	if got := makeDSN("postgres", "/tmp/x y/.s.PGSQL.5433", "db"); got != "postgres://postgres@localhost/db?host=%2Ftmp%2Fx+y&port=5433&sslmode=disable" {
		t.Errorf("makeDSN of a socket = %s", got)
	}
}

// BinDir finds the installed server programs (internal/chaos skips without
// them, so a regression here would hide as skipped scenarios).
func TestBinDirFindsInstalledPostgres(t *testing.T) {
	t.Parallel()
	installed := false
	for _, d := range versionDirs("/usr/lib/postgresql/*/bin") {
		if _, err := os.Stat(filepath.Join(d, "pg_ctl")); err == nil {
			installed = true
		}
	}
	dir, err := BinDir()
	switch {
	case err == nil:
		for _, prog := range []string{"initdb", "pg_ctl"} {
			if _, err := os.Stat(filepath.Join(dir, prog)); err != nil {
				t.Errorf("BinDir() = %s, without %s: %v", dir, prog, err)
			}
		}
	case installed:
		t.Fatalf("BinDir: %v, with a server under /usr/lib/postgresql", err)
	}
}
