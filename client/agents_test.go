package client_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/agenttrust/service/client"
)

func TestAgentsRegisterGetUpdateSuspend(t *testing.T) {
	t.Parallel()
	b := setup(t)
	daily := dec("250.50")
	a, err := b.c.Agents.Register(b.ctx, client.RegisterAgentInput{
		Name: "buyer", AuthorizedActions: []string{"purchase", "refund"}, SpendingLimit: dec("100.10"),
		Currency: "USD", Environment: client.Sandbox, DailyLimit: &daily,
	})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(a.ID, "agent_") || a.Name != "buyer" || !a.SpendingLimit.Equal(dec("100.1")) ||
		a.DailyLimit == nil || !a.DailyLimit.Equal(daily) || a.Currency != "USD" || a.Environment != client.Sandbox ||
		a.Status != client.AgentActive || !strings.HasPrefix(a.Fingerprint, "sha256:") || a.CreatedAt.IsZero() ||
		!slices.Equal(a.AuthorizedActions, []string{"purchase", "refund"}) {
		t.Fatalf("registered agent: %+v", a)
	}

	got, err := b.c.Agents.Get(b.ctx, a.ID)
	if err != nil || got.ID != a.ID || got.Fingerprint != a.Fingerprint || !got.SpendingLimit.Equal(a.SpendingLimit) {
		t.Fatalf("get: %+v %v", got, err)
	}

	name := "buyer-2"
	up, err := b.c.Agents.Update(b.ctx, a.ID, client.UpdateAgentInput{Name: &name, RemoveDailyLimit: true})
	if err != nil || up.Name != name || up.DailyLimit != nil || up.Fingerprint == a.Fingerprint || !up.SpendingLimit.Equal(a.SpendingLimit) {
		t.Fatalf("update: %+v %v", up, err)
	}
	limit := dec("0.01")
	up, err = b.c.Agents.Update(b.ctx, a.ID, client.UpdateAgentInput{SpendingLimit: &limit})
	if err != nil || !up.SpendingLimit.Equal(limit) || up.Name != name {
		t.Fatalf("update limit: %+v %v", up, err)
	}
	if _, err := b.c.Agents.Update(b.ctx, a.ID, client.UpdateAgentInput{DailyLimit: &limit, RemoveDailyLimit: true}); err == nil {
		t.Fatal("DailyLimit with RemoveDailyLimit accepted")
	}

	v, err := b.c.Agents.Verify(b.ctx, a.ID)
	if err != nil || !v.Verified || !v.AuditChainValid || v.Fingerprint != up.Fingerprint {
		t.Fatalf("verify: %+v %v", v, err)
	}

	s, err := b.c.Agents.Suspend(b.ctx, a.ID, "lost key")
	if err != nil || s.Status != client.AgentSuspended {
		t.Fatalf("suspend: %+v %v", s, err)
	}
	_, err = b.c.Agents.Suspend(b.ctx, a.ID, "")
	var conflict *client.ConflictError
	if !errors.As(err, &conflict) || !errors.Is(err, client.ErrConflict) || !errors.Is(err, client.ErrAPI) || conflict.Code != "CONFLICT" {
		t.Fatalf("second suspend: %v", err)
	}

	chain, err := b.c.Agents.GetAuditChain(b.ctx, a.ID, client.AuditChainParams{})
	if err != nil || len(chain) != 4 {
		t.Fatalf("audit chain: %+v %v", chain, err)
	}
	for i, e := range chain {
		if e.Sequence != i+1 || e.Hash == "" || (i == 0) != (e.PreviousHash == nil) || (i > 0 && *e.PreviousHash != chain[i-1].Hash) {
			t.Fatalf("entry %d: %+v", i, e)
		}
	}
	if chain[0].Action != "agent.registered" || chain[3].Action != "agent.suspended" || len(chain[3].Details) == 0 {
		t.Fatalf("chain actions: %+v", chain)
	}
}

func TestAgentsErrors(t *testing.T) {
	t.Parallel()
	b := setup(t)
	a := b.register(b.c, "mine", "10")

	_, err := b.c.Agents.Get(b.ctx, "agent_nope")
	var nf *client.NotFoundError
	if !errors.As(err, &nf) || !errors.Is(err, client.ErrNotFound) || nf.RequestID == "" || nf.Message == "" {
		t.Fatalf("unknown agent: %#v", err)
	}
	// Another organization's agent is not found either.
	if _, err := b.otherOrg().Agents.Get(b.ctx, a.ID); !errors.Is(err, client.ErrNotFound) {
		t.Fatalf("other org's agent: %v", err)
	}

	_, err = b.c.Agents.Register(b.ctx, client.RegisterAgentInput{
		Name: "", AuthorizedActions: []string{"purchase"}, SpendingLimit: dec("1"), Currency: "usd", Environment: client.Sandbox,
	})
	var ve *client.ValidationError
	if !errors.As(err, &ve) || !errors.Is(err, client.ErrValidation) {
		t.Fatalf("invalid register: %v", err)
	}
	fields := map[string]bool{}
	for _, fe := range ve.FieldErrors {
		fields[fe.Field] = fe.Message != ""
	}
	if !fields["input.name"] || !fields["input.currency"] {
		t.Fatalf("field errors: %+v", ve.FieldErrors)
	}
	// A value GraphQL itself cannot coerce (a nil list for [String!]!) is a
	// *ValidationError naming the field as well.
	_, err = b.c.Agents.Register(b.ctx, client.RegisterAgentInput{
		Name: "nil-actions", SpendingLimit: dec("1"), Currency: "USD", Environment: client.Sandbox,
	})
	if !errors.As(err, &ve) || len(ve.FieldErrors) != 1 || ve.FieldErrors[0].Field != "input.authorizedActions" ||
		!strings.Contains(err.Error(), "input.authorizedActions") {
		t.Fatalf("nil authorizedActions: %#v", err)
	}
	if page, err := b.c.Agents.List(b.ctx, client.ListAgentsParams{}); err != nil || page.TotalCount != 1 {
		t.Fatalf("a refused register stored something: %+v %v", page, err)
	}

	if _, err := b.c.Agents.List(b.ctx, client.ListAgentsParams{Limit: 201}); !errors.Is(err, client.ErrValidation) {
		t.Fatalf("limit 201: %v", err)
	}

	bad := b.client("not-a-key")
	_, err = bad.Agents.Get(b.ctx, a.ID)
	var ae *client.AuthenticationError
	if !errors.As(err, &ae) || !errors.Is(err, client.ErrUnauthenticated) || ae.StatusCode != 401 || ae.RequestID == "" {
		t.Fatalf("bad key: %#v", err)
	}
}

func TestAgentsListAndIterate(t *testing.T) {
	t.Parallel()
	b := setup(t)
	var want []string
	for _, n := range []string{"a1", "a2", "a3", "a4", "a5"} {
		want = append([]string{b.register(b.c, n, "10").ID}, want...) // newest first
	}
	if _, err := b.c.Agents.Suspend(b.ctx, want[1], ""); err != nil {
		t.Fatal(err)
	}

	page, err := b.c.Agents.List(b.ctx, client.ListAgentsParams{Limit: 2})
	if err != nil || len(page.Agents) != 2 || page.TotalCount != 5 || !page.PageInfo.HasNextPage || page.Agents[0].ID != want[0] {
		t.Fatalf("first page: %+v %v", page, err)
	}
	next, err := b.c.Agents.List(b.ctx, client.ListAgentsParams{Limit: 2, After: page.PageInfo.EndCursor})
	if err != nil || len(next.Agents) != 2 || next.Agents[0].ID != want[2] {
		t.Fatalf("second page: %+v %v", next, err)
	}

	var got []string
	for a, err := range b.c.Agents.ListAll(b.ctx, client.ListAgentsParams{Limit: 2}) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, a.ID)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("ListAll: %v, want %v", got, want)
	}
	got = got[:0]
	for a, err := range b.c.Agents.ListAll(b.ctx, client.ListAgentsParams{Status: client.AgentActive, Limit: 3}) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, a.ID)
	}
	if active := slices.Delete(slices.Clone(want), 1, 2); !slices.Equal(got, active) {
		t.Fatalf("active: %v, want %v", got, active)
	}
	// Breaking out of the loop stops fetching.
	n := 0
	for range b.c.Agents.ListAll(b.ctx, client.ListAgentsParams{Limit: 1}) {
		if n++; n == 3 {
			break
		}
	}
	// An error ends the iteration after being yielded once.
	var errs int
	for _, err := range b.c.Agents.ListAll(b.ctx, client.ListAgentsParams{After: "garbage"}) {
		if err == nil || !errors.Is(err, client.ErrValidation) {
			t.Fatalf("bad cursor: %v", err)
		}
		errs++
	}
	if errs != 1 {
		t.Fatalf("%d errors yielded", errs)
	}
}
