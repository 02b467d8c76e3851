// Package jsontext knows the JSON text encoding/json writes: compact, with
// <, >, & and U+2028/U+2029 escaped. The edge uses it to send an answer
// gqlgen already wrote without encoding it a second time, and webhook
// delivery to write an event's data (the log's jsonb text) into a body as
// json.Marshal would.
package jsontext

// notable marks the bytes that can make JSON text differ from what
// encoding/json writes: string delimiters and escapes, whitespace, what
// encoding/json escapes for HTML, and the first byte of U+2028 and U+2029.
// Every other byte is passed over with one table lookup.
var notable = [256]bool{'"': true, '\\': true, ' ': true, '\t': true, '\n': true, '\r': true,
	'<': true, '>': true, '&': true, 0xE2: true}

// Plain reports whether data, valid JSON, is already what encoding/json
// writes of it (a json.RawMessage through json.Marshal): no whitespace
// outside strings, and no <, >, & or U+2028/U+2029 inside them. Empty data
// is not plain.
func Plain(data []byte) bool {
	if len(data) == 0 {
		return false
	}
	inString := false
	for i := 0; i < len(data); i++ {
		c := data[i]
		if !notable[c] {
			continue
		}
		switch {
		case c == '"':
			inString = !inString
		case c == '\\':
			i++ // the escaped byte
		case !inString:
			if c == ' ' || c == '\t' || c == '\n' || c == '\r' {
				return false
			}
		case c == '<' || c == '>' || c == '&':
			return false
		case c == 0xE2 && i+2 < len(data) && data[i+1] == 0x80 && (data[i+2] == 0xA8 || data[i+2] == 0xA9):
			return false
		}
	}
	return !inString
}

// AppendPlain appends valid JSON src as encoding/json writes it: without the
// whitespace between tokens, and with <, >, &, U+2028 and U+2029 escaped as
// \u003c, \u003e, \u0026, \u2028 and \u2029.
func AppendPlain(b, src []byte) []byte {
	const hex = "0123456789abcdef"
	inString, start := false, 0
	for i := 0; i < len(src); i++ {
		c := src[i]
		if !notable[c] {
			continue
		}
		switch {
		case c == '"':
			inString = !inString
		case c == '\\':
			i++ // the escaped byte, only ever inside a string
		case c == '<' || c == '>' || c == '&':
			b = append(b, src[start:i]...)
			b = append(b, `\u00`...)
			b = append(b, hex[c>>4], hex[c&0xF])
			start = i + 1
		case c == 0xE2:
			if i+2 < len(src) && src[i+1] == 0x80 && src[i+2]&^1 == 0xA8 {
				b = append(b, src[start:i]...)
				b = append(b, `\u202`...)
				b = append(b, hex[src[i+2]&0xF])
				i += 2
				start = i + 1
			}
		case !inString: // whitespace between tokens
			b = append(b, src[start:i]...)
			start = i + 1
		}
	}
	return append(b, src[start:]...)
}
