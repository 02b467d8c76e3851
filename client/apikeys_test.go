package client_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/agenttrust/service/client"
)

// An admin key creates an agent key; the agent key pays for its agent,
// is refused the rest with a *ForbiddenError, and stops working once revoked.
func TestAPIKeys(t *testing.T) {
	t.Parallel()
	b := setup(t)
	payer := b.register(b.c, "payer", "100")
	payee := b.register(b.c, "payee", "100")

	created, err := b.c.Keys.Create(b.ctx, client.CreateAPIKeyInput{Name: "bot", Role: client.RoleAgent, AgentIDs: []string{payer.ID}})
	if err != nil || !strings.HasPrefix(created.Secret, "att_sk_") || created.Key.Role != client.RoleAgent ||
		!slices.Equal(created.Key.AgentIDs, []string{payer.ID}) {
		t.Fatalf("create: %+v %v", created, err)
	}
	bot := b.client(created.Secret)
	me, err := bot.Keys.Whoami(b.ctx)
	if err != nil || me.ID != created.Key.ID || me.Name != "bot" {
		t.Fatalf("whoami: %+v %v", me, err)
	}
	if _, err := bot.Transactions.Execute(b.ctx, client.ExecuteInput{FromAgent: payer.ID, ToAgent: payee.ID, Action: "purchase", Amount: dec("1"), Currency: "USD"}); err != nil {
		t.Fatalf("the agent key pays for its agent: %v", err)
	}
	_, err = bot.Transactions.Execute(b.ctx, client.ExecuteInput{FromAgent: payee.ID, ToAgent: payer.ID, Action: "purchase", Amount: dec("1"), Currency: "USD"})
	var fe *client.ForbiddenError
	if !errors.As(err, &fe) || !errors.Is(err, client.ErrForbidden) || !strings.Contains(fe.Message, "an agent key may not executeTransaction") {
		t.Fatalf("the agent key pays for another agent: %v", err)
	}
	if _, err := bot.Keys.Create(b.ctx, client.CreateAPIKeyInput{Name: "wider", Role: client.RoleAdmin}); !errors.As(err, &fe) {
		t.Fatalf("the agent key widens itself: %v", err)
	}
	if _, err := bot.Keys.List(b.ctx); !errors.As(err, &fe) {
		t.Fatalf("the agent key lists keys: %v", err)
	}
	var ve *client.ValidationError
	if _, err := b.c.Keys.Create(b.ctx, client.CreateAPIKeyInput{Name: "x", Role: client.RoleReadonly, AgentIDs: []string{payer.ID}}); !errors.As(err, &ve) ||
		len(ve.FieldErrors) != 1 || ve.FieldErrors[0].Field != "input.agentIds" {
		t.Fatalf("a readonly key with agents: %v", err)
	}

	keys, err := b.c.Keys.List(b.ctx)
	if err != nil || len(keys) != 2 || keys[0].ID != created.Key.ID || keys[1].Role != client.RoleAdmin {
		t.Fatalf("list: %+v %v", keys, err)
	}
	revoked, err := b.c.Keys.Revoke(b.ctx, created.Key.ID)
	if err != nil || revoked.RevokedAt == nil {
		t.Fatalf("revoke: %+v %v", revoked, err)
	}
	if _, err := bot.Keys.Whoami(b.ctx); !errors.Is(err, client.ErrUnauthenticated) {
		t.Fatalf("a revoked key: %v", err)
	}
}
