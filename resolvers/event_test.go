package resolvers_test

import (
	"bytes"
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/agenttrust/service/event"
	"github.com/agenttrust/service/internal/testkit"
)

var (
	eventIDPattern = regexp.MustCompile(`^evt_[A-Za-z0-9_-]{16,}$`)
	snakeCase      = regexp.MustCompile(`^[a-z]+(_[a-z]+)*$`)
)

// eventData decodes an event's data keeping numbers as written.
func eventData(t *testing.T, e event.Event) map[string]any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(e.Data))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("event %s data: %v", e.ID, err)
	}
	for k := range m {
		if !snakeCase.MatchString(k) {
			t.Errorf("event %s data key %q is not snake_case", e.Type, k)
		}
	}
	return m
}

func TestAgentEvents(t *testing.T) {
	t.Parallel()
	b := testkit.New(t)
	a := b.Register(map[string]any{"spendingLimit": "100.10"})
	u := b.UpdateAgent(a.ID, map[string]any{"name": "renamed", "dailyLimit": "20"})
	s := b.SuspendAgent(a.ID, "fraud")

	var evs []event.Event
	for _, e := range b.Events(b.OrgID) {
		if strings.HasPrefix(e.Type, "agent.") {
			evs = append(evs, e)
		}
	}
	types := make([]string, len(evs))
	for i, e := range evs {
		types[i] = e.Type
		if !eventIDPattern.MatchString(e.ID) || (i > 0 && e.ID == evs[i-1].ID) {
			t.Errorf("event id %q", e.ID)
		}
		if !slices.Equal(e.OrgIDs, []string{b.OrgID}) {
			t.Errorf("event %s goes to %v", e.Type, e.OrgIDs)
		}
	}
	if !slices.Equal(types, []string{"agent.registered", "agent.updated", "agent.suspended"}) {
		t.Fatalf("event types %v", types)
	}

	base := []string{"authorized_actions", "created_at", "currency", "daily_limit", "environment", "fingerprint",
		"id", "name", "org_id", "spending_limit", "status", "updated_at"}
	want := []struct {
		agent   testkit.Agent
		extra   []string
		daily   any
		changed []any
	}{
		{a, nil, nil, nil},
		{u, []string{"changed_fields"}, json.Number("20"), []any{"name", "daily_limit"}},
		{s, []string{"reason"}, json.Number("20"), nil},
	}
	for i, w := range want {
		d := eventData(t, evs[i])
		keys := slices.Sorted(func(yield func(string) bool) {
			for k := range d {
				if !yield(k) {
					return
				}
			}
		})
		if wantKeys := slices.Sorted(slices.Values(append(slices.Clone(base), w.extra...))); !slices.Equal(keys, wantKeys) {
			t.Errorf("%s data keys %v, want %v", evs[i].Type, keys, wantKeys)
		}
		if d["id"] != w.agent.ID || d["org_id"] != b.OrgID || d["name"] != w.agent.Name || d["status"] != w.agent.Status ||
			d["fingerprint"] != w.agent.Fingerprint || d["spending_limit"] != json.Number("100.1") || d["daily_limit"] != w.daily ||
			d["currency"] != "USD" || d["environment"] != "sandbox" || d["created_at"] != a.CreatedAt || d["updated_at"] != w.agent.UpdatedAt {
			t.Errorf("%s data %v, agent %+v", evs[i].Type, d, w.agent)
		}
		if w.changed != nil && !slices.Equal(d["changed_fields"].([]any), w.changed) {
			t.Errorf("changed_fields %v, want %v", d["changed_fields"], w.changed)
		}
	}
	if d := eventData(t, evs[2]); d["reason"] != "fraud" {
		t.Errorf("suspension reason %v", d["reason"])
	}
}

// A refused or no-op mutation writes no event.
func TestNoEventWithoutChange(t *testing.T) {
	t.Parallel()
	b := testkit.New(t)
	a := b.Register(nil)
	rival := b.NewOrgWithKey("rival")
	refusals := []struct {
		key, query string
		vars       map[string]any
		code       string
	}{
		{b.Key, testkit.RegisterMutation, map[string]any{"input": testkit.RegisterInput(map[string]any{"name": ""})}, "VALIDATION_FAILED"},
		{b.Key, testkit.RegisterMutation, map[string]any{"input": testkit.RegisterInput(map[string]any{"spendingLimit": "abc"})}, "VALIDATION_FAILED"},
		{b.Key, testkit.UpdateMutation, map[string]any{"id": a.ID, "input": map[string]any{"spendingLimit": "0"}}, "VALIDATION_FAILED"},
		{rival.Key, testkit.UpdateMutation, map[string]any{"id": a.ID, "input": map[string]any{"name": "x"}}, "NOT_FOUND"},
		{rival.Key, testkit.SuspendMutation, map[string]any{"id": a.ID}, "NOT_FOUND"},
		{b.Key, testkit.UpdateMutation, map[string]any{"id": a.ID, "input": map[string]any{"name": a.Name}}, ""},
	}
	before := len(b.Events(b.OrgID))
	for _, r := range refusals {
		if resp := b.Do(r.key, r.query, r.vars); r.code != "" {
			resp.Refused(t, r.code)
		}
		if n := len(b.Events(b.OrgID)); n != before {
			t.Fatalf("%v wrote %d events", r.vars, n-before)
		}
	}
	b.SuspendAgent(a.ID, nil)
	before = len(b.Events(b.OrgID))
	b.Do(b.Key, testkit.SuspendMutation, map[string]any{"id": a.ID}).Refused(t, "CONFLICT")
	if n := len(b.Events(b.OrgID)); n != before {
		t.Fatalf("a refused suspension wrote %d events", n-before)
	}
	if got := b.AgentEvents(b.OrgID); !slices.Equal(got, []string{"agent.registered", "agent.suspended"}) {
		t.Fatalf("agent events %v", got)
	}
	if got := b.Events(rival.ID); len(got) != 0 {
		t.Fatalf("rival received %d events", len(got))
	}
}
