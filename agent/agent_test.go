package agent_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agenttrust/service/agent"
	"github.com/agenttrust/service/failure"
	"github.com/agenttrust/service/money"
)

func sample() agent.Agent {
	daily := money.MustParse("1000")
	return agent.Agent{ID: "agent_a", OrgID: "org_o", Name: "shopper", AuthorizedActions: []string{"refund", "purchase"},
		SpendingLimit: money.MustParse("250"), DailyLimit: &daily, Currency: "USD", Environment: agent.Sandbox, Status: agent.Active}
}

func TestFingerprint(t *testing.T) {
	t.Parallel()
	a := sample()
	fp := agent.Fingerprint(a)
	// Exactly the canonical encoding docs/trust.md documents.
	doc := `{"v":1,"id":"agent_a","org_id":"org_o","name":"shopper","authorized_actions":["purchase","refund"],` +
		`"spending_limit":"250.00","daily_limit":"1000.00","currency":"USD","environment":"sandbox"}`
	sum := sha256.Sum256([]byte(doc))
	if want := "sha256:" + hex.EncodeToString(sum[:]); fp != want {
		t.Fatalf("fingerprint %s, want %s over the documented encoding", fp, want)
	}
	same := a
	same.AuthorizedActions = []string{"purchase", "refund"}
	same.Status = agent.Suspended
	same.SpendingLimit = money.MustParse("250.00")
	same.UpdatedAt = time.Now()
	if agent.Fingerprint(same) != fp {
		t.Error("action order, status, timestamps or trailing zeros changed the fingerprint")
	}
	for name, change := range map[string]func(*agent.Agent){
		"name":        func(a *agent.Agent) { a.Name = "other" },
		"actions":     func(a *agent.Agent) { a.AuthorizedActions = []string{"purchase"} },
		"limit":       func(a *agent.Agent) { a.SpendingLimit = money.MustParse("250.01") },
		"daily":       func(a *agent.Agent) { a.DailyLimit = nil },
		"currency":    func(a *agent.Agent) { a.Currency = "EUR" },
		"environment": func(a *agent.Agent) { a.Environment = agent.Production },
		"id":          func(a *agent.Agent) { a.ID = "agent_b" },
		"org":         func(a *agent.Agent) { a.OrgID = "org_p" },
	} {
		b := sample()
		change(&b)
		if agent.Fingerprint(b) == fp {
			t.Errorf("changing %s kept the fingerprint", name)
		}
	}
}

func chain(t *testing.T, n int) []agent.AuditEntry {
	t.Helper()
	var out []agent.AuditEntry
	at := time.Date(2026, 11, 21, 19, 51, 27, 123456789, time.UTC)
	for i := 0; i < n; i++ {
		var prev *agent.AuditEntry
		if i > 0 {
			prev = &out[i-1]
		}
		e, err := agent.NextEntry(prev, "agent_a", "agent.updated", "key_k", at.Add(time.Duration(i)*time.Second),
			map[string]any{"fingerprint": fmt.Sprintf("sha256:%d", i), "n": i, "b": map[string]any{"z": 1, "a": "2"}})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, e)
	}
	return out
}

func TestVerifyChain(t *testing.T) {
	t.Parallel()
	if !agent.VerifyChain(chain(t, 4)) || !agent.VerifyChain(nil) {
		t.Fatal("an untouched chain does not verify")
	}
	// Postgres jsonb may reorder keys and whitespace: the hash covers canonical JSON.
	c := chain(t, 3)
	c[1].Details = json.RawMessage(`{ "n": 1, "fingerprint": "sha256:1", "b": {"a": "2", "z": 1} }`)
	if !agent.VerifyChain(c) {
		t.Fatal("re-encoded details broke the chain")
	}
	for name, tamper := range map[string]func([]agent.AuditEntry) []agent.AuditEntry{
		"action":  func(c []agent.AuditEntry) []agent.AuditEntry { c[1].Action = "x"; return c },
		"actor":   func(c []agent.AuditEntry) []agent.AuditEntry { c[0].Actor = "key_other"; return c },
		"details": func(c []agent.AuditEntry) []agent.AuditEntry { c[2].Details = json.RawMessage(`{"n":9}`); return c },
		"timestamp": func(c []agent.AuditEntry) []agent.AuditEntry {
			c[1].Timestamp = c[1].Timestamp.Add(time.Microsecond)
			return c
		},
		"link":      func(c []agent.AuditEntry) []agent.AuditEntry { c[2].PreviousHash = c[0].Hash; return c },
		"dropped":   func(c []agent.AuditEntry) []agent.AuditEntry { return append(c[:1], c[2:]...) },
		"reordered": func(c []agent.AuditEntry) []agent.AuditEntry { c[1], c[2] = c[2], c[1]; return c },
	} {
		if agent.VerifyChain(tamper(chain(t, 4))) {
			t.Errorf("tampered %s still verifies", name)
		}
	}
}

// TestLastFingerprint gives every entry its own fingerprint, so returning the
// first or any other entry's fails; entries that record none are skipped.
func TestLastFingerprint(t *testing.T) {
	t.Parallel()
	c := chain(t, 4)
	if got := agent.LastFingerprint(c); got != "sha256:3" {
		t.Errorf("LastFingerprint = %q, want the latest entry's sha256:3", got)
	}
	// A later entry without a fingerprint (a transaction) does not hide it.
	next, err := agent.NextEntry(&c[3], "agent_a", agent.AuditTransactionCompleted, "key_k", c[3].Timestamp.Add(time.Second),
		map[string]any{"transaction_id": "tx_1"})
	if err != nil {
		t.Fatal(err)
	}
	if got := agent.LastFingerprint(append(c, next)); got != "sha256:3" {
		t.Errorf("LastFingerprint past an entry without one = %q, want sha256:3", got)
	}
	if got := agent.LastFingerprint(nil); got != "" {
		t.Errorf("LastFingerprint(nil) = %q", got)
	}
}

func TestRegisterInputValidate(t *testing.T) {
	t.Parallel()
	good := agent.RegisterInput{Name: "n", AuthorizedActions: []string{"pay"}, SpendingLimit: money.MustParse("1"), Currency: "USD", Environment: agent.Sandbox}
	if _, err := good.Validate(); err != nil {
		t.Fatalf("valid input refused: %v", err)
	}
	bad := good
	bad.Name, bad.AuthorizedActions, bad.Currency, bad.Environment = " ", []string{"pay", "9x", "pay"}, "usd", "moon"
	_, err := bad.Validate()
	fe := failure.As(err)
	if fe == nil || fe.Code != failure.ValidationFailed {
		t.Fatalf("got %v", err)
	}
	var fields []string
	for _, f := range fe.FieldErrors {
		fields = append(fields, f.Field)
	}
	if got := strings.Join(fields, ","); got != "input.name,input.authorizedActions[1],input.authorizedActions[2],input.currency,input.environment" {
		t.Fatalf("fields %s", got)
	}
}

func TestValidateReason(t *testing.T) {
	t.Parallel()
	long, longer, bad := strings.Repeat("ü", 2000), strings.Repeat("x", 2001), "\xff"
	empty := ""
	for _, tc := range []struct {
		reason *string
		ok     bool
	}{{nil, true}, {&empty, true}, {&long, true}, {&longer, false}, {&bad, false}} {
		err := agent.ValidateReason(tc.reason)
		if tc.ok != (err == nil) {
			t.Errorf("reason of %d bytes: %v", len(deref(tc.reason)), err)
		}
		if fe := failure.As(err); err != nil && (fe.Code != failure.ValidationFailed || fe.FieldErrors[0].Field != "reason") {
			t.Errorf("want VALIDATION_FAILED on reason, got %v", err)
		}
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
