package jsontext

import (
	"encoding/json"
	"testing"
)

// Plain lets data through exactly when encoding/json writes it unchanged,
// and AppendPlain writes what encoding/json writes.
func TestPlain(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		data  string
		plain bool
	}{
		{`{"agents":{"nodes":[{"id":"agent_1","name":"a","spendingLimit":100.5,"dailyLimit":null}]}}`, true},
		{`{"a":"quote \" and backslash \\ and \u00e9 é ✓"}`, true},
		{`{"a":"escaped \"<\" is still <"}`, false},
		{`{"a":"x>y"}`, false},
		{`{"a":"x&y"}`, false},
		{"{\"a\":\"line\u2028sep\"}", false},
		{"{\"a\":\"para\u2029sep\"}", false},
		{`{"a": 1}`, false},
		{"{\"a\":\n1}", false},
		{`{"details":{"k":"v","n":[1,2]}}`, true},
		{`null`, true},
		{`{"a":"in \"string\" spaces are fine"}`, true},
		{``, false},
	} {
		if got := Plain([]byte(c.data)); got != c.plain {
			t.Errorf("Plain(%q) = %v, want %v", c.data, got, c.plain)
		}
		if c.data == "" {
			continue
		}
		want, err := json.Marshal(json.RawMessage(c.data))
		if err != nil {
			t.Fatal(err)
		}
		if same := string(want) == c.data; same != c.plain {
			t.Errorf("%q: plain %v, but encoding/json writes %s", c.data, c.plain, want)
		}
		if got := AppendPlain(nil, []byte(c.data)); string(got) != string(want) {
			t.Errorf("AppendPlain(%q) = %s, encoding/json writes %s", c.data, got, want)
		}
	}
}

// FuzzPlain: on every valid document, Plain says whether encoding/json
// would write it unchanged, and AppendPlain writes what encoding/json
// writes, which Plain then accepts.
func FuzzPlain(f *testing.F) {
	for _, s := range []string{
		`{"agents":{"nodes":[{"id":"agent_1","name":"High Risk","spendingLimit":100.5}]}}`,
		`{"a":"quote \" and backslash \\ and \u00e9 é ✓"}`, `{"a":"x>y"}`, "{\"a\":\"line\u2028sep\"}",
		`{"a": 1}`, `[1, "a b"]`, `"\\"`, ` null`, "{\n \"a\" :\t\"x  y \\\\\" }",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if !json.Valid(data) {
			return
		}
		want, err := json.Marshal(json.RawMessage(data))
		if err != nil {
			t.Fatal(err)
		}
		if same := string(want) == string(data); Plain(data) != same {
			t.Fatalf("Plain(%q) = %v, but encoding/json writes %s", data, !same, want)
		}
		if got := AppendPlain(nil, data); string(got) != string(want) || !Plain(got) {
			t.Fatalf("AppendPlain(%q) = %s, encoding/json writes %s", data, got, want)
		}
	})
}

func BenchmarkPlain(b *testing.B) {
	var page []byte
	page = append(page, `{"agents":{"nodes":[`...)
	for i := range 50 {
		if i > 0 {
			page = append(page, ',')
		}
		page = append(page, `{"id":"agent_01JH0000000000000000000000","name":"payments agent","status":"ACTIVE","spendingLimit":"1000.00","currency":"USD","environment":"PRODUCTION","createdAt":"2026-11-23T06:50:37.123456Z","trust":{"score":812,"assessment":"Verified"}}`...)
	}
	page = append(page, `]}}`...)
	b.SetBytes(int64(len(page)))
	for b.Loop() {
		if !Plain(page) {
			b.Fatal("declined")
		}
	}
}
