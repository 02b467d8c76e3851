package chaos

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/agenttrust/service/id"
	"github.com/agenttrust/service/policy"
)

// TestDailyBudgetUnderStormsAndACrash: one agent with a daily limit of
// 100.00 has 90.00 of history that leaves its 24-hour window a few seconds
// into the scenario (seeded in SQL: the service's own clock decides). Storms
// of concurrent executes go through three processes, one of which is
// killed with SIGKILL mid-storm and restarted. At no moment does the
// agent's outflow in any 24-hour window exceed the limit; refusals say
// daily_limit_exceeded and nothing else; once the history leaves the window
// the agent transacts again, and a second storm spends up to the limit
// again, never beyond.
func TestDailyBudgetUnderStormsAndACrash(t *testing.T) {
	t.Parallel()
	p := current()
	ctx := context.Background()
	e := newEnv(t, privateDB(t))
	servers, clients, names := e.startReplicas(3)
	limit := decimal.NewFromInt(100)
	sender := e.agents(ctx, clients[0], 1, &limit)[0]
	receivers := e.agents(ctx, clients[0], 3, nil)

	// 90.00 spent window-minus-budgetWindow ago: it counts until freeAt.
	seedAt := time.Now().Add(-policy.Window + p.budgetWindow)
	freeAt := seedAt.Add(policy.Window)
	seedID := id.New(id.Transaction)
	if _, err := e.sql.ExecContext(ctx, `INSERT INTO transactions (id, from_agent, to_agent, from_org, to_org, action, amount, currency, memo, status, created_at)
		VALUES ($1, $2, $3, $4, $4, 'purchase', 90.00, 'USD', 'seeded history', 'completed', $5)`, seedID, sender, receivers[0], e.orgID, seedAt); err != nil {
		t.Fatalf("seed history: %v", err)
	}

	l := newLedger()
	next := func(r *rand.Rand) (string, string, decimal.Decimal) {
		return sender, receivers[r.IntN(len(receivers))], decimal.New(int64(1+r.IntN(300)), -2) // 0.01 to 3.00
	}
	workers := 2 * p.workers

	// Storm 1 runs until just before the history frees its 90.00, with a
	// SIGKILL of one process (restarted at once) 40 % of the way in.
	storm1 := time.Until(freeAt) - 500*time.Millisecond
	if storm1 < time.Second {
		t.Fatalf("set-up took too long: %s left before the seeded history leaves the window", storm1)
	}
	ctx1, stop1 := context.WithTimeout(ctx, storm1)
	killed := make(chan struct{})
	go func() {
		defer close(killed)
		time.Sleep(storm1 * 4 / 10)
		servers[2].kill()
		servers[2].start()
	}()
	l.storm(ctx1, workers, clients, names, next, 0)
	stop1()
	<-killed
	ack1, unk1, den1 := l.counts()

	// The history leaves the window: the agent transacts again.
	time.Sleep(time.Until(freeAt) + 50*time.Millisecond)
	first := l.add(sender, receivers[0], decimal.RequireFromString("5.00"))
	var freed time.Duration
	for {
		l.execute(ctx, clients[0], names[0], first)
		if first.state == acked {
			freed = time.Since(freeAt)
			break
		}
		if time.Since(freeAt) > p.settle {
			t.Fatalf("PROMISE BROKEN: the agent still cannot transact %s after its budget freed: outcome %d %s", p.settle, first.state, first.reason)
		}
		// Refused (or no answer): a new key, as a client would after a refusal.
		first = l.add(sender, receivers[0], decimal.RequireFromString("5.00"))
		time.Sleep(100 * time.Millisecond)
	}
	ctx2, stop2 := context.WithTimeout(ctx, p.load)
	l.storm(ctx2, workers, clients, names, next, 0)
	stop2()

	sctx, cancel := context.WithTimeout(ctx, p.settle)
	defer cancel()
	if _, err := l.resolve(sctx, clients[0], names[0]); err != nil {
		t.Errorf("PROMISE BROKEN: %v", err)
	}
	if bad := l.unexpectedAnswers(); len(bad) > 0 {
		t.Errorf("PROMISE BROKEN: answers no kill explains:\n  %s", brokenf(bad))
	}
	a, broken := e.checkLedger(sctx, l, map[string]bool{seedID: true})
	if len(broken) > 0 {
		t.Errorf("PROMISE BROKEN: money under the storms:\n  %s", brokenf(broken))
	}
	// While the history was in the window only 10.00 was left. (Executes
	// sent just before it left may run just after: the stored time decides.)
	spent1, n1 := decimal.Zero, 0
	for _, r := range a.rows {
		if r.id != seedID && r.from == sender && r.createdAt.Before(freeAt) {
			spent1, n1 = spent1.Add(r.amount), n1+1
		}
	}
	if spent1.GreaterThan(limit.Sub(decimal.NewFromInt(90))) {
		t.Errorf("PROMISE BROKEN: %s went out while only 10.00 of the daily budget was left", spent1)
	}
	reasons := map[string]int{}
	ack, _, den := l.counts()
	for _, o := range l.snapshot() {
		if o.state == denied {
			reasons[o.reason]++
		}
	}
	for r, n := range reasons {
		if r != "daily_limit_exceeded" {
			t.Errorf("PROMISE BROKEN: %d executes refused with %s: the storm should meet only the daily limit", n, r)
		}
	}
	peak, at, err := e.peakWindowOutflow(sctx, sender)
	if err != nil {
		t.Fatal(err)
	}
	if peak.GreaterThan(limit) {
		t.Errorf("PROMISE BROKEN: overspent: %s went out in the 24 hours up to %s, limit %s", peak, at.Format(time.RFC3339Nano), limit)
	}
	var rs []string
	for r, n := range reasons {
		rs = append(rs, fmt.Sprintf("%d %s", n, r))
	}
	sort.Strings(rs)
	report(t, "5. daily budget under storms and a crash",
		fmt.Sprintf("%d workers over 3 processes on 1 agent (limit 100.00, 90.00 of it taken for %s), kill -9 of 1 process", workers, p.budgetWindow),
		join(fmt.Sprintf("storm 1: %d answered ok, %d refused, %d unanswered at the kill; while the history counted: %d transactions for %s of the 10.00 left; budget freed: first execute %s after; storm 2 and resends: %d acknowledged, %d refused in all (%s); largest 24-hour outflow %s ≤ 100.00",
			ack1, den1, unk1, n1, spent1.StringFixed(2), ms(freed), ack, den, strings.Join(rs, ", "), peak.StringFixed(2)), l.note500s(t)))
}

// peakWindowOutflow returns the agent's largest outflow over any 24-hour
// window ending at one of its transactions (the policy's window: after
// created_at − 24 h, up to and including created_at), and where it ends.
func (e *env) peakWindowOutflow(ctx context.Context, agentID string) (decimal.Decimal, time.Time, error) {
	var spent string
	var at time.Time
	err := e.sql.QueryRowContext(ctx, `SELECT (SELECT sum(u.amount) FROM transactions u WHERE u.from_agent = t.from_agent AND u.status = 'completed'
			AND u.created_at > t.created_at - $2::interval AND u.created_at <= t.created_at)::text AS spent, t.created_at
		FROM transactions t WHERE t.from_agent = $1 AND t.status = 'completed' ORDER BY 1 DESC LIMIT 1`,
		agentID, fmt.Sprintf("%d microseconds", policy.Window.Microseconds())).Scan(&spent, &at)
	if err != nil {
		return decimal.Zero, at, fmt.Errorf("peak window outflow: %w", err)
	}
	d, err := decimal.NewFromString(spent)
	return d, at, err
}
