package chaos

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/agenttrust/service/client"
)

// TestKillNineUnderLoad: the server is killed with SIGKILL while workers
// execute payments with idempotency keys, then started again. Every
// acknowledged transaction is stored once with its amount; the
// unacknowledged ones, sent again with their keys, run at most once; every
// committed event reaches the webhook receiver and replays, in log order,
// to a subscription with `after`; trust counters and audit chains still
// check out.
func TestKillNineUnderLoad(t *testing.T) {
	t.Parallel()
	p := current()
	ctx := context.Background()
	e := newEnv(t, privateDB(t))
	// The replay below covers the whole run, past the default bound on how
	// far back a subscription may start (that bound is tested on its own).
	srv := e.startServer("server", "LIVE_REPLAY_MAX_EVENTS=1000000")
	c := e.client(srv)
	rcv := newSink(t, "receiver", answer)
	e.register(ctx, c, rcv)
	agents := e.agents(ctx, c, 8, nil)

	l := newLedger()
	next := func(r *rand.Rand) (string, string, decimal.Decimal) {
		i := r.IntN(len(agents))
		j := (i + 1 + r.IntN(len(agents)-1)) % len(agents)
		return agents[i], agents[j], decimal.New(int64(1+r.IntN(99999)), -2) // 0.01 to 999.99
	}
	loadCtx, stopLoad := context.WithCancel(ctx)
	stormed := make(chan struct{})
	go func() {
		l.storm(loadCtx, p.workers, []*client.Client{c}, []string{srv.name}, next, 0)
		close(stormed)
	}()
	// p.load, and at least a few acknowledged executes to lose if the kill
	// lost anything (a starved machine is slow to answer the first ones).
	eventually(p.settle, func() bool {
		ack, _, _ := l.counts()
		return ack >= 10
	})
	time.Sleep(p.load)
	srv.kill()
	killedAt := time.Now()
	stopLoad()
	<-stormed
	ack, unk, _ := l.counts()
	if ack == 0 {
		t.Fatalf("no execute was acknowledged within %s: the kill proves nothing", p.settle)
	}
	atKill := map[string]bool{}
	for _, o := range l.snapshot() {
		if o.state != acked {
			atKill[o.in.IdempotencyKey] = true
		}
	}
	orphans := e.orphanedJobs(ctx)
	if p.fastForwardRescue {
		e.rescueOrphans(ctx)
	}
	srv.start()
	restart := time.Since(killedAt)

	sctx, cancel := context.WithTimeout(ctx, p.settle)
	defer cancel()
	resolved, err := l.resolve(sctx, c, srv.name)
	if err != nil {
		t.Errorf("PROMISE BROKEN: an unacknowledged execute never got an answer after the restart: %v", err)
	}
	replayed, broken := l.replay(sctx, c, p.replay)
	if len(broken) > 0 {
		t.Errorf("PROMISE BROKEN: replaying acknowledged keys after the restart:\n  %s", brokenf(broken))
	}
	if bad := l.unexpectedAnswers(); len(bad) > 0 {
		t.Errorf("PROMISE BROKEN: answers no kill explains:\n  %s", brokenf(bad))
	}
	a, broken := e.checkLedger(sctx, l, nil)
	if len(broken) > 0 {
		t.Errorf("PROMISE BROKEN: money after the kill:\n  %s", brokenf(broken))
	}
	// The unanswered ones that had committed before the kill: their resend
	// returned the original transaction instead of paying again.
	ranBefore := 0
	for _, r := range a.rows {
		if atKill[r.memo] && r.createdAt.Before(killedAt) {
			ranBefore++
		}
	}
	if drifted, err := e.rebuildTrust(sctx); err != nil || drifted > 0 {
		t.Errorf("PROMISE BROKEN: trust rebuild after the kill: %d agents drifted (%v)", drifted, err)
	}
	if broken := verifyChains(sctx, c, agents); len(broken) > 0 {
		t.Errorf("PROMISE BROKEN: audit chains after the kill:\n  %s", brokenf(broken))
	}

	// Every committed event reaches the receiver (at least once: an attempt
	// cut off by the kill may arrive twice).
	log := eventIDs(a.events)
	var missing []string
	delivered := eventually(p.settle, func() bool { missing = rcv.missing(log); return len(missing) == 0 })
	allDelivered := time.Since(killedAt)
	if !delivered {
		t.Errorf("PROMISE BROKEN: %d of %d committed events never reached the receiver within %s after the kill (e.g. %s)",
			len(missing), len(log), p.settle, missing[0])
	}
	counts := rcv.counts()
	if rcv.badSignatures() > 0 {
		t.Errorf("PROMISE BROKEN: %d deliveries failed signature verification", rcv.badSignatures())
	}

	// A subscription with `after` replays the log after that event, in order.
	sub := e.subscribe(sctx, srv, "replay", log[0])
	if msg := sub.check(log[1:], p.settle); msg != "" {
		t.Errorf("PROMISE BROKEN: replay after the kill: %s", msg)
	}

	rescue := "fast-forwarded"
	if !p.fastForwardRescue {
		rescue = "real delays"
	}
	report(t, "1. kill -9 under execute load",
		fmt.Sprintf("%d workers × %s, 1 process, 1 endpoint", p.workers, p.load),
		join(fmt.Sprintf("%d acknowledged, %d unanswered at the kill (resent with their keys: %d had committed before it and returned the original, %d ran once now), %d acknowledged replayed: 0 lost, 0 doubled; %d transactions, outflow exact; restart %s; %d events, all delivered %s after the kill (%s, %d jobs orphaned, River rescue %s), all replayed in order",
			ack, unk, ranBefore, resolved-ranBefore, replayed, len(a.rows), ms(restart), len(log), ms(allDelivered), plural(duplicates(counts), "duplicate"), orphans, rescue), l.note500s(t)))
}
