package resolvers_test

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

// Another organization's agent answers exactly as a missing one would.
func TestOtherOrganizationsAgentIsNotFound(t *testing.T) {
	t.Parallel()
	b := setup(t)
	mine := b.register(nil)
	rival := b.newOrgWithKey("rival")
	theirs := b.with(t)
	theirs.key = rival.key
	theirAgent := theirs.register(map[string]any{"name": "theirs"})

	mineEvents, theirEvents := len(b.events(b.orgID)), len(b.events(rival.id))
	const missing = "agent_doesnotexist0000000000"
	byID := func(extra map[string]any) func(string) map[string]any {
		return func(id string) map[string]any {
			vars := map[string]any{"id": id}
			for k, v := range extra {
				vars[k] = v
			}
			return vars
		}
	}
	ops := map[string]struct {
		query string
		vars  func(id string) map[string]any
	}{
		"agent":           {agentQuery, byID(nil)},
		"updateAgent":     {updateMutation, byID(map[string]any{"input": map[string]any{"name": "pwned"}})},
		"suspendAgent":    {suspendMutation, byID(map[string]any{"reason": "pwned"})},
		"verifyAgent":     {verifyQuery, byID(nil)},
		"agentAuditChain": {auditChainQuery, byID(nil)},
	}
	for name, op := range ops {
		r := b.do(rival.key, op.query, op.vars(mine.ID))
		r.refused(t, "NOT_FOUND")
		absent := b.do(rival.key, op.query, op.vars(missing))
		absent.refused(t, "NOT_FOUND")
		if strings.ReplaceAll(r.Errors[0].Message, mine.ID, missing) != absent.Errors[0].Message {
			t.Errorf("%s: %q differs from a missing agent's %q", name, r.Errors[0].Message, absent.Errors[0].Message)
		}
		b.do(b.key, op.query, op.vars(theirAgent.ID)).refused(t, "NOT_FOUND")
	}

	for _, status := range []any{nil, "active", "suspended"} {
		want := []string{theirAgent.ID}
		if status == "suspended" {
			want = nil
		}
		c := b.list(rival.key, map[string]any{"status": status})
		if !slices.Equal(c.ids(), want) || c.TotalCount != len(want) {
			t.Fatalf("rival's agents(status: %v) = %v (totalCount %d)", status, c.ids(), c.TotalCount)
		}
	}
	if c := b.list(b.key, nil); !slices.Equal(c.ids(), []string{mine.ID}) || c.TotalCount != 1 {
		t.Fatalf("own agents = %v (totalCount %d)", c.ids(), c.TotalCount)
	}
	if got := b.agent(mine.ID); !reflect.DeepEqual(got, mine) {
		t.Fatalf("the rival's attempts changed the agent: %+v", got)
	}
	if len(b.events(b.orgID)) != mineEvents || len(b.events(rival.id)) != theirEvents {
		t.Fatalf("refused cross-organization mutations wrote events")
	}
}

// A batched auditChain never includes another organization's entries.
func TestAuditChainStaysInOrganization(t *testing.T) {
	t.Parallel()
	b := setup(t)
	rival := b.newOrgWithKey("rival")
	theirs := b.with(t)
	theirs.key = rival.key
	theirs.register(nil)
	mine := b.register(nil)
	var page struct {
		Nodes []agentJSON `json:"nodes"`
	}
	b.q(`{ agents(limit: 10) { nodes { id auditChain { `+auditFields+` } } } }`, nil).into(t, "agents", &page)
	if len(page.Nodes) != 1 || page.Nodes[0].ID != mine.ID || !reflect.DeepEqual(page.Nodes[0].AuditChain, mine.AuditChain) {
		t.Fatalf("agents { auditChain } = %+v", page.Nodes)
	}
}
