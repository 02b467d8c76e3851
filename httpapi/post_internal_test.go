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
