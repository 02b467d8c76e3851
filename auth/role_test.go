package auth_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/agenttrust/service/auth"
	"github.com/agenttrust/service/failure"
)

func TestKeyInputValidate(t *testing.T) {
	t.Parallel()
	many := make([]string, auth.MaxKeyAgents+1)
	for i := range many {
		many[i] = "agent_" + strings.Repeat("x", i+1)
	}
	for _, c := range []struct {
		in    auth.KeyInput
		field string // "" when valid
	}{
		{auth.KeyInput{Role: auth.RoleAdmin}, ""},
		{auth.KeyInput{Name: "dash", Role: auth.RoleReadonly}, ""},
		{auth.KeyInput{Role: auth.RoleAgent, AgentIDs: []string{"agent_a", "agent_b"}}, ""},
		{auth.KeyInput{Role: "owner"}, "input.role"},
		{auth.KeyInput{Role: auth.RoleAgent}, "input.agentIds"},
		{auth.KeyInput{Role: auth.RoleReadonly, AgentIDs: []string{"agent_a"}}, "input.agentIds"},
		{auth.KeyInput{Role: auth.RoleAdmin, AgentIDs: []string{"agent_a"}}, "input.agentIds"},
		{auth.KeyInput{Role: auth.RoleAgent, AgentIDs: []string{"agent_a", "agent_a"}}, "input.agentIds"},
		{auth.KeyInput{Role: auth.RoleAgent, AgentIDs: many}, "input.agentIds"},
		{auth.KeyInput{Name: strings.Repeat("n", auth.MaxKeyNameLength+1), Role: auth.RoleAdmin}, "input.name"},
	} {
		err := c.in.Validate()
		var fe *failure.Error
		switch {
		case c.field == "" && err != nil:
			t.Errorf("%+v: %v", c.in, err)
		case c.field != "" && (!errors.As(err, &fe) || len(fe.FieldErrors) != 1 || fe.FieldErrors[0].Field != c.field):
			t.Errorf("%+v: %v, want an error on %s", c.in, err, c.field)
		}
	}
}

func TestAuthorize(t *testing.T) {
	t.Parallel()
	admin := auth.Principal{OrgID: "org_a", KeyID: "key_1", Role: auth.RoleAdmin}
	agent := auth.Principal{OrgID: "org_a", KeyID: "key_2", Role: auth.RoleAgent, AgentIDs: []string{"agent_a"}}
	readonly := auth.Principal{OrgID: "org_a", KeyID: "key_3", Role: auth.RoleReadonly}
	for _, c := range []struct {
		p   auth.Principal
		op  string
		msg string // "" when allowed
	}{
		{admin, "Mutation.registerAgent", ""},
		{agent, "Mutation.registerAgent", "an agent key may not registerAgent"},
		{readonly, "Mutation.executeTransaction", "a readonly key may not executeTransaction"},
		{agent, "Mutation.executeTransaction", ""},
		{readonly, "Query.agents", ""},
		{agent, "Mutation.createApiKey", "an agent key may not createApiKey"},
		{readonly, "DELETE /webhooks/{id}", "a readonly key may not DELETE /webhooks/{id}"},
		{readonly, "GET /webhooks", ""},
		{admin, "Mutation.noSuchThing", "an admin key may not noSuchThing"},
	} {
		_, err := auth.Authorize(c.p, c.op)
		var fe *failure.Error
		switch {
		case c.msg == "" && err != nil:
			t.Errorf("%s as %s: %v", c.op, c.p.Role, err)
		case c.msg != "" && (!errors.As(err, &fe) || fe.Code != failure.Forbidden || fe.Message != c.msg):
			t.Errorf("%s as %s: %v, want FORBIDDEN %q", c.op, c.p.Role, err, c.msg)
		}
	}
	if err := auth.AuthorizeAgent(agent, "Mutation.executeTransaction", "agent_b"); err == nil || !strings.Contains(err.Error(), "agent_b") {
		t.Errorf("an agent key for another agent: %v", err)
	}
	for _, p := range []auth.Principal{admin, agent} {
		if err := auth.AuthorizeAgent(p, "Mutation.executeTransaction", "agent_a"); err != nil {
			t.Errorf("%s key for agent_a: %v", p.Role, err)
		}
	}
	if !agent.MayCite("agent_x", "agent_a") || agent.MayCite("agent_x", "agent_b") || !admin.MayCite("agent_x", "agent_b") {
		t.Error("MayCite")
	}
	if !agent.MayWithdraw("key_2") || agent.MayWithdraw("key_1") || agent.MayWithdraw("") || !admin.MayWithdraw("key_2") {
		t.Error("MayWithdraw")
	}
}
