package plaintext

import "testing"

func TestLineAndText(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		s          string
		line, text bool
	}{
		{"", true, true},
		{"paid in full — ünïcode ✓", true, true},
		{"two\nlines", false, true},
		{"tab\tand\r\nbreaks", false, true},
		{"nul\x00", false, false},
		{"bell\a", false, false},
		{"del\x7f", false, false},
		{"c1 \u0085", false, false},
		{"bad \xff utf-8", false, false},
	} {
		if got := Line(c.s); got != c.line {
			t.Errorf("Line(%q) = %v, want %v", c.s, got, c.line)
		}
		if got := Text(c.s); got != c.text {
			t.Errorf("Text(%q) = %v, want %v", c.s, got, c.text)
		}
	}
}
