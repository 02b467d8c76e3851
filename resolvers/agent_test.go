package resolvers_test

import (
	"encoding/json"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

const (
	agentFields    = `id name authorizedActions spendingLimit dailyLimit currency environment status fingerprint createdAt updatedAt`
	auditFields    = `sequence action timestamp actor details hash previousHash`
	agentSelection = agentFields + ` auditChain { ` + auditFields + ` }`

	registerMutation = `mutation($input: RegisterAgentInput!) { registerAgent(input: $input) { ` + agentSelection + ` } }`
	updateMutation   = `mutation($id: ID!, $input: UpdateAgentInput!) { updateAgent(id: $id, input: $input) { ` + agentSelection + ` } }`
	suspendMutation  = `mutation($id: ID!, $reason: String) { suspendAgent(id: $id, reason: $reason) { ` + agentSelection + ` } }`
	agentQuery       = `query($id: ID!) { agent(id: $id) { ` + agentSelection + ` } }`
)

var (
	agentIDPattern     = regexp.MustCompile(`^agent_[A-Za-z0-9_-]{16,}$`)
	keyIDPattern       = regexp.MustCompile(`^key_[A-Za-z0-9_-]{16,}$`)
	fingerprintPattern = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)
	hashPattern        = regexp.MustCompile(`^[0-9a-f]{64}$`)
	timePattern        = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$`)
)

type auditEntryJSON struct {
	Sequence     int            `json:"sequence"`
	Action       string         `json:"action"`
	Timestamp    string         `json:"timestamp"`
	Actor        string         `json:"actor"`
	Hash         string         `json:"hash"`
	PreviousHash *string        `json:"previousHash"`
	Details      map[string]any `json:"details"`
}

type agentJSON struct {
	ID                string           `json:"id"`
	Name              string           `json:"name"`
	AuthorizedActions []string         `json:"authorizedActions"`
	SpendingLimit     json.RawMessage  `json:"spendingLimit"`
	DailyLimit        json.RawMessage  `json:"dailyLimit"`
	Currency          string           `json:"currency"`
	Environment       string           `json:"environment"`
	Status            string           `json:"status"`
	Fingerprint       string           `json:"fingerprint"`
	CreatedAt         string           `json:"createdAt"`
	UpdatedAt         string           `json:"updatedAt"`
	AuditChain        []auditEntryJSON `json:"auditChain"`
}

func registerInput(overrides map[string]any) map[string]any {
	in := map[string]any{
		"name": "buyer", "authorizedActions": []any{"purchase", "refund"},
		"spendingLimit": "100.50", "currency": "USD", "environment": "sandbox",
	}
	for k, v := range overrides {
		if v == nil {
			delete(in, k)
		} else {
			in[k] = v
		}
	}
	return in
}

// with returns the bundle reporting to t (a subtest).
func (b *bundle) with(t *testing.T) *bundle {
	c := *b
	c.t = t
	return &c
}

func (b *bundle) register(overrides map[string]any) agentJSON {
	b.t.Helper()
	var a agentJSON
	b.q(registerMutation, map[string]any{"input": registerInput(overrides)}).into(b.t, "registerAgent", &a)
	checkAgent(b.t, a)
	return a
}

func (b *bundle) agent(id string) agentJSON {
	b.t.Helper()
	var a agentJSON
	b.q(agentQuery, map[string]any{"id": id}).into(b.t, "agent", &a)
	checkAgent(b.t, a)
	return a
}

func (b *bundle) update(id string, input map[string]any) agentJSON {
	b.t.Helper()
	var a agentJSON
	b.q(updateMutation, map[string]any{"id": id, "input": input}).into(b.t, "updateAgent", &a)
	checkAgent(b.t, a)
	return a
}

func (b *bundle) suspend(id string, reason any) agentJSON {
	b.t.Helper()
	var a agentJSON
	b.q(suspendMutation, map[string]any{"id": id, "reason": reason}).into(b.t, "suspendAgent", &a)
	checkAgent(b.t, a)
	return a
}

// checkAgent asserts the contract's formats on every field of a.
func checkAgent(t *testing.T, a agentJSON) {
	t.Helper()
	if !agentIDPattern.MatchString(a.ID) {
		t.Errorf("id %q is not agent_<url-safe id>", a.ID)
	}
	if !fingerprintPattern.MatchString(a.Fingerprint) {
		t.Errorf("fingerprint %q is not sha256:<64 hex>", a.Fingerprint)
	}
	checkTime(t, "createdAt", a.CreatedAt)
	checkTime(t, "updatedAt", a.UpdatedAt)
	if a.UpdatedAt < a.CreatedAt {
		t.Errorf("updatedAt %s before createdAt %s", a.UpdatedAt, a.CreatedAt)
	}
	if a.Status != "active" && a.Status != "suspended" {
		t.Errorf("status %q", a.Status)
	}
	var n float64
	if err := json.Unmarshal(a.SpendingLimit, &n); err != nil || n <= 0 {
		t.Errorf("spendingLimit %s is not a positive JSON number", a.SpendingLimit)
	}
	if string(a.DailyLimit) != "null" {
		if err := json.Unmarshal(a.DailyLimit, &n); err != nil || n <= 0 {
			t.Errorf("dailyLimit %s is neither null nor a positive JSON number", a.DailyLimit)
		}
	}
	for _, e := range a.AuditChain {
		checkTime(t, "audit timestamp", e.Timestamp)
		if !hashPattern.MatchString(e.Hash) || !keyIDPattern.MatchString(e.Actor) {
			t.Errorf("audit entry %d: hash %q actor %q", e.Sequence, e.Hash, e.Actor)
		}
	}
}

// checkTime asserts RFC 3339 in UTC with milliseconds, and a recent instant.
func checkTime(t *testing.T, name, s string) {
	t.Helper()
	at, err := time.Parse(time.RFC3339Nano, s)
	if !timePattern.MatchString(s) || err != nil {
		t.Errorf("%s %q is not RFC 3339 UTC with milliseconds (%v)", name, s, err)
		return
	}
	if d := time.Since(at); d < -time.Minute || d > time.Minute {
		t.Errorf("%s %s is %v away from now", name, s, d)
	}
}

func TestRegisterAgent(t *testing.T) {
	t.Parallel()
	b := setup(t)
	a := b.register(map[string]any{"dailyLimit": 250, "environment": "production"})
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
		e.Actor != b.keyID || e.Timestamp != a.CreatedAt {
		t.Fatalf("first audit entry: %+v (key %s)", e, b.keyID)
	}
	if e.Details["id"] != a.ID || e.Details["fingerprint"] != a.Fingerprint || e.Details["spending_limit"] != 100.5 {
		t.Fatalf("first audit entry details: %v", e.Details)
	}

	same := b.register(map[string]any{"dailyLimit": 250, "environment": "production"})
	if same.ID == a.ID || same.Fingerprint == a.Fingerprint {
		t.Fatalf("two registrations share id or fingerprint: %s %s", same.ID, same.Fingerprint)
	}
}

// Decimal output is a JSON number, exact and without trailing zeros.
func TestRegisterAgentDecimalOutput(t *testing.T) {
	t.Parallel()
	b := setup(t)
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
		a := b.register(map[string]any{"currency": c.currency, "spendingLimit": c.spending, "dailyLimit": c.daily})
		if string(a.SpendingLimit) != c.wantSpending || string(a.DailyLimit) != c.wantDaily || a.Currency != c.currency {
			t.Errorf("%s %v/%v: got %s/%s %s, want %s/%s", c.currency, c.spending, c.daily,
				a.SpendingLimit, a.DailyLimit, a.Currency, c.wantSpending, c.wantDaily)
		}
		if got := b.agent(a.ID); string(got.SpendingLimit) != c.wantSpending || string(got.DailyLimit) != c.wantDaily {
			t.Errorf("%s %v read back as %s/%s", c.currency, c.spending, got.SpendingLimit, got.DailyLimit)
		}
	}
}

// Names are counted in characters, not bytes.
func TestRegisterAgentNameBoundaries(t *testing.T) {
	t.Parallel()
	b := setup(t)
	for _, name := range []string{"x", strings.Repeat("a", 200), strings.Repeat("日", 200), " padded name "} {
		if a := b.register(map[string]any{"name": name}); a.Name != name {
			t.Errorf("name %q came back as %q", name, a.Name)
		}
	}
}

func TestAgent(t *testing.T) {
	t.Parallel()
	b := setup(t)
	a := b.register(nil)
	if got := b.agent(a.ID); !reflect.DeepEqual(got, a) {
		t.Fatalf("agent(id) = %+v\nregisterAgent = %+v", got, a)
	}
	for _, id := range []string{"agent_doesnotexist", "", "not-an-id", a.ID + "x"} {
		b.do(b.key, agentQuery, map[string]any{"id": id}).refused(t, "NOT_FOUND")
	}
}

func TestUpdateAgent(t *testing.T) {
	t.Parallel()
	b := setup(t)
	a := b.register(map[string]any{"dailyLimit": "50"})
	u := b.update(a.ID, map[string]any{"name": "seller", "spendingLimit": "200.25", "dailyLimit": 75})
	if u.ID != a.ID || u.Name != "seller" || string(u.SpendingLimit) != "200.25" || string(u.DailyLimit) != "75" {
		t.Fatalf("updated agent: %+v", u)
	}
	if u.CreatedAt != a.CreatedAt || u.Currency != a.Currency || u.Environment != a.Environment ||
		u.Status != "active" || !slices.Equal(u.AuthorizedActions, a.AuthorizedActions) {
		t.Fatalf("update changed what it should not: %+v", u)
	}
	if got := b.agent(a.ID); !reflect.DeepEqual(got, u) {
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

	cleared := b.update(a.ID, map[string]any{"dailyLimit": nil})
	if string(cleared.DailyLimit) != "null" || string(b.agent(a.ID).DailyLimit) != "null" {
		t.Fatalf("dailyLimit: null left %s", cleared.DailyLimit)
	}
	if cleared.Name != "seller" || string(cleared.SpendingLimit) != "200.25" {
		t.Fatalf("clearing dailyLimit changed other fields: %+v", cleared)
	}

	b.do(b.key, updateMutation, map[string]any{"id": "agent_nope", "input": map[string]any{"name": "x"}}).refused(t, "NOT_FOUND")
}

func TestSuspendAgent(t *testing.T) {
	t.Parallel()
	b := setup(t)
	a := b.register(nil)
	other := b.register(map[string]any{"name": "other"})
	s := b.suspend(a.ID, "compromised key")
	if s.Status != "suspended" || s.Fingerprint != a.Fingerprint || s.Name != a.Name || s.CreatedAt != a.CreatedAt {
		t.Fatalf("suspended agent: %+v", s)
	}
	if last := s.AuditChain[len(s.AuditChain)-1]; last.Action != "agent.suspended" || last.Details["reason"] != "compromised key" {
		t.Fatalf("suspension entry: %+v", last)
	}
	if got := b.agent(a.ID); got.Status != "suspended" {
		t.Fatalf("agent(id).status = %s after suspension", got.Status)
	}
	b.do(b.key, suspendMutation, map[string]any{"id": a.ID}).refused(t, "CONFLICT")
	b.do(b.key, suspendMutation, map[string]any{"id": "agent_nope"}).refused(t, "NOT_FOUND")

	if ids := b.list(b.key, map[string]any{"status": "suspended"}).ids(); !slices.Equal(ids, []string{a.ID}) {
		t.Fatalf("agents(status: suspended) = %v, want [%s]", ids, a.ID)
	}
	if ids := b.list(b.key, map[string]any{"status": "active"}).ids(); !slices.Equal(ids, []string{other.ID}) {
		t.Fatalf("agents(status: active) = %v, want [%s]", ids, other.ID)
	}

	if got := b.suspend(other.ID, nil); got.AuditChain[1].Details["reason"] != nil {
		t.Fatalf("suspension without reason recorded %v", got.AuditChain[1].Details["reason"])
	}
}

func TestSuspendAgentReasonTooLong(t *testing.T) {
	t.Parallel()
	b := setup(t)
	a := b.register(nil)
	r := b.do(b.key, suspendMutation, map[string]any{"id": a.ID, "reason": strings.Repeat("r", 2001)})
	if got := r.fields(t); !slices.Equal(got, []string{"reason"}) {
		t.Fatalf("fieldErrors = %v", got)
	}
	if got := b.agent(a.ID); got.Status != "active" || len(got.AuditChain) != 1 {
		t.Fatalf("refused suspension changed the agent: %+v", got)
	}
}
