package benchdb

import "testing"

func TestTextArray(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   []string
		want string
	}{
		{nil, `{}`},
		{[]string{"agent_a", "agent_b"}, `{"agent_a","agent_b"}`},
		{[]string{`a"b`, `c\d`, "e,f"}, `{"a\"b","c\\d","e,f"}`},
	} {
		if got := TextArray(tc.in); got != tc.want {
			t.Errorf("TextArray(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}
