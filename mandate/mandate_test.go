package mandate_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agenttrust/service/failure"
	"github.com/agenttrust/service/mandate"
	"github.com/agenttrust/service/money"
)

var now = time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)

func amt(s string) *money.Amount { a := money.MustParse(s); return &a }

func ptr[T any](v T) *T { return &v }

// base is an active mandate for agent_a: purchases from agent_s (org_s),
// 100 USD budget with 90 spent, at most 40 a transaction, 3 of 5 uses made,
// valid from an hour ago to a day from now.
func base() mandate.Mandate {
	return mandate.Mandate{ID: "mdt_m", AgentID: "agent_a", OrgID: "org_a", Actions: []string{"purchase", "refund"},
		CounterpartyAgents: []string{"agent_s"}, CounterpartyOrgs: []string{"org_s"},
		MaxPerTransaction: amt("40"), Budget: *amt("100"), Currency: "USD", MaxUses: ptr(5),
		NotBefore: ptr(now.Add(-time.Hour)), ExpiresAt: now.Add(24 * time.Hour), Spent: *amt("90"), Uses: 3}
}

func use() mandate.Use {
	return mandate.Use{Action: "purchase", Receiver: "agent_s", ReceiverOrg: "org_s", Amount: *amt("5")}
}

func TestCheck(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		m    func(*mandate.Mandate)
		u    func(*mandate.Use)
		at   time.Time
		code string
	}{
		{name: "allowed", code: ""},
		{name: "revoked", m: func(m *mandate.Mandate) { m.RevokedAt = ptr(now.Add(-time.Minute)) }, code: mandate.CodeRevoked},
		{name: "revoked wins over expired", m: func(m *mandate.Mandate) { m.RevokedAt = ptr(now) }, at: now.Add(48 * time.Hour), code: mandate.CodeRevoked},
		{name: "at expiresAt exactly", at: now.Add(24 * time.Hour), code: ""},
		{name: "just after expiresAt", at: now.Add(24*time.Hour + time.Nanosecond), code: mandate.CodeExpired},
		{name: "at notBefore exactly", at: now.Add(-time.Hour), code: ""},
		{name: "just before notBefore", at: now.Add(-time.Hour - time.Nanosecond), code: mandate.CodeNotActive},
		{name: "expired wins over not active", m: func(m *mandate.Mandate) { m.NotBefore = ptr(now.Add(72 * time.Hour)) }, at: now.Add(48 * time.Hour), code: mandate.CodeExpired},
		{name: "budget spent exactly", m: func(m *mandate.Mandate) { m.Spent = *amt("100") }, code: mandate.CodeExhausted},
		{name: "uses spent exactly", m: func(m *mandate.Mandate) { m.Uses = 5 }, code: mandate.CodeExhausted},
		{name: "last use", m: func(m *mandate.Mandate) { m.Uses = 4 }, code: ""},
		{name: "no use cap", m: func(m *mandate.Mandate) { m.MaxUses, m.Uses = nil, 1000 }, code: ""},
		{name: "exhausted wins over scope", m: func(m *mandate.Mandate) { m.Uses = 5 }, u: func(u *mandate.Use) { u.Action = "other" }, code: mandate.CodeExhausted},
		{name: "action outside", u: func(u *mandate.Use) { u.Action = "subscribe" }, code: mandate.CodeScopeMismatch},
		{name: "action case differs", u: func(u *mandate.Use) { u.Action = "Purchase" }, code: mandate.CodeScopeMismatch},
		{name: "second action", u: func(u *mandate.Use) { u.Action = "refund" }, code: ""},
		{name: "receiver outside", u: func(u *mandate.Use) { u.Receiver = "agent_t" }, code: mandate.CodeScopeMismatch},
		{name: "receiver org outside", u: func(u *mandate.Use) { u.ReceiverOrg = "org_t" }, code: mandate.CodeScopeMismatch},
		{name: "any receiver agent", m: func(m *mandate.Mandate) { m.CounterpartyAgents = nil }, u: func(u *mandate.Use) { u.Receiver = "agent_t" }, code: ""},
		{name: "any receiver org", m: func(m *mandate.Mandate) { m.CounterpartyOrgs = nil }, u: func(u *mandate.Use) { u.ReceiverOrg = "org_t" }, code: ""},
		{name: "no receiver passes the counterparty scope", u: func(u *mandate.Use) { u.Receiver, u.ReceiverOrg = "", "" }, code: ""},
		{name: "at maxPerTransaction exactly", m: func(m *mandate.Mandate) { m.Spent = *amt("0") }, u: func(u *mandate.Use) { u.Amount = *amt("40") }, code: ""},
		{name: "over maxPerTransaction", m: func(m *mandate.Mandate) { m.Spent = *amt("0") }, u: func(u *mandate.Use) { u.Amount = *amt("40.01") }, code: mandate.CodeAmountExceeded},
		{name: "remaining exactly", u: func(u *mandate.Use) { u.Amount = *amt("10") }, code: ""},
		{name: "over remaining", u: func(u *mandate.Use) { u.Amount = *amt("10.01") }, code: mandate.CodeAmountExceeded},
		{name: "no per-transaction cap", m: func(m *mandate.Mandate) { m.MaxPerTransaction, m.Spent = nil, *amt("0") }, u: func(u *mandate.Use) { u.Amount = *amt("100") }, code: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, u, at := base(), use(), now
			if tt.m != nil {
				tt.m(&m)
			}
			if tt.u != nil {
				tt.u(&u)
			}
			if !tt.at.IsZero() {
				at = tt.at
			}
			code, reason := m.Check(u, at)
			if code != tt.code {
				t.Fatalf("code %q (%s), want %q", code, reason, tt.code)
			}
			if (code == "") != (reason == "") || (code != "" && !strings.Contains(reason, "mdt_m")) {
				t.Errorf("reason %q does not name the mandate", reason)
			}
		})
	}
}

func TestReasonsCarryTheNumbers(t *testing.T) {
	t.Parallel()
	m, u := base(), use()
	u.Amount = *amt("12.5")
	_, reason := m.Check(u, now)
	for _, want := range []string{"12.50 USD", "10.00 USD", "100.00 USD", "90.00 USD"} {
		if !strings.Contains(reason, want) {
			t.Errorf("reason %q lacks %q", reason, want)
		}
	}
}

func TestStatusAt(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		m    func(*mandate.Mandate)
		at   time.Time
		want mandate.Status
	}{
		{"active", nil, now, mandate.Active},
		{"active before notBefore", nil, now.Add(-2 * time.Hour), mandate.Active},
		{"active at expiresAt", nil, now.Add(24 * time.Hour), mandate.Active},
		{"expired after expiresAt", nil, now.Add(24*time.Hour + time.Millisecond), mandate.Expired},
		{"exhausted by budget", func(m *mandate.Mandate) { m.Spent = *amt("100") }, now, mandate.Exhausted},
		{"exhausted by uses", func(m *mandate.Mandate) { m.Uses = 5 }, now, mandate.Exhausted},
		{"expired wins over exhausted", func(m *mandate.Mandate) { m.Uses = 5 }, now.Add(25 * time.Hour), mandate.Expired},
		{"revoked wins", func(m *mandate.Mandate) { m.RevokedAt, m.Uses = ptr(now), 5 }, now.Add(25 * time.Hour), mandate.Revoked},
	}
	for _, tt := range tests {
		m := base()
		if tt.m != nil {
			tt.m(&m)
		}
		if got := m.StatusAt(tt.at); got != tt.want {
			t.Errorf("%s: status %s, want %s", tt.name, got, tt.want)
		}
	}
	m := base()
	if got := m.Remaining(); got.Cmp(*amt("10")) != 0 {
		t.Errorf("remaining %s, want 10", got)
	}
	m.Spent = *amt("100")
	if got := m.Remaining(); !got.IsZero() {
		t.Errorf("remaining of a spent budget %s, want 0", got)
	}
}

func valid() mandate.CreateInput {
	return mandate.CreateInput{AgentID: "agent_a", Description: "two concert tickets", Actions: []string{"purchase"},
		Budget: *amt("300"), ExpiresAt: now.Add(24 * time.Hour)}
}

var grantee = mandate.Grantee{AuthorizedActions: []string{"purchase", "refund"}, Currency: "USD"}

func TestValidate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		change func(*mandate.CreateInput)
		fields []string
	}{
		{"valid", nil, nil},
		{"every field set", func(in *mandate.CreateInput) {
			in.CounterpartyAgents, in.CounterpartyOrgs = []string{"agent_s"}, []string{"org_s"}
			in.MaxPerTransaction, in.MaxUses, in.NotBefore = amt("150"), ptr(2), ptr(now)
		}, nil},
		{"blank description", func(in *mandate.CreateInput) { in.Description = " " }, []string{"input.description"}},
		{"long description", func(in *mandate.CreateInput) { in.Description = strings.Repeat("é", 1001) }, []string{"input.description"}},
		{"longest description", func(in *mandate.CreateInput) { in.Description = strings.Repeat("é", 1000) }, nil},
		{"control character", func(in *mandate.CreateInput) { in.Description = "a\x00b" }, []string{"input.description"}},
		{"no actions", func(in *mandate.CreateInput) { in.Actions = nil }, []string{"input.actions"}},
		{"unauthorized action", func(in *mandate.CreateInput) { in.Actions = []string{"purchase", "transfer"} }, []string{"input.actions[1]"}},
		{"duplicate action", func(in *mandate.CreateInput) { in.Actions = []string{"refund", "refund"} }, []string{"input.actions[1]"}},
		{"empty counterparty agents", func(in *mandate.CreateInput) { in.CounterpartyAgents = []string{} }, []string{"input.counterpartyAgents"}},
		{"org id among agents", func(in *mandate.CreateInput) { in.CounterpartyAgents = []string{"org_s"} }, []string{"input.counterpartyAgents[0]"}},
		{"agent id among orgs", func(in *mandate.CreateInput) { in.CounterpartyOrgs = []string{"org_s", "agent_s"} }, []string{"input.counterpartyOrgs[1]"}},
		{"zero budget", func(in *mandate.CreateInput) { in.Budget = *amt("0") }, []string{"input.budget"}},
		{"negative budget", func(in *mandate.CreateInput) { in.Budget = *amt("-1") }, []string{"input.budget"}},
		{"budget beyond cents", func(in *mandate.CreateInput) { in.Budget = *amt("1.001") }, []string{"input.budget"}},
		{"smallest budget", func(in *mandate.CreateInput) { in.Budget = *amt("0.01") }, nil},
		{"zero per transaction", func(in *mandate.CreateInput) { in.MaxPerTransaction = amt("0") }, []string{"input.maxPerTransaction"}},
		{"zero uses", func(in *mandate.CreateInput) { in.MaxUses = ptr(0) }, []string{"input.maxUses"}},
		{"one use", func(in *mandate.CreateInput) { in.MaxUses = ptr(1) }, nil},
		{"expires now", func(in *mandate.CreateInput) { in.ExpiresAt = now }, []string{"input.expiresAt"}},
		{"expires in 90 days exactly", func(in *mandate.CreateInput) { in.ExpiresAt = now.Add(mandate.MaxLifetime) }, nil},
		{"expires after 90 days", func(in *mandate.CreateInput) { in.ExpiresAt = now.Add(mandate.MaxLifetime + time.Millisecond) }, []string{"input.expiresAt"}},
		{"notBefore at expiresAt", func(in *mandate.CreateInput) { in.NotBefore = ptr(in.ExpiresAt) }, []string{"input.notBefore"}},
		{"notBefore just before expiresAt", func(in *mandate.CreateInput) { in.NotBefore = ptr(in.ExpiresAt.Add(-time.Millisecond)) }, nil},
		{"several at once", func(in *mandate.CreateInput) { in.Budget, in.MaxUses = *amt("0"), ptr(-1) }, []string{"input.budget", "input.maxUses"}},
	}
	for _, tt := range tests {
		in := valid()
		if tt.change != nil {
			tt.change(&in)
		}
		got := fields(in.Validate(now, grantee))
		if !slices.Equal(got, tt.fields) {
			t.Errorf("%s: fields %v, want %v", tt.name, got, tt.fields)
		}
	}
	if fields(mandate.ValidateAgentID("org_a")) == nil || mandate.ValidateAgentID("agent_a") != nil {
		t.Error("ValidateAgentID accepts what is not an agent id, or refuses one")
	}
	if fields(mandate.ValidateReason(ptr(strings.Repeat("x", 1001)))) == nil || mandate.ValidateReason(nil) != nil {
		t.Error("ValidateReason: a reason over 1000 characters passes, or none fails")
	}
}

func fields(err error) []string {
	fe := failure.As(err)
	if fe == nil {
		return nil
	}
	var out []string
	for _, f := range fe.FieldErrors {
		out = append(out, f.Field)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func TestEventPayloads(t *testing.T) {
	t.Parallel()
	m := base()
	m.RevokedAt, m.Status = ptr(now), mandate.Revoked
	b, err := json.Marshal(mandate.RevokedEvent{Data: m.ToData(), Reason: ptr("task cancelled")})
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	keys := slices.Sorted(func(yield func(string) bool) {
		for k := range got {
			if !yield(k) {
				return
			}
		}
	})
	want := []string{"actions", "agent_id", "budget", "counterparty_agents", "counterparty_orgs", "created_at", "currency",
		"description", "expires_at", "id", "max_per_transaction", "max_uses", "not_before", "org_id", "reason", "remaining",
		"revoked_at", "spent", "status", "uses"}
	if !slices.Equal(keys, want) {
		t.Errorf("keys %v, want %v", keys, want)
	}
	if got["remaining"] != 10.0 || got["status"] != "revoked" || got["reason"] != "task cancelled" || got["revoked_at"] != "2026-11-27T12:00:00.000Z" {
		t.Errorf("payload %v", got)
	}
	if (mandate.CreatedEvent{}).EventType() != "mandate.created" || (mandate.RevokedEvent{}).EventType() != "mandate.revoked" {
		t.Error("payloads name the wrong event types")
	}
}
