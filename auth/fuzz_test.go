package auth_test

import (
	"strings"
	"testing"

	"github.com/agenttrust/service/auth"
	"github.com/agenttrust/service/failure"
)

// FuzzParseBearer checks that any Authorization header either yields a key
// that is non-empty, bounded, trimmed and stable under re-wrapping, or is
// refused as UNAUTHENTICATED.
func FuzzParseBearer(f *testing.F) {
	for _, s := range []string{"Bearer ak_abc", "bearer ak_abc", "BEARER  ak_abc ", "Basic dXNlcjpw", "Bearer", "Bearer ",
		"", " ", "Bearer a b", "Bearer\tak", "Bearer " + strings.Repeat("k", 513), "Token ak", "Bearer ak\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, header string) {
		key, err := auth.ParseBearer(header)
		if err != nil {
			if failure.CodeOf(err) != failure.Unauthenticated {
				t.Fatalf("ParseBearer(%q) = %v, want UNAUTHENTICATED", header, err)
			}
			return
		}
		if key == "" || len(key) > 512 || strings.TrimSpace(key) != key || !strings.Contains(header, key) {
			t.Fatalf("ParseBearer(%q) = %q", header, key)
		}
		again, err := auth.ParseBearer("Bearer " + key)
		if err != nil || again != key {
			t.Fatalf("ParseBearer(Bearer %q) = %q, %v", key, again, err)
		}
		if len(auth.Hash(key)) != 32 || !auth.Equal(auth.Hash(key), auth.Hash(again)) {
			t.Fatalf("Hash(%q) is not a stable SHA-256", key)
		}
	})
}
