package paging

import (
	"bytes"
	"encoding/base64"
	"strings"
)

// Signer signs and checks a cursor's bytes: the server's key ring
// (keyring.Ring), whose keys every replica shares, so a cursor written by
// one replica is read by any other, also across a key rotation.
type Signer interface {
	Sign(purpose string, data []byte) []byte
	Verify(purpose string, data, sig []byte) bool
}

// cursorPurpose scopes the signatures of cursors: no other signature of the
// ring verifies as one.
const cursorPurpose = "cursor"

// cursorPrefix versions the cursor format.
const cursorPrefix = "c2:"

// Cursors writes and reads the cursors of one list (List, e.g.
// "transactions") as one organization (Org) sees it. A cursor is the URL-safe
// base64 of the prefix and the keyset values of a row, ':'-separated, then
// '.' and the base64 of its signature over the organization, the list and
// those bytes: a cursor edited, forged, or handed out by another list or to
// another organization does not open.
type Cursors struct {
	Keys      Signer
	Org, List string
}

// signed is what a cursor's signature covers.
func (c Cursors) signed(payload []byte) []byte {
	b := make([]byte, 0, len(c.Org)+len(c.List)+len(payload)+2)
	b = append(append(append(b, c.Org...), 0), c.List...)
	return append(append(b, 0), payload...)
}

// Seal is the cursor of a row whose keyset values are values (none empty;
// only the last may hold ':').
func (c Cursors) Seal(values ...string) string {
	payload := []byte(cursorPrefix + strings.Join(values, ":"))
	sig := c.Keys.Sign(cursorPurpose, c.signed(payload))
	return base64.RawURLEncoding.EncodeToString(payload) + "." + base64.RawURLEncoding.EncodeToString(sig)
}

// Open reads the n keyset values of a cursor Seal wrote for this list and
// organization; false for anything else.
func (c Cursors) Open(cursor string, n int) ([]string, bool) {
	enc, encSig, ok := strings.Cut(cursor, ".")
	if !ok {
		return nil, false
	}
	payload, err := base64.RawURLEncoding.DecodeString(enc)
	if err != nil || !bytes.HasPrefix(payload, []byte(cursorPrefix)) {
		return nil, false
	}
	sig, err := base64.RawURLEncoding.DecodeString(encSig)
	if err != nil || !c.Keys.Verify(cursorPurpose, c.signed(payload), sig) {
		return nil, false
	}
	vals := strings.SplitN(string(payload[len(cursorPrefix):]), ":", n)
	if len(vals) != n {
		return nil, false
	}
	for _, v := range vals {
		if v == "" {
			return nil, false
		}
	}
	return vals, true
}

// RowCursors are the cursors of a page's rows, each sealed when read: a page
// whose edges no operation selects signs none of them.
type RowCursors struct {
	n    int
	seal func(i int) string
}

// NewRowCursors are the n cursors seal(i) writes.
func NewRowCursors(n int, seal func(i int) string) RowCursors { return RowCursors{n: n, seal: seal} }

// Len is the number of rows.
func (c RowCursors) Len() int { return c.n }

// At seals row i's cursor.
func (c RowCursors) At(i int) string { return c.seal(i) }
