package resolvers_test

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/agenttrust/service/internal/testkit"
)

func TestRegisterAgent(t *testing.T) {
	t.Parallel()
	b := testkit.New(t)
	a := b.Register(map[string]any{"dailyLimit": 250, "environment": "production"})
	if a.Name != "buyer" || !slices.Equal(a.AuthorizedActions, []string{"purchase", "refund"}) ||
		a.Currency != "USD" || a.Environment != "production" || a.Status != "active" {
		t.Fatalf("unexpected agent: %+v", a)
	}
	if string(a.SpendingLimit) != "100.5" || string(a.DailyLimit) != "250" {
		t.Fatalf("limits: %s %s", a.SpendingLimit, a.DailyLimit)
	}
	if a.CreatedAt != a.UpdatedAt {
		t.Fatalf("a new agent's updatedAt %s differs from createdAt %s", a.UpdatedAt, a.CreatedAt)
	}
	if len(a.AuditChain) != 1 {
		t.Fatalf("audit chain: %+v", a.AuditChain)
	}
	e := a.AuditChain[0]
	if e.Sequence != 1 || e.Action != "agent.registered" || e.PreviousHash != nil ||
		e.Actor != b.KeyID || e.Timestamp != a.CreatedAt {
		t.Fatalf("first audit entry: %+v (key %s)", e, b.KeyID)
	}
	if e.Details["id"] != a.ID || e.Details["fingerprint"] != a.Fingerprint || e.Details["spending_limit"] != 100.5 {
		t.Fatalf("first audit entry details: %v", e.Details)
	}

	same := b.Register(map[string]any{"dailyLimit": 250, "environment": "production"})
	if same.ID == a.ID || same.Fingerprint == a.Fingerprint {
		t.Fatalf("two registrations share id or fingerprint: %s %s", same.ID, same.Fingerprint)
	}
}

// Decimal output is a JSON number, exact and without trailing zeros.
func TestRegisterAgentDecimalOutput(t *testing.T) {
	t.Parallel()
	b := testkit.New(t)
	cases := []struct {
		currency     string
		spending     any
		daily        any
		wantSpending string
		wantDaily    string
	}{
		{"USD", "100.10", nil, "100.1", "null"},
		{"USD", 100.5, "0.30", "100.5", "0.3"},
		{"USD", json.Number("100.50"), json.Number("7"), "100.5", "7"},
		{"USD", "1000.00", "0.01", "1000", "0.01"},
		{"USD", "1e2", nil, "100", "null"},
		{"USD", json.Number("999999999999999.99"), nil, "999999999999999.99", "null"},
		{"JPY", "500", "1.0", "500", "1"},
		{"KWD", "1.234", nil, "1.234", "null"},
	}
	for _, c := range cases {
		a := b.Register(map[string]any{"currency": c.currency, "spendingLimit": c.spending, "dailyLimit": c.daily})
		if string(a.SpendingLimit) != c.wantSpending || string(a.DailyLimit) != c.wantDaily || a.Currency != c.currency {
			t.Errorf("%s %v/%v: got %s/%s %s, want %s/%s", c.currency, c.spending, c.daily,
				a.SpendingLimit, a.DailyLimit, a.Currency, c.wantSpending, c.wantDaily)
		}
		if got := b.Agent(a.ID); string(got.SpendingLimit) != c.wantSpending || string(got.DailyLimit) != c.wantDaily {
			t.Errorf("%s %v read back as %s/%s", c.currency, c.spending, got.SpendingLimit, got.DailyLimit)
		}
	}
}

// Names are counted in characters, not bytes.
func TestRegisterAgentNameBoundaries(t *testing.T) {
	t.Parallel()
	b := testkit.New(t)
	for _, name := range []string{"x", strings.Repeat("a", 200), strings.Repeat("日", 200), " padded name "} {
		if a := b.Register(map[string]any{"name": name}); a.Name != name {
			t.Errorf("name %q came back as %q", name, a.Name)
		}
	}
}

func TestAgent(t *testing.T) {
	t.Parallel()
	b := testkit.New(t)
	a := b.Register(nil)
	if got := b.Agent(a.ID); !reflect.DeepEqual(got, a) {
		t.Fatalf("agent(id) = %+v\nregisterAgent = %+v", got, a)
	}
	for _, id := range []string{"agent_doesnotexist", "", "not-an-id", a.ID + "x"} {
		b.Do(b.Key, testkit.AgentQuery, map[string]any{"id": id}).Refused(t, "NOT_FOUND")
	}
}

func TestUpdateAgent(t *testing.T) {
	t.Parallel()
	b := testkit.New(t)
	a := b.Register(map[string]any{"dailyLimit": "50"})
	u := b.UpdateAgent(a.ID, map[string]any{"name": "seller", "spendingLimit": "200.25", "dailyLimit": 75})
	if u.ID != a.ID || u.Name != "seller" || string(u.SpendingLimit) != "200.25" || string(u.DailyLimit) != "75" {
		t.Fatalf("updated agent: %+v", u)
	}
	if u.CreatedAt != a.CreatedAt || u.Currency != a.Currency || u.Environment != a.Environment ||
		u.Status != "active" || !slices.Equal(u.AuthorizedActions, a.AuthorizedActions) {
		t.Fatalf("update changed what it should not: %+v", u)
	}
	if got := b.Agent(a.ID); !reflect.DeepEqual(got, u) {
		t.Fatalf("agent(id) after update = %+v, want %+v", got, u)
	}
	changes, _ := u.AuditChain[1].Details["changes"].(map[string]any)
	want := map[string]any{
		"name":           map[string]any{"from": "buyer", "to": "seller"},
		"spending_limit": map[string]any{"from": "100.5", "to": "200.25"},
		"daily_limit":    map[string]any{"from": "50", "to": "75"},
	}
	if !reflect.DeepEqual(changes, want) {
		t.Fatalf("audit changes = %v, want %v", changes, want)
	}

	cleared := b.UpdateAgent(a.ID, map[string]any{"dailyLimit": nil})
	if string(cleared.DailyLimit) != "null" || string(b.Agent(a.ID).DailyLimit) != "null" {
		t.Fatalf("dailyLimit: null left %s", cleared.DailyLimit)
	}
	if cleared.Name != "seller" || string(cleared.SpendingLimit) != "200.25" {
		t.Fatalf("clearing dailyLimit changed other fields: %+v", cleared)
	}

	b.Do(b.Key, testkit.UpdateMutation, map[string]any{"id": "agent_nope", "input": map[string]any{"name": "x"}}).Refused(t, "NOT_FOUND")
}

func TestSuspendAgent(t *testing.T) {
	t.Parallel()
	b := testkit.New(t)
	a := b.Register(nil)
	other := b.Register(map[string]any{"name": "other"})
	s := b.SuspendAgent(a.ID, "compromised key")
	if s.Status != "suspended" || s.Fingerprint != a.Fingerprint || s.Name != a.Name || s.CreatedAt != a.CreatedAt {
		t.Fatalf("suspended agent: %+v", s)
	}
	if last := s.AuditChain[len(s.AuditChain)-1]; last.Action != "agent.suspended" || last.Details["reason"] != "compromised key" {
		t.Fatalf("suspension entry: %+v", last)
	}
	if got := b.Agent(a.ID); got.Status != "suspended" {
		t.Fatalf("agent(id).status = %s after suspension", got.Status)
	}
	b.Do(b.Key, testkit.SuspendMutation, map[string]any{"id": a.ID}).Refused(t, "CONFLICT")
	b.Do(b.Key, testkit.SuspendMutation, map[string]any{"id": "agent_nope"}).Refused(t, "NOT_FOUND")

	if ids := b.Agents(b.Key, map[string]any{"status": "suspended"}).IDs(); !slices.Equal(ids, []string{a.ID}) {
		t.Fatalf("agents(status: suspended) = %v, want [%s]", ids, a.ID)
	}
	if ids := b.Agents(b.Key, map[string]any{"status": "active"}).IDs(); !slices.Equal(ids, []string{other.ID}) {
		t.Fatalf("agents(status: active) = %v, want [%s]", ids, other.ID)
	}

	if got := b.SuspendAgent(other.ID, nil); got.AuditChain[1].Details["reason"] != nil {
		t.Fatalf("suspension without reason recorded %v", got.AuditChain[1].Details["reason"])
	}
}

func TestSuspendAgentReasonTooLong(t *testing.T) {
	t.Parallel()
	b := testkit.New(t)
	a := b.Register(nil)
	r := b.Do(b.Key, testkit.SuspendMutation, map[string]any{"id": a.ID, "reason": strings.Repeat("r", 2001)})
	if got := r.Fields(t); !slices.Equal(got, []string{"reason"}) {
		t.Fatalf("fieldErrors = %v", got)
	}
	if got := b.Agent(a.ID); got.Status != "active" || len(got.AuditChain) != 1 {
		t.Fatalf("refused suspension changed the agent: %+v", got)
	}
}
