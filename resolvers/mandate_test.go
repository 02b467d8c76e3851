package resolvers_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agenttrust/service/event"
	"github.com/agenttrust/service/internal/testkit"
)

// mandateWorld is a buyer with a mandate-free policy, a seller in another
// organization, and the kit's clock.
type mandateWorld struct {
	k             *testkit.Kit
	clock         *testkit.Clock
	buyer, seller testkit.Agent
	sellerOrg     string
}

func setupMandates(t *testing.T) *mandateWorld {
	k := testkit.New(t)
	w := &mandateWorld{k: k, clock: k.Clock()}
	w.buyer = k.Register(map[string]any{"name": "buyer", "spendingLimit": "500"})
	var sellerKey string
	w.sellerOrg, sellerKey = k.NewOrg("seller")
	w.seller = k.RegisterAs(sellerKey, map[string]any{"name": "seller"})
	return w
}

func (w *mandateWorld) at(d time.Duration) string {
	return event.FormatTime(w.clock.Now().Add(d)) // the service's own form, so answers compare as strings
}

func TestMandateCreateReadListRevoke(t *testing.T) {
	t.Parallel()
	w := setupMandates(t)
	k := w.k
	m := k.MustCreateMandate(testkit.MandateInput(w.buyer, "300", map[string]any{
		"counterpartyOrgs": []string{w.sellerOrg}, "maxPerTransaction": "150", "maxUses": 2,
		"notBefore": w.at(0), "expiresAt": w.at(72 * time.Hour)}))
	if !strings.HasPrefix(m.ID, "mdt_") || m.AgentID != w.buyer.ID || m.Status != "active" || m.Currency != "USD" ||
		string(m.Budget) != "300" || string(m.Spent) != "0" || string(m.Remaining) != "300" || m.Uses != 0 ||
		string(m.MaxPerTransaction) != "150" || *m.MaxUses != 2 || m.CounterpartyAgents != nil ||
		!slices.Equal(m.CounterpartyOrgs, []string{w.sellerOrg}) || m.RevokedAt != nil || m.ExpiresAt != w.at(72*time.Hour) {
		t.Fatalf("created %+v", m)
	}
	if got := k.Mandate(m.ID); got.ID != m.ID || got.ExpiresAt != m.ExpiresAt || got.CreatedAt != m.CreatedAt {
		t.Errorf("read back %+v, created %+v", got, m)
	}

	// Spending moves spent, uses and remaining.
	var tx testkit.MandateTransaction
	k.ExecuteUnder(k.Key, m.ID, testkit.Pay(w.buyer, w.seller, "120.5")).Into(t, "executeTransaction", &tx)
	if tx.MandateID == nil || *tx.MandateID != m.ID {
		t.Errorf("transaction's mandateId %v, want %s", tx.MandateID, m.ID)
	}
	var read testkit.MandateTransaction
	k.Query(`query($id: ID!) { transaction(id: $id) { id mandateId } }`, map[string]any{"id": tx.ID}).Into(t, "transaction", &read)
	if read.MandateID == nil || *read.MandateID != m.ID {
		t.Errorf("read transaction's mandateId %v", read.MandateID)
	}
	if got := k.Mandate(m.ID); string(got.Spent) != "120.5" || got.Uses != 1 || string(got.Remaining) != "179.5" || got.Status != "active" {
		t.Errorf("after one purchase: %+v", got)
	}

	// A second mandate of another agent, a third revoked: the list, its filters and pages.
	other := k.Register(map[string]any{"name": "other"})
	m2 := k.MustCreateMandate(testkit.MandateInput(other, "10", nil))
	m3 := k.MustCreateMandate(testkit.MandateInput(w.buyer, "10", nil))
	reason := "task cancelled"
	var revoked testkit.Mandate
	k.RevokeMandate(k.Key, m3.ID, &reason).Into(t, "revokeMandate", &revoked)
	if revoked.Status != "revoked" || revoked.RevokedAt == nil {
		t.Fatalf("revoked %+v", revoked)
	}
	var again testkit.Mandate
	k.RevokeMandate(k.Key, m3.ID, nil).Into(t, "revokeMandate", &again)
	if again.RevokedAt == nil || *again.RevokedAt != *revoked.RevokedAt || again.Status != "revoked" {
		t.Errorf("revoking again changed it: %+v, first %+v", again, revoked)
	}

	list := func(vars map[string]any) testkit.MandateConnection {
		var c testkit.MandateConnection
		k.Mandates(k.Key, vars).Into(t, "mandates", &c)
		return c
	}
	ids := func(c testkit.MandateConnection) []string {
		var out []string
		for _, n := range c.Nodes {
			out = append(out, n.ID)
		}
		return out
	}
	first := list(map[string]any{"limit": 2})
	if !slices.Equal(ids(first), []string{m3.ID, m2.ID}) || !first.PageInfo.HasNextPage || first.TotalCount != 3 ||
		first.Edges[1].Node.ID != m2.ID || first.Edges[1].Cursor != *first.PageInfo.EndCursor {
		t.Errorf("first page %v next %v total %d", ids(first), first.PageInfo.HasNextPage, first.TotalCount)
	}
	second := list(map[string]any{"limit": 2, "after": *first.PageInfo.EndCursor})
	if !slices.Equal(ids(second), []string{m.ID}) || second.PageInfo.HasNextPage {
		t.Errorf("second page %v next %v", ids(second), second.PageInfo.HasNextPage)
	}
	for _, tt := range []struct {
		vars map[string]any
		want []string
	}{
		{map[string]any{"agentId": w.buyer.ID}, []string{m3.ID, m.ID}},
		{map[string]any{"status": "revoked"}, []string{m3.ID}},
		{map[string]any{"status": "active"}, []string{m2.ID, m.ID}},
		{map[string]any{"status": "active", "agentId": other.ID}, []string{m2.ID}},
		{map[string]any{"status": "expired"}, nil},
	} {
		c := list(tt.vars)
		if !slices.Equal(ids(c), tt.want) || c.TotalCount != len(tt.want) {
			t.Errorf("%v: %v (total %d), want %v", tt.vars, ids(c), c.TotalCount, tt.want)
		}
	}
	k.Mandates(k.Key, map[string]any{"after": "nonsense"}).Refused(t, "VALIDATION_FAILED")

	// Expiry shows without a write; exhaustion once the uses are spent.
	k.ExecuteUnder(k.Key, m.ID, testkit.Pay(w.buyer, w.seller, "1")).Into(t, "executeTransaction", &tx)
	if got := k.Mandate(m.ID); got.Status != "exhausted" || got.Uses != 2 || string(got.Spent) != "121.5" {
		t.Errorf("after its last use: %+v", got)
	}
	w.clock.Advance(25 * time.Hour)
	if c := list(map[string]any{"status": "expired"}); !slices.Equal(ids(c), []string{m2.ID}) {
		t.Errorf("expired after a day: %v", ids(c))
	}
	if got := k.Mandate(m2.ID); got.Status != "expired" {
		t.Errorf("status a day later %s, want expired", got.Status)
	}
	if c := list(map[string]any{"status": "exhausted"}); !slices.Equal(ids(c), []string{m.ID}) {
		t.Errorf("exhausted: %v", ids(c))
	}

	// Events and audit entries: one each per creation and per revocation.
	if n := len(k.EventsOf(k.OrgID, event.MandateCreated)); n != 3 {
		t.Errorf("%d mandate.created events, want 3", n)
	}
	revokes := k.EventsOf(k.OrgID, event.MandateRevoked)
	if len(revokes) != 1 {
		t.Fatalf("%d mandate.revoked events, want 1", len(revokes))
	}
	var data map[string]any
	if err := json.Unmarshal(revokes[0].Data, &data); err != nil || data["id"] != m3.ID || data["reason"] != reason || data["status"] != "revoked" {
		t.Errorf("mandate.revoked data %s", revokes[0].Data)
	}
	if n := len(k.EventsOf(w.sellerOrg, event.MandateCreated)); n != 0 {
		t.Errorf("the seller's organization got %d mandate events", n)
	}
	var actions []string
	for _, e := range k.AuditChain(w.buyer.ID) {
		actions = append(actions, e.Action)
		if e.Action == "mandate.revoked" && (e.Details["mandate_id"] != m3.ID || e.Details["reason"] != reason) {
			t.Errorf("revocation entry %v", e.Details)
		}
		if e.Action == "transaction.completed" && e.Details["mandate_id"] != m.ID {
			t.Errorf("completion entry %v lacks the mandate", e.Details)
		}
	}
	want := []string{"agent.registered", "mandate.created", "transaction.completed", "mandate.created", "mandate.revoked", "transaction.completed"}
	if !slices.Equal(actions, want) {
		t.Errorf("buyer's chain %v, want %v", actions, want)
	}
	if v := k.Verify(w.buyer.ID); !v.Verified {
		t.Errorf("buyer's chain does not verify: %+v", v)
	}
}

func TestMandateValidation(t *testing.T) {
	t.Parallel()
	w := setupMandates(t)
	k := w.k
	tests := []struct {
		name      string
		overrides map[string]any
		fields    []string
	}{
		{"blank description", map[string]any{"description": "  "}, []string{"input.description"}},
		{"no actions", map[string]any{"actions": []string{}}, []string{"input.actions"}},
		{"action the agent lacks", map[string]any{"actions": []string{"purchase", "transfer"}}, []string{"input.actions[1]"}},
		{"expired already", map[string]any{"expiresAt": w.at(-time.Second)}, []string{"input.expiresAt"}},
		{"beyond 90 days", map[string]any{"expiresAt": w.at(90*24*time.Hour + time.Second)}, []string{"input.expiresAt"}},
		{"notBefore at expiresAt", map[string]any{"notBefore": w.at(time.Hour), "expiresAt": w.at(time.Hour)}, []string{"input.notBefore"}},
		{"zero budget", map[string]any{"budget": "0"}, []string{"input.budget"}},
		{"budget beyond cents", map[string]any{"budget": "1.001"}, []string{"input.budget"}},
		{"negative per transaction", map[string]any{"maxPerTransaction": "-5"}, []string{"input.maxPerTransaction"}},
		{"zero uses", map[string]any{"maxUses": 0}, []string{"input.maxUses"}},
		{"org among agents", map[string]any{"counterpartyAgents": []string{w.sellerOrg}}, []string{"input.counterpartyAgents[0]"}},
		{"agent among orgs", map[string]any{"counterpartyOrgs": []string{w.seller.ID}}, []string{"input.counterpartyOrgs[0]"}},
		{"several", map[string]any{"budget": "1.001", "maxUses": 0}, []string{"input.budget", "input.maxUses"}},
		{"not an agent id", map[string]any{"agentId": w.sellerOrg}, []string{"input.agentId"}},
	}
	for _, tt := range tests {
		r := k.CreateMandate(k.Key, testkit.MandateInput(w.buyer, "100", tt.overrides))
		r.Refused(t, "VALIDATION_FAILED")
		if got := r.Fields(t); !slices.Equal(got, tt.fields) {
			t.Errorf("%s: fields %v, want %v", tt.name, got, tt.fields)
		}
	}
	k.RevokeMandate(k.Key, "mdt_none", ptrTo(strings.Repeat("x", 1001))).Refused(t, "VALIDATION_FAILED")
	// Boundaries are allowed: 90 days exactly, one use, the smallest amount.
	k.MustCreateMandate(testkit.MandateInput(w.buyer, "0.01", map[string]any{"expiresAt": w.at(90 * 24 * time.Hour), "maxUses": 1}))
	if n := len(k.EventsOf(k.OrgID, event.MandateCreated)); n != 1 {
		t.Errorf("%d mandates created, want only the valid one", n)
	}
	if chain := k.AuditChain(w.buyer.ID); len(chain) != 2 {
		t.Errorf("refused creations left %d audit entries", len(chain))
	}
}

func ptrTo[T any](v T) *T { return &v }

func TestMandateVisibility(t *testing.T) {
	t.Parallel()
	w := setupMandates(t)
	k := w.k
	m := k.MustCreateMandate(testkit.MandateInput(w.buyer, "100", nil))
	_, otherKey := k.NewOrg("other")
	stranger := k.RegisterAs(otherKey, nil)
	before := k.Snapshot()
	k.Do(otherKey, testkit.MandateQuery, map[string]any{"id": m.ID}).Refused(t, "NOT_FOUND")
	k.RevokeMandate(otherKey, m.ID, nil).Refused(t, "NOT_FOUND")
	k.CreateMandate(otherKey, testkit.MandateInput(w.buyer, "100", nil)).Refused(t, "NOT_FOUND")
	var c testkit.MandateConnection
	k.Mandates(otherKey, nil).Into(t, "mandates", &c)
	if len(c.Nodes) != 0 || c.TotalCount != 0 {
		t.Errorf("another organization lists %d mandates", c.TotalCount)
	}
	// Another organization's agent naming the mandate, and another agent of
	// the same organization, find no mandate.
	r := k.Do(otherKey, testkit.MandateExecuteMutation, map[string]any{"input": map[string]any{
		"fromAgent": stranger.ID, "toAgent": w.seller.ID, "action": "purchase", "amount": "1", "currency": "USD", "mandateId": m.ID}})
	if r.ReasonCode() != "mandate_not_found" {
		t.Errorf("a stranger's execute under the mandate: %s", r.Body)
	}
	after := k.Snapshot()
	for _, table := range []string{"mandates", "transactions"} {
		if before[table] != after[table] {
			t.Errorf("another organization's requests changed %s", table)
		}
	}
	sibling := k.Register(map[string]any{"name": "sibling"})
	r = k.ExecuteUnder(k.Key, m.ID, testkit.Pay(sibling, w.seller, "1"))
	if r.ReasonCode() != "mandate_not_found" {
		t.Errorf("a sibling's execute under the mandate: %s", r.Body)
	}
	if got := k.Mandate(m.ID); got.Uses != 0 {
		t.Errorf("mandate used %d times by others", got.Uses)
	}
}

func TestMandateCodesEvaluateAndExecute(t *testing.T) {
	t.Parallel()
	w := setupMandates(t)
	k := w.k
	_, thirdKey := k.NewOrg("third")
	third := k.RegisterAs(thirdKey, nil)
	mk := func(budget string, o map[string]any) string {
		return k.MustCreateMandate(testkit.MandateInput(w.buyer, budget, o)).ID
	}
	late := mk("100", map[string]any{"notBefore": w.at(time.Hour), "expiresAt": w.at(2 * time.Hour)})
	short := mk("100", map[string]any{"expiresAt": w.at(time.Minute)})
	revoked := mk("100", nil)
	k.RevokeMandate(k.Key, revoked, nil).Into(t, "revokeMandate", new(testkit.Mandate))
	spent := mk("5", nil)
	k.ExecuteUnder(k.Key, spent, testkit.Pay(w.buyer, w.seller, "5")).Into(t, "executeTransaction", new(testkit.Transaction))
	used := mk("100", map[string]any{"maxUses": 1})
	k.ExecuteUnder(k.Key, used, testkit.Pay(w.buyer, w.seller, "1")).Into(t, "executeTransaction", new(testkit.Transaction))
	scoped := mk("100", map[string]any{"counterpartyAgents": []string{w.seller.ID}, "actions": []string{"refund"}})
	orgScoped := mk("100", map[string]any{"counterpartyOrgs": []string{w.sellerOrg}})
	capped := mk("100", map[string]any{"maxPerTransaction": "10"})
	partly := mk("20", nil)
	k.ExecuteUnder(k.Key, partly, testkit.Pay(w.buyer, w.seller, "15")).Into(t, "executeTransaction", new(testkit.Transaction))
	open := mk("1000", nil)
	w.clock.Advance(2 * time.Minute) // short has expired, late is not yet active

	pay := func(to testkit.Agent, action, amount string) map[string]any {
		in := testkit.Pay(w.buyer, to, amount)
		in["action"] = action
		return in
	}
	tests := []struct {
		name    string
		mandate string
		in      map[string]any
		code    string
	}{
		{"unknown", "mdt_unknown", pay(w.seller, "purchase", "1"), "mandate_not_found"},
		{"before notBefore", late, pay(w.seller, "purchase", "1"), "mandate_not_active"},
		{"expired", short, pay(w.seller, "purchase", "1"), "mandate_expired"},
		{"revoked", revoked, pay(w.seller, "purchase", "1"), "mandate_revoked"},
		{"budget spent", spent, pay(w.seller, "purchase", "1"), "mandate_exhausted"},
		{"uses spent", used, pay(w.seller, "purchase", "1"), "mandate_exhausted"},
		{"action outside", scoped, pay(w.seller, "purchase", "1"), "mandate_scope_mismatch"},
		{"receiver outside", scoped, pay(third, "refund", "1"), "mandate_scope_mismatch"},
		{"receiver's org outside", orgScoped, pay(third, "purchase", "1"), "mandate_scope_mismatch"},
		{"over maxPerTransaction", capped, pay(w.seller, "purchase", "10.01"), "mandate_amount_exceeded"},
		{"over remaining", partly, pay(w.seller, "purchase", "5.01"), "mandate_amount_exceeded"},
		{"action not authorized comes first", open, pay(w.seller, "transfer", "1"), "action_not_authorized"},
		{"the policy still applies", open, pay(w.seller, "purchase", "501"), "amount_exceeds_limit"},
		{"maxPerTransaction exactly", capped, pay(w.seller, "purchase", "10"), "ok"},
		{"remaining exactly", partly, pay(w.seller, "purchase", "5"), "ok"},
		{"in scope", scoped, pay(w.seller, "refund", "1"), "ok"},
	}
	for _, tt := range tests {
		ev := map[string]any{"agentId": w.buyer.ID, "action": tt.in["action"], "amount": tt.in["amount"], "currency": "USD",
			"toAgent": tt.in["toAgent"], "mandateId": tt.mandate}
		e := k.EvaluateInput(ev)
		if e.ReasonCode != tt.code || e.Allowed != (tt.code == "ok") {
			t.Errorf("%s: evaluate %s (%s), want %s", tt.name, e.ReasonCode, e.Reason, tt.code)
		}
		r := k.ExecuteUnder(k.Key, tt.mandate, tt.in)
		switch {
		case tt.code == "ok" && r.Code() != "":
			t.Errorf("%s: execute refused: %s", tt.name, r.Body)
		case tt.code != "ok" && (r.Code() != "POLICY_DENIED" || r.ReasonCode() != tt.code):
			t.Errorf("%s: execute %s/%s, want POLICY_DENIED/%s (%s)", tt.name, r.Code(), r.ReasonCode(), tt.code, r.Body)
		case tt.code != "ok" && r.Errors[0].Extensions["reason"] == e.Reason:
			// the same refusal as the evaluation, word for word
		case tt.code != "ok":
			t.Errorf("%s: execute's reason %v differs from evaluate's %q", tt.name, r.Errors[0].Extensions["reason"], e.Reason)
		}
	}
	// Refusals are recorded on the chain with the mandate, and change no mandate.
	var refused int
	for _, e := range k.AuditChain(w.buyer.ID) {
		if e.Action == "transaction.refused" && e.Details["mandate_id"] != nil {
			refused++
		}
	}
	if refused != 13 {
		t.Errorf("%d refusals under a mandate on the chain, want 13", refused)
	}
	if m := k.Mandate(partly); string(m.Spent) != "20" || m.Uses != 2 || m.Status != "exhausted" {
		t.Errorf("partly after its last 5: %+v", m)
	}
	if m := k.Mandate(late); m.Uses != 0 || m.Status != "active" {
		t.Errorf("late: %+v", m)
	}

	// requireMandate: an execute naming none is refused, one naming a mandate passes.
	setPolicy(t, k, w.buyer.ID, map[string]any{"requireMandate": true}, nil)
	if e := k.Evaluate(w.buyer.ID, "purchase", "1", "USD"); e.ReasonCode != "mandate_required" {
		t.Errorf("evaluate without a mandate under requireMandate: %s", e.ReasonCode)
	}
	if r := k.Execute(k.Key, testkit.Pay(w.buyer, w.seller, "1")); r.ReasonCode() != "mandate_required" {
		t.Errorf("execute without a mandate under requireMandate: %s", r.Body)
	}
	k.ExecuteUnder(k.Key, open, testkit.Pay(w.buyer, w.seller, "1")).Into(t, "executeTransaction", new(testkit.Transaction))
	var pol struct {
		Policy struct {
			RequireMandate bool `json:"requireMandate"`
		} `json:"policy"`
	}
	k.Query(`query($id: ID!) { agent(id: $id) { policy { requireMandate } } }`, map[string]any{"id": w.buyer.ID}).Into(t, "agent", &pol)
	if !pol.Policy.RequireMandate {
		t.Error("policy.requireMandate reads false after setting it")
	}
	setPolicy(t, k, w.buyer.ID, map[string]any{"requireMandate": nil}, nil)
	k.MustExecute(k.Key, testkit.Pay(w.buyer, w.seller, "1"))
}

func TestMandateReversalGivesNothingBack(t *testing.T) {
	t.Parallel()
	w := setupMandates(t)
	k := w.k
	m := k.MustCreateMandate(testkit.MandateInput(w.buyer, "10", map[string]any{"maxUses": 1}))
	var tx testkit.Transaction
	k.ExecuteUnder(k.Key, m.ID, testkit.Pay(w.buyer, w.seller, "10")).Into(t, "executeTransaction", &tx)
	k.Reverse(k.Key, tx.ID, "refund").Into(t, "reverseTransaction", new(testkit.Transaction))
	if got := k.Mandate(m.ID); string(got.Spent) != "10" || got.Uses != 1 || got.Status != "exhausted" {
		t.Errorf("after a reversal: %+v", got)
	}
	if r := k.ExecuteUnder(k.Key, m.ID, testkit.Pay(w.buyer, w.seller, "1")); r.ReasonCode() != "mandate_exhausted" {
		t.Errorf("execute after the reversal: %s", r.Body)
	}
	// A mandate's refusals do not count against the agent's trust.
	if f := k.Profile(k.Key, w.buyer.ID).Factors; f.Failures != 0 || f.LimitRefusals != 0 {
		t.Errorf("a mandate refusal counted against the buyer: failures %v, limit refusals %v", f.Failures, f.LimitRefusals)
	}
	// An idempotent retry returns the original and charges nothing again.
	in := testkit.Pay(w.buyer, w.seller, "3")
	in["idempotencyKey"] = "retry-1"
	m2 := k.MustCreateMandate(testkit.MandateInput(w.buyer, "10", nil))
	var a, b testkit.Transaction
	k.ExecuteUnder(k.Key, m2.ID, in).Into(t, "executeTransaction", &a)
	k.ExecuteUnder(k.Key, m2.ID, in).Into(t, "executeTransaction", &b)
	if a.ID != b.ID {
		t.Errorf("retry made a second transaction")
	}
	if got := k.Mandate(m2.ID); string(got.Spent) != "3" || got.Uses != 1 {
		t.Errorf("after a retry: %+v", got)
	}
	other := k.MustCreateMandate(testkit.MandateInput(w.buyer, "10", nil))
	k.ExecuteUnder(k.Key, other.ID, in).Refused(t, "CONFLICT")
}
