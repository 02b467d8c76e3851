// Package plaintext checks the free text users send (names, memos,
// descriptions, reasons) before it is stored: Postgres refuses NUL in text
// and jsonb, and no other control character belongs in what dashboards show.
package plaintext

import (
	"unicode"
	"unicode/utf8"
)

// Line reports whether s is valid UTF-8 without control characters.
func Line(s string) bool { return valid(s, false) }

// Text reports whether s is valid UTF-8 without control characters other
// than tab and line breaks.
func Text(s string) bool { return valid(s, true) }

func valid(s string, multiline bool) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if unicode.IsControl(r) && !(multiline && (r == '\t' || r == '\n' || r == '\r')) {
			return false
		}
	}
	return true
}
