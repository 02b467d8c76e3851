package main

import (
	"encoding/json"
	"regexp"
	"strings"
)

// outputMatches reports whether a command's output has the shape the README
// shows. JSON is compared as JSON: the same keys, the same values, where a
// string holding … matches any text in its place and a bare … any value.
// Other output is compared line by line, … matching any text.
func outputMatches(want []string, got string) bool {
	text := strings.Join(want, "\n")
	var w, g any
	if json.Unmarshal([]byte(quoteEllipses(text)), &w) == nil {
		return json.Unmarshal([]byte(got), &g) == nil && shapeMatches(w, g)
	}
	lines := strings.Split(got, "\n")
	if len(lines) != len(want) {
		return false
	}
	for i := range want {
		if !lineMatches(want[i], lines[i]) {
			return false
		}
	}
	return true
}

// quoteEllipses turns each … outside a JSON string into the string "…".
func quoteEllipses(s string) string {
	var b strings.Builder
	inString, escaped := false, false
	for _, r := range s {
		switch {
		case inString && escaped:
			escaped = false
		case inString && r == '\\':
			escaped = true
		case r == '"':
			inString = !inString
		case !inString && r == '…':
			b.WriteString(`"…"`)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// shapeMatches compares decoded JSON, want's … matching as outputMatches says.
func shapeMatches(want, got any) bool {
	switch w := want.(type) {
	case string:
		if w == "…" {
			return true
		}
		g, ok := got.(string)
		return ok && lineMatches(w, g)
	case []any:
		g, ok := got.([]any)
		if !ok {
			return false
		}
		if len(w) == 1 && w[0] == "…" {
			return true
		}
		if len(w) != len(g) {
			return false
		}
		for i := range w {
			if !shapeMatches(w[i], g[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok || len(g) != len(w) {
			return false
		}
		for k, v := range w {
			gv, ok := g[k]
			if !ok || !shapeMatches(v, gv) {
				return false
			}
		}
		return true
	}
	return want == got
}

// lineMatches reports whether got is want with each … standing for any text.
func lineMatches(want, got string) bool {
	parts := strings.Split(want, "…")
	for i := range parts {
		parts[i] = regexp.QuoteMeta(parts[i])
	}
	return regexp.MustCompile(`^` + strings.Join(parts, `.*`) + `$`).MatchString(got)
}
