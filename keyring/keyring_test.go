package keyring_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agenttrust/service/keyring"
)

func TestSealOpenRotation(t *testing.T) {
	t.Parallel()
	oldKey, newKey := keyring.Generate(), keyring.Generate()
	old, err := keyring.Parse(oldKey)
	if err != nil {
		t.Fatal(err)
	}
	sealed := old.Seal([]byte("whsec_secret"), []byte("wh_1"))
	if strings.Contains(sealed, "whsec") {
		t.Fatal("plaintext visible in ciphertext")
	}
	rotated, err := keyring.Parse(newKey + "," + oldKey)
	if err != nil {
		t.Fatal(err)
	}
	pt, err := rotated.Open(sealed, []byte("wh_1"))
	if err != nil || string(pt) != "whsec_secret" {
		t.Fatalf("open under rotated ring = %q, %v", pt, err)
	}
	if _, err := rotated.Open(sealed, []byte("wh_2")); !errors.Is(err, keyring.ErrCorrupt) {
		t.Fatalf("wrong aad: %v, want ErrCorrupt", err)
	}
	if _, err := rotated.Open(sealed[:len(sealed)-2]+"AA", []byte("wh_1")); !errors.Is(err, keyring.ErrCorrupt) {
		t.Fatalf("tampered: %v, want ErrCorrupt", err)
	}
	fresh, _ := keyring.Parse(keyring.Generate())
	if _, err := fresh.Open(sealed, []byte("wh_1")); !errors.Is(err, keyring.ErrNoKey) {
		t.Fatalf("unknown key: %v, want ErrNoKey", err)
	}

	sig := old.Sign("chain", []byte("head"))
	if !rotated.Verify("chain", []byte("head"), sig) {
		t.Fatal("a signature under an old key must verify after rotation")
	}
	if rotated.Verify("other", []byte("head"), sig) || rotated.Verify("chain", []byte("head2"), sig) {
		t.Fatal("signature must bind purpose and data")
	}
	if fresh.Verify("chain", []byte("head"), sig) {
		t.Fatal("a foreign key must not verify")
	}
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	for _, in := range []string{"", "not base64!", "c2hvcnQ=", keyring.Generate() + ",,"} {
		if _, err := keyring.Parse(in); err == nil {
			t.Errorf("Parse(%q) accepted", in)
		} else if strings.Contains(err.Error(), in) && in != "" {
			t.Errorf("error reveals the key: %v", err)
		}
	}
}

func TestLoadOrCreate(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "state", "encryption.key")
	r1, created, err := keyring.LoadOrCreate(path)
	if err != nil || !created {
		t.Fatalf("first load: created=%v err=%v", created, err)
	}
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("key file mode = %v, %v; want 0600", st.Mode().Perm(), err)
	}
	r2, created, err := keyring.LoadOrCreate(path)
	if err != nil || created {
		t.Fatalf("second load: created=%v err=%v", created, err)
	}
	pt, err := r2.Open(r1.Seal([]byte("x"), nil), nil)
	if err != nil || string(pt) != "x" {
		t.Fatalf("reloaded ring must open what the first sealed: %q %v", pt, err)
	}
}
