package agent_test

import (
	"encoding/json"
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/agenttrust/service/agent"
	"github.com/agenttrust/service/event"
)

var snakeCase = regexp.MustCompile(`^[a-z]+(_[a-z]+)*$`)

// keys encodes a payload and returns its top-level keys, sorted, failing on
// any key that is not snake_case.
func keys(t *testing.T, p event.Payload) (map[string]json.RawMessage, []string) {
	t.Helper()
	raw, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	var out []string
	for k := range m {
		if !snakeCase.MatchString(k) {
			t.Errorf("%s: key %q is not snake_case", p.EventType(), k)
		}
		out = append(out, k)
	}
	slices.Sort(out)
	return m, out
}

// TestEventPayloads pins the data of every agent.* event: its type, its keys
// and the encoding of the values a webhook consumer parses.
func TestEventPayloads(t *testing.T) {
	t.Parallel()
	a := sample()
	a.CreatedAt = time.Date(2026, 11, 21, 19, 51, 27, 123456789, time.UTC)
	a.UpdatedAt = a.CreatedAt.Add(time.Hour)
	a.Fingerprint = agent.Fingerprint(a)
	reason := "fraud"
	base := []string{"authorized_actions", "created_at", "currency", "daily_limit", "environment", "fingerprint",
		"id", "name", "org_id", "spending_limit", "status", "updated_at"}
	for _, tc := range []struct {
		p     event.Payload
		typ   string
		extra map[string]string // key -> exact JSON
	}{
		{agent.RegisteredEvent{Data: a.ToData()}, "agent.registered", nil},
		{agent.UpdatedEvent{Data: a.ToData(), ChangedFields: []string{"name", "daily_limit"}}, "agent.updated",
			map[string]string{"changed_fields": `["name","daily_limit"]`}},
		{agent.SuspendedEvent{Data: a.ToData(), Reason: &reason}, "agent.suspended", map[string]string{"reason": `"fraud"`}},
		{agent.SuspendedEvent{Data: a.ToData()}, "agent.suspended", map[string]string{"reason": `null`}},
		{agent.ReinstatedEvent{Data: a.ToData(), Reason: &reason}, "agent.reinstated", map[string]string{"reason": `"fraud"`}},
	} {
		if tc.p.EventType() != tc.typ || !event.Known(tc.typ) {
			t.Errorf("%T: EventType %q, want %q", tc.p, tc.p.EventType(), tc.typ)
		}
		m, got := keys(t, tc.p)
		want := slices.Clone(base)
		for k, v := range tc.extra {
			want = append(want, k)
			if string(m[k]) != v {
				t.Errorf("%s: %s = %s, want %s", tc.typ, k, m[k], v)
			}
		}
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s keys %v, want %v", tc.typ, got, want)
		}
		for k, v := range map[string]string{
			"id": `"agent_a"`, "org_id": `"org_o"`, "spending_limit": `250`, "daily_limit": `1000`,
			"authorized_actions": `["refund","purchase"]`, "status": `"active"`, "environment": `"sandbox"`,
			"created_at": `"2026-11-21T19:51:27.123Z"`, "updated_at": `"2026-11-21T20:51:27.123Z"`,
			"fingerprint": `"` + a.Fingerprint + `"`,
		} {
			if string(m[k]) != v {
				t.Errorf("%s: %s = %s, want %s", tc.typ, k, m[k], v)
			}
		}
	}
}
