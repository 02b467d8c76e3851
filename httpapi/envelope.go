package httpapi

import (
	"bytes"
	"encoding/json"
)

// plainEnvelope reports, without decoding, whether body is what
// checkEnvelope accepts in the common form: valid JSON, an object whose
// member names are plain ASCII (no escapes), and whose members query and
// operationName (in any case, as encoding/json matches them) are strings or
// null and variables and extensions objects or null, every time they occur.
// false says nothing: checkEnvelope then decodes the body, as it did for
// every request (json.Unmarshal scans the body twice and copies each member;
// this is one scan).
func plainEnvelope(body []byte) bool {
	if !json.Valid(body) {
		return false
	}
	i := skipSpace(body, 0)
	if body[i] != '{' {
		return false
	}
	i = skipSpace(body, i+1)
	for body[i] != '}' { // valid JSON: every index below is in range
		if body[i] == ',' {
			i = skipSpace(body, i+1)
		}
		start := i + 1
		for i = start; body[i] != '"'; i++ {
			if body[i] == '\\' || body[i] >= 0x80 {
				return false
			}
		}
		name := body[start:i]
		i = skipSpace(body, i+1) // the colon
		i = skipSpace(body, i+1) // the value
		end := skipValue(body, i)
		if want := memberKind(name); want != 0 && body[i] != want && string(body[i:end]) != "null" {
			return false
		}
		i = skipSpace(body, end)
	}
	return true
}

// memberKind is the first byte checkEnvelope requires of the member name
// ('"' or '{'), or 0 for a member it does not look at.
func memberKind(name []byte) byte {
	for _, m := range [...]struct {
		name string
		kind byte
	}{{"query", '"'}, {"operationName", '"'}, {"variables", '{'}, {"extensions", '{'}} {
		if bytes.EqualFold(name, []byte(m.name)) {
			return m.kind
		}
	}
	return 0
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipValue returns the end of the valid JSON value at b[i].
func skipValue(b []byte, i int) int {
	depth := 0
	for ; i < len(b); i++ {
		switch c := b[i]; c {
		case '"':
			for i++; b[i] != '"'; i++ {
				if b[i] == '\\' {
					i++
				}
			}
			if depth == 0 {
				return i + 1
			}
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				return i // the end of the enclosing value
			}
			if depth--; depth == 0 {
				return i + 1
			}
		case ',', ' ', '\t', '\n', '\r':
			if depth == 0 {
				return i
			}
		}
	}
	return i
}
