package resolvers_test

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/agenttrust/service/internal/testkit"
)

// Another organization's agent answers exactly as a missing one would.
func TestOtherOrganizationsAgentIsNotFound(t *testing.T) {
	t.Parallel()
	b := testkit.New(t)
	mine := b.Register(nil)
	rival := b.NewOrgWithKey("rival")
	theirs := b.For(t)
	theirs.Key = rival.Key
	theirAgent := theirs.Register(map[string]any{"name": "theirs"})

	mineEvents, theirEvents := len(b.Events(b.OrgID)), len(b.Events(rival.ID))
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
		"agent":           {testkit.AgentQuery, byID(nil)},
		"updateAgent":     {testkit.UpdateMutation, byID(map[string]any{"input": map[string]any{"name": "pwned"}})},
		"suspendAgent":    {testkit.SuspendMutation, byID(map[string]any{"reason": "pwned"})},
		"verifyAgent":     {testkit.VerifyQuery, byID(nil)},
		"agentAuditChain": {testkit.AuditChainQuery, byID(nil)},
	}
	for name, op := range ops {
		r := b.Do(rival.Key, op.query, op.vars(mine.ID))
		r.Refused(t, "NOT_FOUND")
		absent := b.Do(rival.Key, op.query, op.vars(missing))
		absent.Refused(t, "NOT_FOUND")
		if strings.ReplaceAll(r.Errors[0].Message, mine.ID, missing) != absent.Errors[0].Message {
			t.Errorf("%s: %q differs from a missing agent's %q", name, r.Errors[0].Message, absent.Errors[0].Message)
		}
		b.Do(b.Key, op.query, op.vars(theirAgent.ID)).Refused(t, "NOT_FOUND")
	}

	for _, status := range []any{nil, "active", "suspended"} {
		want := []string{theirAgent.ID}
		if status == "suspended" {
			want = nil
		}
		c := b.Agents(rival.Key, map[string]any{"status": status})
		if !slices.Equal(c.IDs(), want) || c.TotalCount != len(want) {
			t.Fatalf("rival's agents(status: %v) = %v (totalCount %d)", status, c.IDs(), c.TotalCount)
		}
	}
	if c := b.Agents(b.Key, nil); !slices.Equal(c.IDs(), []string{mine.ID}) || c.TotalCount != 1 {
		t.Fatalf("own agents = %v (totalCount %d)", c.IDs(), c.TotalCount)
	}
	if got := b.Agent(mine.ID); !reflect.DeepEqual(got, mine) {
		t.Fatalf("the rival's attempts changed the agent: %+v", got)
	}
	if len(b.Events(b.OrgID)) != mineEvents || len(b.Events(rival.ID)) != theirEvents {
		t.Fatalf("refused cross-organization mutations wrote events")
	}
}

// A batched auditChain never includes another organization's entries.
func TestAuditChainStaysInOrganization(t *testing.T) {
	t.Parallel()
	b := testkit.New(t)
	rival := b.NewOrgWithKey("rival")
	theirs := b.For(t)
	theirs.Key = rival.Key
	theirs.Register(nil)
	mine := b.Register(nil)
	var page struct {
		Nodes []testkit.Agent `json:"nodes"`
	}
	b.Query(`{ agents(limit: 10) { nodes { id auditChain { `+testkit.AuditFields+` } } } }`, nil).Into(t, "agents", &page)
	if len(page.Nodes) != 1 || page.Nodes[0].ID != mine.ID || !reflect.DeepEqual(page.Nodes[0].AuditChain, mine.AuditChain) {
		t.Fatalf("agents { auditChain } = %+v", page.Nodes)
	}
}
