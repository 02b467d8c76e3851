package client_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/agenttrust/service/client"
)

func TestAuditChainPaging(t *testing.T) {
	t.Parallel()
	b := setup(t)
	a := b.register(b.c, "v0", "10")
	for i := 1; i <= 4; i++ {
		name := fmt.Sprintf("v%d", i)
		if _, err := b.c.Agents.Update(b.ctx, a.ID, client.UpdateAgentInput{Name: &name}); err != nil {
			t.Fatal(err)
		}
	}
	seqs := func(p client.AuditChainParams) []int {
		t.Helper()
		entries, err := b.c.Agents.GetAuditChain(b.ctx, a.ID, p)
		if err != nil {
			t.Fatal(err)
		}
		var out []int
		for _, e := range entries {
			out = append(out, e.Sequence)
		}
		return out
	}
	for _, tc := range []struct {
		p    client.AuditChainParams
		want string
	}{
		{client.AuditChainParams{}, "[1 2 3 4 5]"},
		{client.AuditChainParams{Limit: 2}, "[1 2]"},
		{client.AuditChainParams{After: 2, Limit: 2}, "[3 4]"},
		{client.AuditChainParams{After: 4}, "[5]"},
		{client.AuditChainParams{After: 5}, "[]"},
	} {
		if got := fmt.Sprint(seqs(tc.p)); got != tc.want {
			t.Fatalf("%+v: %s, want %s", tc.p, got, tc.want)
		}
	}
	var all []int
	for e, err := range b.c.Agents.AuditChainAll(b.ctx, a.ID, client.AuditChainParams{After: 1, Limit: 2}) {
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, e.Sequence)
	}
	if fmt.Sprint(all) != "[2 3 4 5]" {
		t.Fatalf("AuditChainAll: %v", all)
	}
	// A page that large is refused before it runs.
	_, err := b.c.Agents.GetAuditChain(b.ctx, a.ID, client.AuditChainParams{Limit: 100000})
	var api *client.APIError
	if !errors.As(err, &api) || (api.Code != client.CodeValidationFailed && api.Code != client.CodeGraphQLValidationFailed) {
		t.Fatalf("limit 100000: %v", err)
	}
}
