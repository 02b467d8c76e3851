package db

import (
	"slices"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
)

// TestKeepArray: the page scanner's reading of text[] in the binary format
// gives what pgx's own decoder gives, and refuses malformed arrays.
func TestKeepArray(t *testing.T) {
	t.Parallel()
	m := pgtype.NewMap()
	for _, want := range [][]string{{}, {"purchase"}, {"purchase", "refund", "a.b:c-d_e", "é", ""}} {
		b, err := m.Encode(pgtype.TextArrayOID, pgx.BinaryFormatCode, want, nil)
		if err != nil {
			t.Fatal(err)
		}
		var viaPgx []string
		if err := m.Scan(pgtype.TextArrayOID, pgx.BinaryFormatCode, b, &viaPgx); err != nil {
			t.Fatal(err)
		}
		s := &agentScanner{}
		if err := s.keepArray(b); err != nil {
			t.Fatalf("%q: %v", want, err)
		}
		var got []string
		for _, sp := range s.acts {
			got = append(got, string(s.text[sp.off:sp.end]))
		}
		if !slices.Equal(got, want) || !slices.Equal(got, viaPgx) {
			t.Fatalf("read %q, want %q (pgx: %q)", got, want, viaPgx)
		}
		for n := range len(b) - 1 {
			if len(want) > 0 && (&agentScanner{}).keepArray(b[:n]) == nil {
				t.Fatalf("%q cut to %d bytes: no error", want, n)
			}
		}
	}
	null, err := m.Encode(pgtype.TextArrayOID, pgx.BinaryFormatCode, []*string{nil}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if (&agentScanner{}).keepArray(null) == nil {
		t.Fatal("a NULL element: no error")
	}
}
