package outbound

import "strings"

// escapeQuery percent-encodes every byte of a raw query that RFC 3986 does
// not allow there. url.Parse keeps a query as written and net/http writes it
// into the request line as it is, so a space would end the request target
// early and a non-ASCII byte would reach endpoints that refuse it. Escapes
// already present are kept; a '%' that starts none is itself escaped.
func escapeQuery(q string) string {
	i := 0
	for i < len(q) && queryByte(q, i) {
		i++
	}
	if i == len(q) {
		return q
	}
	var b strings.Builder
	b.Grow(len(q) + 16)
	b.WriteString(q[:i])
	for ; i < len(q); i++ {
		if queryByte(q, i) {
			b.WriteByte(q[i])
			continue
		}
		const hex = "0123456789ABCDEF"
		b.WriteByte('%')
		b.WriteByte(hex[q[i]>>4])
		b.WriteByte(hex[q[i]&15])
	}
	return b.String()
}

// queryByte reports whether q[i] may stand in a query as it is: an
// unreserved character, a sub-delimiter, ':', '@', '/', '?', or the '%' of
// an escape.
func queryByte(q string, i int) bool {
	c := q[i]
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	case c == '%':
		return i+2 < len(q) && isHex(q[i+1]) && isHex(q[i+2])
	}
	return strings.IndexByte("-._~!$&'()*+,;=:@/?", c) >= 0
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}
