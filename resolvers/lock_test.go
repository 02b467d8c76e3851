package resolvers_test

import (
	"context"
	"database/sql"
	"sync"
	"testing"
	"time"

	"github.com/uptrace/bun/driver/pgdriver"
)

// Reversing a transaction while its receiver disputes it never deadlocks:
// each request succeeds or answers a contract error, never INTERNAL.
func TestReverseRacingDispute(t *testing.T) {
	t.Parallel()
	b := setup(t)
	_, otherKey := b.newOrg("receiver")
	for i := range 25 {
		// fresh agents each round: disputes and reversals lower the sender's score
		sender := b.register(map[string]any{"spendingLimit": "1000"})
		receiver := b.registerAs(otherKey, nil)
		tx := b.mustExecute(b.key, pay(sender, receiver, "1"))
		var wg sync.WaitGroup
		var reversed, reported *response
		wg.Go(func() {
			reported = b.do(otherKey, reportMutation, map[string]any{"in": map[string]any{
				"agentId": sender.ID, "reason": "never delivered", "evidenceIds": []string{tx.ID}}})
		})
		wg.Go(func() {
			reversed = b.do(b.key, reverseMutation, map[string]any{"id": tx.ID, "reason": "duplicate"})
		})
		wg.Wait()
		for name, r := range map[string]*response{"reverse": reversed, "report": reported} {
			if len(r.Errors) > 0 {
				t.Fatalf("round %d: %s answered %+v", i, name, r.Errors)
			}
		}
	}
}

// An execute from another organization's agent is NOT_FOUND at once, even
// while the victim's agent is locked by its own payment: the stranger never
// queues behind it.
func TestExecuteChecksOwnershipBeforeLocking(t *testing.T) {
	t.Parallel()
	b := setup(t)
	victim := b.register(nil)
	payee := b.register(map[string]any{"name": "payee"})
	_, strangerKey := b.newOrg("stranger")
	stranger := b.registerAs(strangerKey, nil)

	sqldb := sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(b.dbURL)))
	defer sqldb.Close()
	ctx := context.Background()
	holder, err := sqldb.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Rollback()
	if _, err := holder.ExecContext(ctx, `SELECT 1 FROM agents WHERE id = $1 FOR UPDATE`, victim.ID); err != nil {
		t.Fatal(err)
	}
	for _, in := range []map[string]any{pay(victim, payee, "1"), pay(victim, stranger, "1")} {
		start := time.Now()
		b.execute(strangerKey, in).refused(t, "NOT_FOUND")
		if took := time.Since(start); took > 2*time.Second {
			t.Fatalf("the stranger waited %v on the victim's lock", took)
		}
	}
}
