package chaos

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/agenttrust/service/client"
)

// TestMandateUnderAStormAndAKill: workers spread over two processes execute
// under one mandate (budget 60.00, at most 150 uses) until it is used up;
// one process is killed with SIGKILL mid-storm and restarted. After the
// unanswered executes are resent with their keys, the mandate's spent
// equals the sum of its completed transactions and its uses their count,
// neither beyond its caps, every acknowledged execute is stored once, and
// the only refusals are the mandate's own.
func TestMandateUnderAStormAndAKill(t *testing.T) {
	t.Parallel()
	p := current()
	ctx := context.Background()
	e := newEnv(t, privateDB(t))
	servers, clients, names := e.startReplicas(2)
	buyer := e.agents(ctx, clients[0], 1, nil)[0]
	receivers := e.agents(ctx, clients[0], 3, nil)
	budget, maxUses := decimal.NewFromInt(60), 150
	m, err := clients[0].Mandates.Create(ctx, client.CreateMandateInput{AgentID: buyer, Description: "chaos storm",
		Actions: []string{"purchase"}, CounterpartyAgents: receivers, Budget: budget, MaxUses: &maxUses,
		ExpiresAt: time.Now().Add(time.Hour)})
	if err != nil {
		t.Fatalf("create mandate: %v", err)
	}

	l := newLedger()
	workers := 2 * p.workers
	loadCtx, stopLoad := context.WithTimeout(ctx, p.load+p.settle)
	var killedAt time.Time
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // the kill, once some executes went through
		defer wg.Done()
		eventually(p.settle, func() bool { ack, _, _ := l.counts(); return ack >= 10 })
		servers[1].kill()
		killedAt = time.Now()
		servers[1].start()
	}()
	var used sync.Once
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mandateWorker(loadCtx, l, clients, names, w, buyer, receivers, m.ID, func() { used.Do(stopLoad) })
		}()
	}
	wg.Wait()
	stopLoad()

	sctx, cancel := context.WithTimeout(ctx, p.settle)
	defer cancel()
	resent, err := l.resolve(sctx, clients[0], names[0])
	if err != nil {
		t.Errorf("PROMISE BROKEN: %v", err)
	}
	if bad := l.unexpectedAnswers(); len(bad) > 0 {
		t.Errorf("PROMISE BROKEN: answers no kill explains:\n  %s", brokenf(bad))
	}
	a, broken := e.checkLedger(sctx, l, nil)
	if len(broken) > 0 {
		t.Errorf("PROMISE BROKEN: money under the storm:\n  %s", brokenf(broken))
	}
	reasons := map[string]int{}
	for _, o := range l.snapshot() {
		if o.state == denied {
			reasons[o.reason]++
		}
	}
	for r, n := range reasons {
		if r != client.ReasonMandateExhausted && r != client.ReasonMandateAmountExceeded {
			t.Errorf("PROMISE BROKEN: %d executes refused with %s: the storm should meet only the mandate's caps", n, r)
		}
	}

	// The mandate as the restarted process reads it, against its rows.
	got, err := e.client(servers[1]).Mandates.Get(sctx, m.ID)
	if err != nil {
		t.Fatalf("read the mandate after the restart: %v", err)
	}
	var sumText string
	var n int
	if err := e.sql.QueryRowContext(sctx, `SELECT coalesce(sum(amount), 0)::text, count(*) FROM transactions WHERE mandate_id = $1`, m.ID).Scan(&sumText, &n); err != nil {
		t.Fatal(err)
	}
	sum := decimal.RequireFromString(sumText)
	if !got.Spent.Equal(sum) || got.Uses != n || n != len(a.rows) {
		t.Errorf("PROMISE BROKEN: the mandate says %s spent in %d uses; its completed transactions sum to %s in %d (%d sent in all)",
			got.Spent, got.Uses, sum, n, len(a.rows))
	}
	if got.Spent.GreaterThan(budget) || got.Uses > maxUses {
		t.Errorf("PROMISE BROKEN: the mandate spent %s in %d uses, beyond %s and %d", got.Spent, got.Uses, budget, maxUses)
	}
	if got.Status != client.MandateExhausted {
		t.Errorf("the storm ended with the mandate %s (%s spent in %d uses), not exhausted", got.Status, got.Spent, got.Uses)
	}
	ack, _, den := l.counts()
	var rs []string
	for r, c := range reasons {
		rs = append(rs, fmt.Sprintf("%d %s", c, r))
	}
	sort.Strings(rs)
	kill := "no kill"
	if !killedAt.IsZero() {
		kill = "kill -9 of 1 process"
	}
	report(t, "8. mandate under a storm and a crash",
		fmt.Sprintf("%d workers over 2 processes on 1 mandate (budget 60.00, 150 uses), %s", workers, kill),
		join(fmt.Sprintf("%d acknowledged, %d refused (%s), %d unanswered at the kill, resent with their keys; the mandate: %s spent in %d uses = its %d transactions, %s",
			ack, den, strings.Join(rs, ", "), resent, got.Spent.StringFixed(2), got.Uses, n, got.Status), l.note500s(t)))
}

// mandateWorker is ledger.worker with every execute under mandateID: it
// sends until ctx ends or the mandate refuses as used up (then it calls
// usedUp), moving to the next process after an answerless failure.
func mandateWorker(ctx context.Context, l *ledger, clients []*client.Client, names []string, first int, from string, to []string, mandateID string, usedUp func()) {
	r := rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	i := first
	for ctx.Err() == nil {
		o := l.add(from, to[r.IntN(len(to))], decimal.New(int64(1+r.IntN(100)), -2)) // 0.01 to 1.00
		l.mu.Lock()
		o.in.MandateID = mandateID
		l.mu.Unlock()
		l.execute(context.WithoutCancel(ctx), clients[i%len(clients)], names[i%len(names)], o)
		l.mu.Lock()
		state, reason := o.state, o.reason
		l.mu.Unlock()
		switch {
		case state == unknown:
			i++
			sleep(ctx, 250*time.Millisecond)
		case state == denied && reason == client.ReasonMandateExhausted:
			usedUp()
			return
		}
	}
}
