package httpapi

import (
	"encoding/json"
	"testing"

	"github.com/99designs/gqlgen/graphql"
)

// When plainJSON lets data through, {"data":…} must be exactly what gqlgen's
// encoding/json writes; when it does not, encoding/json would change it.
func TestPlainJSON(t *testing.T) {
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
		if got := plainJSON([]byte(c.data)); got != c.plain {
			t.Errorf("plainJSON(%q) = %v, want %v", c.data, got, c.plain)
		}
		if c.data == "" {
			continue
		}
		want, err := json.Marshal(&graphql.Response{Data: json.RawMessage(c.data)})
		if err != nil {
			t.Fatal(err)
		}
		same := string(want) == `{"data":`+c.data+`}`
		if c.plain && !same {
			t.Errorf("%q: encoding/json writes %s", c.data, want)
		}
		if !c.plain && same {
			t.Errorf("%q: declined although encoding/json leaves it unchanged", c.data)
		}
	}
}

// plainJSON agrees with encoding/json on every valid document: it lets data
// through exactly when encoding/json would write it unchanged.
func FuzzPlainJSON(f *testing.F) {
	for _, s := range []string{
		`{"agents":{"nodes":[{"id":"agent_1","name":"High Risk","spendingLimit":100.5}]}}`,
		`{"a":"quote \" and backslash \\ and \u00e9 é ✓"}`, `{"a":"x>y"}`, "{\"a\":\"line\u2028sep\"}",
		`{"a": 1}`, `[1, "a b"]`, `"\\"`, ` null`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if !json.Valid(data) {
			return
		}
		b, err := json.Marshal(&graphql.Response{Data: json.RawMessage(data)})
		if err != nil {
			t.Fatal(err)
		}
		if same := string(b) == `{"data":`+string(data)+`}`; plainJSON(data) != same {
			t.Fatalf("plainJSON(%q) = %v, but encoding/json writes %s", data, !same, b)
		}
	})
}

func BenchmarkPlainJSON(b *testing.B) {
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
		if !plainJSON(page) {
			b.Fatal("declined")
		}
	}
}
