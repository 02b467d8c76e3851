package hostile_test

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"testing"
)

// victimQuery is a document only the victim has registered as a persisted
// query (setupLeaks); its hash must mean nothing to anyone else.
const victimQuery = `query VictimOnly { agents { nodes { id name } } }`

// setupLeaks gives the victim what another organization must not be able
// to use: a registered persisted query and a page's cursor; and the
// attacker a cursor of its own list of agents, to hand to other lists or
// edit.
func (w *world) setupLeaks(t *testing.T) {
	t.Helper()
	page := func(key string) string {
		var c struct{ PageInfo struct{ EndCursor string } }
		w.k.Do(key, `{ agents(limit: 1) { pageInfo { endCursor } } }`, nil).Into(t, "agents", &c)
		if c.PageInfo.EndCursor == "" {
			t.Fatal("a first page of one agent has no endCursor")
		}
		return c.PageInfo.EndCursor
	}
	w.victimCursor, w.ownCursor = page(w.victimKey), page(w.k.Key)
	sum := sha256.Sum256([]byte(victimQuery))
	w.victimHash = hex.EncodeToString(sum[:])
	r := w.k.Post(w.victimKey, map[string]any{"query": victimQuery, "extensions": persisted(w.victimHash)})
	if r.Status != 200 || len(r.Errors) > 0 {
		t.Fatalf("the victim registers a persisted query: %d %s", r.Status, r.Body)
	}
	if r := w.k.Post(w.victimKey, map[string]any{"extensions": persisted(w.victimHash)}); len(r.Errors) > 0 {
		t.Fatalf("the victim's own hash alone: %d %s", r.Status, r.Body)
	}
}

func persisted(hash string) map[string]any {
	return map[string]any{"persistedQuery": map[string]any{"version": 1, "sha256Hash": hash}}
}

// leakCases are requests that would use what another organization
// registered or was handed (its persisted queries, its cursors), or a
// cursor moved to another list or edited.
func (w *world) leakCases() []httpCase {
	body := func(v any) []byte { b, _ := json.Marshal(v); return b }
	cs := []httpCase{
		{name: "leak/victim's persisted query by hash", body: body(map[string]any{"extensions": persisted(w.victimHash)}),
			code: "PERSISTED_QUERY_NOT_FOUND"},
		{name: "leak/victim's persisted query over GET", method: "GET",
			target: "/graphql?extensions=" + url.QueryEscape(string(body(persisted(w.victimHash)))), code: "PERSISTED_QUERY_NOT_FOUND"},
	}
	after := func(list string) string {
		return `query($c: String) { ` + list + `(after: $c) { nodes { id } } }`
	}
	before := `query($c: String) { agents(last: 1, before: $c) { nodes { id } } }`
	for _, c := range []struct{ name, query, cursor, field string }{
		{"victim's agents cursor", after("agents"), w.victimCursor, "after"},
		{"victim's agents cursor backwards", before, w.victimCursor, "before"},
		{"agents cursor in disputes", after("disputes"), w.ownCursor, "after"},
		{"agents cursor in mandates", after("mandates"), w.ownCursor, "after"},
		{"agents cursor in transactions", after("transactions"), w.ownCursor, "after"},
		{"edited agents cursor", after("agents"), editCursor(w.ownCursor), "after"},
		{"edited agents cursor backwards", before, editCursor(w.ownCursor), "before"},
		{"hand-made cursor", after("agents"), base64.RawURLEncoding.EncodeToString([]byte("c1:1")), "after"},
	} {
		cs = append(cs, httpCase{name: "cursor/" + c.name, query: c.query, vars: map[string]any{"c": c.cursor},
			code: "VALIDATION_FAILED", field: c.field})
	}
	return cs
}

// editCursor raises the sequence number a cursor carries in the clear (the
// base64 before any '.'), keeping the rest: what a client paging past a
// list's end, or into rows it was never shown, would send.
func editCursor(c string) string {
	payload, rest, signed := strings.Cut(c, ".")
	b, err := base64.RawURLEncoding.DecodeString(payload)
	if err != nil {
		return c + "x"
	}
	i := strings.LastIndexByte(string(b), ':')
	n, err := strconv.ParseInt(string(b[i+1:]), 10, 64)
	if err != nil {
		return c + "x"
	}
	edited := base64.RawURLEncoding.EncodeToString(fmt.Appendf(b[:i+1:i+1], "%d", n+1000))
	if signed {
		edited += "." + rest
	}
	return edited
}
