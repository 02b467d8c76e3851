package playground

import (
	"encoding/json"
	"os"
	"testing"
)

// The embedded assets are the ones the lock file pins: a version bump in
// playground/package.json without `make playground` fails here.
func TestAssetsMatchTheLockFile(t *testing.T) {
	t.Parallel()
	var lock struct {
		Packages map[string]struct{ Version string } `json:"packages"`
	}
	raw, err := os.ReadFile("../../playground/package-lock.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &lock); err != nil {
		t.Fatal(err)
	}
	var embedded map[string]string
	raw, err = files.ReadFile("assets/versions.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &embedded); err != nil {
		t.Fatal(err)
	}
	if len(embedded) != 5 {
		t.Fatalf("versions.json lists %d packages, want 5: %v", len(embedded), embedded)
	}
	for pkg, v := range embedded {
		if locked := lock.Packages["node_modules/"+pkg].Version; locked != v {
			t.Errorf("%s: embedded %s, locked %q: run make playground", pkg, v, locked)
		}
	}
}
