package resolvers_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agenttrust/service/auth"
	"github.com/agenttrust/service/event"
	"github.com/agenttrust/service/internal/testkit"
	"github.com/agenttrust/service/wire"
)

// approvalPolicy makes amounts over 500 wait an hour for approval.
var approvalPolicy = map[string]any{"approval": map[string]any{"above": "500", "expiresAfterSeconds": 3600}}

const evaluateApproval = `query($in: TrustEvaluationInput!) { evaluateTrust(input: $in) { allowed reason reasonCode requiresApproval } }`

func evaluateApprovalOf(t *testing.T, b *testkit.Kit, from, to testkit.Agent, amount string) testkit.Evaluation {
	t.Helper()
	var e testkit.Evaluation
	b.Query(evaluateApproval, map[string]any{"in": map[string]any{"agentId": from.ID, "action": "purchase", "amount": amount,
		"currency": "USD", "toAgent": to.ID}}).Into(t, "evaluateTrust", &e)
	return e
}

// pendingQueue lists the caller's transactions pending approval.
func pendingQueue(t *testing.T, b *testkit.Kit, key string) (ids []string, total int) {
	t.Helper()
	var c struct {
		Nodes      []testkit.Transaction `json:"nodes"`
		TotalCount int                   `json:"totalCount"`
	}
	b.Do(key, `{ transactions(status: pending_approval) { nodes { id status } totalCount } }`, nil).Into(t, "transactions", &c)
	for _, n := range c.Nodes {
		if n.Status != "pending_approval" {
			t.Fatalf("the queue holds %s in %s", n.ID, n.Status)
		}
		ids = append(ids, n.ID)
	}
	return ids, c.TotalCount
}

func TestApprovalApproveAndDecline(t *testing.T) {
	t.Parallel()
	b := testkit.New(t)
	clk := b.Clock()
	shopOrg, shopKey := b.NewOrg("shop")
	shop := b.RegisterAs(shopKey, nil)
	a := b.Register(map[string]any{"spendingLimit": "1000", "dailyLimit": "1000"})
	b.SetPolicy(b.Key, a.ID, approvalPolicy)

	if e := evaluateApprovalOf(t, b, a, shop, "500"); !e.Allowed || e.RequiresApproval {
		t.Fatalf("500, the threshold itself: %+v", e)
	}
	e := evaluateApprovalOf(t, b, a, shop, "600")
	if !e.Allowed || e.ReasonCode != "ok" || !e.RequiresApproval || !strings.Contains(e.Reason, "over the approval threshold of 500.00 USD") {
		t.Fatalf("600: %+v", e)
	}

	in := testkit.Pay(a, shop, "600")
	in["idempotencyKey"] = "order-1"
	p := b.MustExecute(b.Key, in)
	created, _ := time.Parse(time.RFC3339Nano, p.CreatedAt)
	if p.Status != "pending_approval" || p.ExpiresAt == nil || p.DecidedAt != nil || p.DecidedBy != nil {
		t.Fatalf("pending: %+v", p)
	}
	if exp, _ := time.Parse(time.RFC3339Nano, *p.ExpiresAt); !exp.Equal(created.Add(time.Hour)) {
		t.Fatalf("expiresAt %s, want createdAt %s + 1h", *p.ExpiresAt, p.CreatedAt)
	}
	if again := b.MustExecute(b.Key, in); again.ID != p.ID || again.Status != "pending_approval" {
		t.Fatalf("the same idempotency key: %+v", again)
	}
	// Nothing moved and nothing counts: the whole daily budget remains.
	if e := evaluateApprovalOf(t, b, a, shop, "400"); !strings.Contains(e.Reason, "remaining daily budget of 1000.00 USD") {
		t.Fatalf("after a pending 600: %+v", e)
	}
	if evs := b.EventsOf(b.OrgID, "transaction.approval_requested"); len(evs) != 1 || data(t, evs[0])["expires_at"] != *p.ExpiresAt {
		t.Fatalf("approval_requested events of the sender: %v", evs)
	}
	for _, org := range []string{b.OrgID, shopOrg} {
		if n := len(b.EventsOf(org, "transaction.completed")); n != 0 {
			t.Fatalf("%d transaction.completed before approval", n)
		}
	}
	if ids, total := pendingQueue(t, b, b.Key); len(ids) != 1 || ids[0] != p.ID || total != 1 {
		t.Fatalf("queue %v (%d)", ids, total)
	}
	before := b.Profile(b.Key, a.ID)
	q := b.MustExecute(b.Key, testkit.Pay(a, shop, "600")) // also pending: pending amounts count toward nothing

	// The receiving organization does not see it while it waits; an unknown id is NOT_FOUND too.
	b.Approve(shopKey, p.ID).Refused(t, "NOT_FOUND")
	b.Decline(shopKey, p.ID, "no").Refused(t, "NOT_FOUND")
	b.Approve(b.Key, "tx_unknown").Refused(t, "NOT_FOUND")
	_, strangerKey := b.NewOrg("stranger")
	b.Approve(strangerKey, p.ID).Refused(t, "NOT_FOUND")
	b.Decline(b.Key, p.ID, " ").Refused(t, "VALIDATION_FAILED")

	clk.Advance(time.Minute)
	var done testkit.Transaction
	b.Approve(b.Key, p.ID).Into(t, "approveTransaction", &done)
	if done.Status != "completed" || done.DecidedBy == nil || *done.DecidedBy != b.KeyID || done.DecidedAt == nil ||
		done.ExpiresAt != nil || done.CreatedAt != *done.DecidedAt || done.CreatedAt == p.CreatedAt {
		t.Fatalf("approved: %+v", done)
	}
	if e := evaluateApprovalOf(t, b, a, shop, "400"); !strings.Contains(e.Reason, "remaining daily budget of 400.00 USD") {
		t.Fatalf("after approving 600: %+v", e)
	}
	if evs := b.EventsOf(shopOrg, "transaction.completed"); len(evs) != 1 || data(t, evs[0])["decided_by"] != b.KeyID {
		t.Fatalf("transaction.completed after approval: %v", evs)
	}
	if after := b.Profile(b.Key, a.ID); after.Factors.Volume != before.Factors.Volume+1 {
		t.Fatalf("trust volume %d after approval, %d before", after.Factors.Volume, before.Factors.Volume)
	}
	if chain := b.AuditChain(a.ID); chain[len(chain)-1].Action != "transaction.completed" {
		t.Fatalf("audit chain ends with %s", chain[len(chain)-1].Action)
	}
	b.Approve(b.Key, p.ID).Refused(t, "CONFLICT")
	b.Decline(b.Key, p.ID, "late").Refused(t, "CONFLICT")
	if ids, _ := pendingQueue(t, b, b.Key); len(ids) != 1 || ids[0] != q.ID {
		t.Fatalf("queue after approval: %v", ids)
	}

	// Approval re-runs the checks: 600 more would pass the daily 1000.
	r := b.Approve(b.Key, q.ID)
	r.Refused(t, "POLICY_DENIED")
	if r.ReasonCode() != "daily_limit_exceeded" {
		t.Fatalf("approving past the daily limit: %s", r.Body)
	}
	if got := b.Transaction(q.ID); got.Status != "pending_approval" || got.DecidedAt != nil {
		t.Fatalf("after a refused approval: %+v", got)
	}
	var declined testkit.Transaction
	b.Decline(b.Key, q.ID, "over budget").Into(t, "declineTransaction", &declined)
	if declined.Status != "declined" || declined.Reason == nil || *declined.Reason != "over budget" || *declined.DecidedBy != b.KeyID ||
		declined.CreatedAt != q.CreatedAt {
		t.Fatalf("declined: %+v", declined)
	}
	if evs := b.EventsOf(b.OrgID, "transaction.declined"); len(evs) != 1 || data(t, evs[0])["reason"] != "over budget" {
		t.Fatalf("transaction.declined: %v", evs)
	}
	b.Approve(b.Key, q.ID).Refused(t, "CONFLICT")
	b.Reverse(b.Key, q.ID, "no").Refused(t, "CONFLICT")
	// A transaction that moved no money is no evidence.
	r = b.Report(b.Key, shop.ID, "never delivered", q.ID)
	r.Refused(t, "VALIDATION_FAILED")
	if f := r.Fields(t); len(f) != 1 || f[0] != "input.evidenceIds[0]" {
		t.Fatalf("a declined transaction as evidence: %v", f)
	}
}

func TestApprovalRuleInput(t *testing.T) {
	t.Parallel()
	b := testkit.New(t)
	a := b.Register(map[string]any{"currency": "JPY", "spendingLimit": "1000"})
	const doc = `mutation($id: ID!, $in: SpendPolicyInput!) { setAgentPolicy(agentId: $id, input: $in) { policy { version approval { above expiresAfterSeconds } } } }`
	type view struct {
		Policy struct {
			Version  int `json:"version"`
			Approval *struct {
				Above               json.Number `json:"above"`
				ExpiresAfterSeconds int         `json:"expiresAfterSeconds"`
			} `json:"approval"`
		} `json:"policy"`
	}
	for _, tc := range []struct {
		rule  map[string]any
		field string
	}{
		{map[string]any{"above": "0", "expiresAfterSeconds": 60}, "input.approval.above"},
		{map[string]any{"above": "1.5", "expiresAfterSeconds": 60}, "input.approval.above"}, // JPY has no minor units
		{map[string]any{"above": "10", "expiresAfterSeconds": 59}, "input.approval.expiresAfterSeconds"},
		{map[string]any{"above": "10", "expiresAfterSeconds": 604801}, "input.approval.expiresAfterSeconds"},
	} {
		r := b.Do(b.Key, doc, map[string]any{"id": a.ID, "in": map[string]any{"approval": tc.rule}})
		r.Refused(t, "VALIDATION_FAILED")
		if f := r.Fields(t); len(f) != 1 || f[0] != tc.field {
			t.Fatalf("%v: fields %v, want %s", tc.rule, f, tc.field)
		}
	}
	var v view
	b.Query(doc, map[string]any{"id": a.ID, "in": map[string]any{"approval": map[string]any{"above": "100", "expiresAfterSeconds": 604800}}}).Into(t, "setAgentPolicy", &v)
	if v.Policy.Version != 2 || v.Policy.Approval == nil || v.Policy.Approval.Above != "100" || v.Policy.Approval.ExpiresAfterSeconds != 604800 {
		t.Fatalf("set: %+v", v.Policy)
	}
	b.Query(doc, map[string]any{"id": a.ID, "in": map[string]any{"timezone": "Europe/Paris"}}).Into(t, "setAgentPolicy", &v)
	if v.Policy.Version != 3 || v.Policy.Approval == nil { // absent keeps
		t.Fatalf("absent: %+v", v.Policy)
	}
	b.Query(doc, map[string]any{"id": a.ID, "in": map[string]any{"approval": nil}}).Into(t, "setAgentPolicy", &v)
	if v.Policy.Version != 4 || v.Policy.Approval != nil { // null clears
		t.Fatalf("null: %+v", v.Policy)
	}
}

// Two replicas' sweeps expire a transaction exactly once, within the
// sweep's interval of its expiry; deciding after expiry is CONFLICT.
func TestApprovalExpiry(t *testing.T) {
	t.Parallel()
	b := testkit.New(t)
	clk := b.Clock()
	shopOrg, shopKey := b.NewOrg("shop")
	shop := b.RegisterAs(shopKey, nil)
	a := b.Register(map[string]any{"spendingLimit": "1000"})
	b.SetPolicy(b.Key, a.ID, map[string]any{"approval": map[string]any{"above": "500", "expiresAfterSeconds": 60}})
	var ids []string
	for range 3 {
		ids = append(ids, b.MustExecute(b.Key, testkit.Pay(a, shop, "501")).ID)
	}
	approved := b.MustExecute(b.Key, testkit.Pay(a, shop, "502"))
	b.Approve(b.Key, approved.ID).Into(t, "approveTransaction", new(testkit.Transaction))

	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for range 2 {
		s := wire.NewServer(wire.Options{DB: b.DB, Logger: testkit.Logger(t), ExpirySweep: 5 * time.Millisecond})
		wg.Go(func() { _ = s.Run(ctx) })
	}
	defer func() { cancel(); wg.Wait() }()
	time.Sleep(50 * time.Millisecond) // sweeps before the expiry change nothing
	if got := b.Transaction(ids[0]); got.Status != "pending_approval" {
		t.Fatalf("before expiry: %s", got.Status)
	}
	clk.Advance(time.Minute)
	deadline := time.Now().Add(10 * time.Second)
	for _, id := range ids {
		for got := b.Transaction(id); got.Status != "expired"; got = b.Transaction(id) {
			if time.Now().After(deadline) {
				t.Fatalf("%s still %s", id, got.Status)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	time.Sleep(50 * time.Millisecond) // more sweeps by both replicas
	// The sender's organization has each expiry once; the receiver never saw them.
	for org, want := range map[string]int{b.OrgID: len(ids), shopOrg: 0} {
		evs := b.EventsOf(org, "transaction.expired")
		if len(evs) != want {
			t.Fatalf("%d transaction.expired events for %s, want %d", len(evs), org, want)
		}
		seen := map[any]bool{}
		for _, e := range evs {
			if d := data(t, e); d["status"] != "expired" || !slices.Contains(ids, d["id"].(string)) || seen[d["id"]] {
				t.Fatalf("expired event %s", e.Data)
			}
			seen[data(t, e)["id"]] = true
		}
	}
	if got := b.Transaction(approved.ID); got.Status != "completed" {
		t.Fatalf("an approved transaction after the sweep: %s", got.Status)
	}
	exp := b.Transaction(ids[0])
	if exp.ExpiresAt == nil || exp.DecidedAt != nil || exp.DecidedBy != nil {
		t.Fatalf("expired: %+v", exp)
	}
	b.Approve(b.Key, ids[0]).Refused(t, "CONFLICT")
	b.Decline(b.Key, ids[1], "late").Refused(t, "CONFLICT")

	// Past its expiry but not yet swept, a transaction can no longer be decided.
	late := b.MustExecute(b.Key, testkit.Pay(a, shop, "503"))
	cancel()
	wg.Wait()
	clk.Advance(time.Minute)
	b.Approve(b.Key, late.ID).Refused(t, "CONFLICT")
	if got := b.Transaction(late.ID); got.Status != "pending_approval" {
		t.Fatalf("a refused late approval changed %s to %s", late.ID, got.Status)
	}
}

// data decodes an event's data.
func data(t *testing.T, e event.Event) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(e.Data, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// An agent key may execute into the queue but never decide.
func TestApprovalAgentKeyCannotDecide(t *testing.T) {
	t.Parallel()
	b := testkit.New(t)
	_, shopKey := b.NewOrg("shop")
	shop := b.RegisterAs(shopKey, nil)
	a := b.Register(map[string]any{"spendingLimit": "1000"})
	b.SetPolicy(b.Key, a.ID, approvalPolicy)
	_, agentKey := b.IssueKey(auth.RoleAgent, a.ID)
	p := b.MustExecute(agentKey, testkit.Pay(a, shop, "600"))
	b.Approve(agentKey, p.ID).Refused(t, "FORBIDDEN")
	b.Decline(agentKey, p.ID, "mine").Refused(t, "FORBIDDEN")
	if got := b.Transaction(p.ID); got.Status != "pending_approval" {
		t.Fatalf("after the agent key tried: %s", got.Status)
	}
}

// Approvals racing two replicas' sweeps across the expiry: each
// transaction ends either completed (its approval answered) or expired
// (its approval answered CONFLICT), with exactly one event for it.
func TestApprovalRacesExpiry(t *testing.T) {
	t.Parallel()
	b := testkit.New(t)
	clk := b.Clock()
	shopOrg, shopKey := b.NewOrg("shop")
	shop := b.RegisterAs(shopKey, nil)
	a := b.Register(map[string]any{"spendingLimit": "1000"})
	b.SetPolicy(b.Key, a.ID, map[string]any{"approval": map[string]any{"above": "1", "expiresAfterSeconds": 60}})
	const n = 24
	ids := make([]string, n)
	for i := range ids {
		ids[i] = b.MustExecute(b.Key, testkit.Pay(a, shop, "2")).ID
	}
	ctx, cancel := context.WithCancel(context.Background())
	var sweeps sync.WaitGroup
	for range 2 {
		s := wire.NewServer(wire.Options{DB: b.DB, Logger: testkit.Logger(t), ExpirySweep: time.Millisecond})
		sweeps.Go(func() { _ = s.Run(ctx) })
	}
	clk.Advance(time.Minute - 50*time.Millisecond)
	answers := make([]string, n)
	var answered atomic.Int32
	var wg sync.WaitGroup
	wg.Go(func() { // past every expiry once some are answered, while others are in flight
		for answered.Load() < n/4 {
			time.Sleep(time.Millisecond)
		}
		clk.Advance(time.Second)
	})
	approve := func(i int) {
		r := b.Approve(b.Key, ids[i])
		answers[i] = "ok"
		if len(r.Errors) > 0 {
			answers[i] = r.Code()
		}
		answered.Add(1)
	}
	for i := range n / 2 {
		wg.Go(func() { approve(i) })
	}
	wg.Wait()
	for i := n / 2; i < n; i++ { // after the expiry, racing the sweeps
		wg.Go(func() { approve(i) })
	}
	wg.Wait()
	if !slices.Contains(answers, "ok") || !slices.Contains(answers, "CONFLICT") {
		t.Fatalf("no race: %v", answers)
	}
	time.Sleep(50 * time.Millisecond) // the sweeps catch up
	cancel()
	sweeps.Wait()
	completed, expired := map[string]int{}, map[string]int{}
	for _, e := range b.EventsOf(shopOrg, "transaction.completed") {
		completed[data(t, e)["id"].(string)]++
	}
	for _, e := range b.EventsOf(b.OrgID, "transaction.expired") { // the sender's alone
		expired[data(t, e)["id"].(string)]++
	}
	for i, id := range ids {
		got := b.Transaction(id).Status
		switch {
		case answers[i] == "ok" && got == "completed" && completed[id] == 1 && expired[id] == 0:
		case answers[i] == "CONFLICT" && got == "expired" && expired[id] == 1 && completed[id] == 0:
		default:
			t.Fatalf("%s: approval answered %s, status %s, %d completed and %d expired events", id, answers[i], got, completed[id], expired[id])
		}
	}
}
