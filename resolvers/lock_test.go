package resolvers_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/agenttrust/service/db/dbtest"
	"github.com/agenttrust/service/internal/testkit"
)

// Reversing a transaction while its receiver disputes it never deadlocks:
// each request succeeds or answers a contract error, never INTERNAL.
func TestReverseRacingDispute(t *testing.T) {
	t.Parallel()
	b := testkit.New(t)
	_, otherKey := b.NewOrg("receiver")
	for i := range 25 {
		// fresh agents each round: disputes and reversals lower the sender's score
		sender := b.Register(map[string]any{"spendingLimit": "1000"})
		receiver := b.RegisterAs(otherKey, nil)
		tx := b.MustExecute(b.Key, testkit.Pay(sender, receiver, "1"))
		var wg sync.WaitGroup
		var reversed, reported *testkit.Response
		wg.Go(func() {
			reported = b.Do(otherKey, reportMutation, map[string]any{"in": map[string]any{
				"agentId": sender.ID, "reason": "never delivered", "evidenceIds": []string{tx.ID}}})
		})
		wg.Go(func() {
			reversed = b.Do(b.Key, testkit.ReverseMutation, map[string]any{"id": tx.ID, "reason": "duplicate"})
		})
		wg.Wait()
		for name, r := range map[string]*testkit.Response{"reverse": reversed, "report": reported} {
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
	b := testkit.New(t)
	victim := b.Register(nil)
	payee := b.Register(map[string]any{"name": "payee"})
	_, strangerKey := b.NewOrg("stranger")
	stranger := b.RegisterAs(strangerKey, nil)

	sqldb := dbtest.OpenSQL(b.DBURL)
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
	for _, in := range []map[string]any{testkit.Pay(victim, payee, "1"), testkit.Pay(victim, stranger, "1")} {
		start := time.Now()
		b.Execute(strangerKey, in).Refused(t, "NOT_FOUND")
		if took := time.Since(start); took > 2*time.Second {
			t.Fatalf("the stranger waited %v on the victim's lock", took)
		}
	}
}
