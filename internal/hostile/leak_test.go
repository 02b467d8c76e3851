package hostile_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/url"
	"testing"
)

// victimQuery is a document only the victim has registered as a persisted
// query (setupLeaks); its hash must mean nothing to anyone else.
const victimQuery = `query VictimOnly { agents { nodes { id name } } }`

// setupLeaks gives the victim what another organization must not be able
// to use: a registered persisted query.
func (w *world) setupLeaks(t *testing.T) {
	t.Helper()
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
// registered or was handed: its persisted queries.
func (w *world) leakCases() []httpCase {
	body := func(v any) []byte { b, _ := json.Marshal(v); return b }
	return []httpCase{
		{name: "leak/victim's persisted query by hash", body: body(map[string]any{"extensions": persisted(w.victimHash)}),
			code: "PERSISTED_QUERY_NOT_FOUND"},
		{name: "leak/victim's persisted query over GET", method: "GET",
			target: "/graphql?extensions=" + url.QueryEscape(string(body(persisted(w.victimHash)))), code: "PERSISTED_QUERY_NOT_FOUND"},
	}
}
