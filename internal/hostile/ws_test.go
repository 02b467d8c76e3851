package hostile_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// wsCase is one hostile websocket conversation: after the handshake (with
// the attacker's key in connection_init unless init says otherwise) the
// frames are sent, and the server must either close with one of close or
// answer an "error" message whose first error has code.
type wsCase struct {
	name     string
	protocol string         // default graphql-transport-ws
	header   http.Header    // upgrade request headers
	init     map[string]any // connection_init payload; nil sends the attacker's key
	noInit   bool
	frames   [][]byte
	binary   bool
	close    []int  // acceptable close codes
	code     string // or: the error message's extensions.code
	// crowd websockets are first opened with header and never sent
	// connection_init; the case's own upgrade must then be refused with
	// HTTP 429 and code.
	crowd int
}

// protocolError are the close codes a garbled conversation may get:
// graphql-transport-ws's 4400, and the 1000/1002/1003 the transport uses.
var protocolError = []int{4400, 1000, 1002, 1003}

func sub(id, query string, vars map[string]any) []byte {
	b, _ := json.Marshal(map[string]any{"id": id, "type": "subscribe", "payload": map[string]any{"query": query, "variables": vars}})
	return b
}

func (w *world) wsCases() []wsCase {
	bearer := func(k string) map[string]any { return map[string]any{"Authorization": "Bearer " + k} }
	events := `subscription($after: ID, $types: [String!]) { events(after: $after, types: $types) { id type } }`
	cs := []wsCase{
		{name: "init without key", init: map[string]any{}, close: []int{4401}},
		{name: "init unknown key", init: bearer("ak_nope"), close: []int{4401}},
		{name: "init revoked key", init: bearer(w.revokedKey), close: []int{4401}},
		{name: "init basic", init: map[string]any{"authorization": "Basic dXNlcjpwYXNz"}, close: []int{4401}},
		{name: "init payload string", init: map[string]any{"Authorization": map[string]any{"$ne": ""}}, close: []int{4401, 4400}},
		{name: "subscribe before init", noInit: true, frames: [][]byte{sub("1", events, nil)}, close: []int{4401, 1002}},
		{name: "malformed json", frames: [][]byte{[]byte(`{"type":"subscribe",`)}, close: protocolError},
		{name: "unknown message type", frames: [][]byte{[]byte(`{"type":"drop_tables","id":"1"}`)}, close: protocolError},
		{name: "binary garbage", frames: [][]byte{{0xff, 0x00, 0xfe}}, binary: true, close: protocolError},
		{name: "oversized frame", frames: [][]byte{[]byte(`{"type":"subscribe","id":"1","payload":{"query":"` + strings.Repeat("x", 2<<20) + `"}}`)}, close: append([]int{1009}, protocolError...)},
		{name: "second init", frames: [][]byte{[]byte(`{"type":"connection_init","payload":{}}`)}, close: []int{4429, 1002}},
		{name: "cross-org mutation without id", frames: [][]byte{[]byte(`{"type":"subscribe","payload":{"query":"mutation { suspendAgent(id: \"` + w.v1.ID + `\") { id } }"}}`)}, code: "NOT_FOUND"},
		{name: "victim event after", frames: [][]byte{sub("1", events, map[string]any{"after": w.victimEvent})}, code: "NOT_FOUND"},
		{name: "injection after", frames: [][]byte{sub("1", events, map[string]any{"after": `evt_' OR 1=1 --`})}, code: "NOT_FOUND"},
		{name: "unknown type filter", frames: [][]byte{sub("1", events, map[string]any{"types": []any{"agent.*"}})}, code: "VALIDATION_FAILED"},
		{name: "delivery-only type", frames: [][]byte{sub("1", events, map[string]any{"types": []any{"webhook.verification"}})}, code: "VALIDATION_FAILED"},
		{name: "empty type filter", frames: [][]byte{sub("1", events, map[string]any{"types": []any{}})}, code: "VALIDATION_FAILED"},
		{name: "cross-org mutation", frames: [][]byte{sub("1", `mutation($id: ID!) { suspendAgent(id: $id) { id } }`, map[string]any{"id": w.v1.ID})}, code: "NOT_FOUND"},
		{name: "bad amount mutation", frames: [][]byte{sub("1", executeDoc, w.pay(w.a1.ID, w.a2.ID, "NaN"))}, code: "VALIDATION_FAILED"},
		{name: "parse failure", frames: [][]byte{sub("1", `subscription {`, nil)}, code: "GRAPHQL_PARSE_FAILED"},
		{name: "aliased subscriptions", frames: [][]byte{sub("1", "subscription {"+aliasedBody(3, "events { id }")+"}", nil)}, code: "GRAPHQL_VALIDATION_FAILED"},
		{name: "legacy protocol bad key", protocol: "graphql-ws", init: bearer("ak_nope"), close: []int{4401}},
	}
	return cs
}

func (w *world) runWS(t *testing.T, c wsCase) {
	proto := c.protocol
	if proto == "" {
		proto = "graphql-transport-ws"
	}
	d := websocket.Dialer{Subprotocols: []string{proto}, HandshakeTimeout: 5 * time.Second}
	url := "ws" + strings.TrimPrefix(w.ts.URL, "http") + "/graphql"
	if c.crowd > 0 {
		w.runCrowd(t, d, url, c)
		return
	}
	conn, res, err := d.Dial(url, c.header)
	if err != nil {
		t.Fatalf("dial: %v (%v)", err, res)
	}
	defer conn.Close()
	if !c.noInit {
		payload := c.init
		if payload == nil {
			payload = map[string]any{"Authorization": "Bearer " + w.k.Key}
		}
		if err := conn.WriteJSON(map[string]any{"type": "connection_init", "payload": payload}); err != nil {
			t.Fatal(err)
		}
	}
	kind := websocket.TextMessage
	if c.binary {
		kind = websocket.BinaryMessage
	}
	for _, f := range c.frames {
		if err := conn.WriteMessage(kind, f); err != nil {
			break // the server may already have closed
		}
	}
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	for {
		_, raw, err := conn.ReadMessage()
		if err != nil {
			ce, ok := err.(*websocket.CloseError)
			if !ok {
				t.Fatalf("connection ended without a close frame: %v", err)
			}
			if c.code != "" || !containsInt(c.close, ce.Code) {
				t.Fatalf("closed with %d %q; want close %v or error code %q", ce.Code, ce.Text, c.close, c.code)
			}
			return
		}
		var m struct {
			Type    string          `json:"type"`
			Payload json.RawMessage `json:"payload"`
		}
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatalf("message is not JSON: %s", raw)
		}
		switch m.Type {
		case "connection_ack", "ka", "ping", "pong", "complete":
			continue
		case "error", "next", "data":
			code := firstCode(m.Payload)
			if code == "" && m.Type != "error" {
				t.Fatalf("hostile operation answered with data: %s", raw)
			}
			if code != c.code {
				t.Fatalf("error code %q, want %q (close %v): %s", code, c.code, c.close, raw)
			}
			return
		case "connection_error":
			if !containsInt(c.close, 4401) {
				t.Fatalf("connection_error, want %q: %s", c.code, raw)
			}
			return
		default:
			t.Fatalf("unexpected message: %s", raw)
		}
	}
}

// runCrowd holds c.crowd websockets that never authenticate, then checks
// that one more upgrade is refused with HTTP 429 and c.code.
func (w *world) runCrowd(t *testing.T, d websocket.Dialer, url string, c wsCase) {
	for i := range c.crowd {
		conn, res, err := d.Dial(url, c.header)
		if err != nil {
			t.Fatalf("websocket %d of the crowd: %v (%v)", i, err, res)
		}
		defer conn.Close()
	}
	conn, res, err := d.Dial(url, c.header)
	if err == nil {
		conn.Close()
		t.Fatalf("websocket %d without connection_init was accepted", c.crowd+1)
	}
	if res == nil {
		t.Fatalf("websocket %d: no HTTP answer: %v", c.crowd+1, err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	var ans struct{ Errors json.RawMessage }
	_ = json.Unmarshal(raw, &ans)
	if res.StatusCode != http.StatusTooManyRequests || firstCode(ans.Errors) != c.code {
		t.Fatalf("websocket %d: HTTP %d %.300s, want 429 %s", c.crowd+1, res.StatusCode, raw, c.code)
	}
}

// firstCode reads extensions.code of the first error of a payload that is an
// error list or a result with errors.
func firstCode(p json.RawMessage) string {
	var list []struct {
		Extensions map[string]any `json:"extensions"`
	}
	if json.Unmarshal(p, &list) != nil {
		var res struct {
			Errors []struct {
				Extensions map[string]any `json:"extensions"`
			} `json:"errors"`
		}
		_ = json.Unmarshal(p, &res)
		list = res.Errors
	}
	if len(list) == 0 {
		return ""
	}
	c, _ := list[0].Extensions["code"].(string)
	return c
}

func containsInt(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}
