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

// startReplicas runs n server processes on the env's database.
func (e *env) startReplicas(n int) ([]*server, []*client.Client, []string) {
	servers := make([]*server, n)
	clients := make([]*client.Client, n)
	names := make([]string, n)
	for i := range servers {
		servers[i] = e.startServer(fmt.Sprintf("replica-%d", i+1))
		clients[i] = e.client(servers[i])
		names[i] = servers[i].name
	}
	return servers, clients, names
}

// TestThreeProcessesDeliverOnce: three server processes on one database
// under execute load spread over them. In normal operation each endpoint
// receives each event exactly once (River gives each delivery job to one
// process), and a subscriber on each process receives every event once, in
// log order.
func TestThreeProcessesDeliverOnce(t *testing.T) {
	t.Parallel()
	p := current()
	ctx := context.Background()
	e := newEnv(t, privateDB(t))
	servers, clients, names := e.startReplicas(3)
	sinks := []*sink{newSink(t, "endpoint-1", answer), newSink(t, "endpoint-2", answer)}
	for _, s := range sinks {
		e.register(ctx, clients[0], s)
	}
	var subs []*subscriber
	for i, s := range servers {
		subs = append(subs, e.subscribe(ctx, s, fmt.Sprintf("subscriber on %s", names[i]), ""))
	}
	agents := e.agents(ctx, clients[1], 8, nil)

	l := newLedger()
	next := func(r *rand.Rand) (string, string, decimal.Decimal) {
		i := r.IntN(len(agents))
		return agents[i], agents[(i+1+r.IntN(len(agents)-1))%len(agents)], decimal.New(int64(1+r.IntN(99999)), -2)
	}
	loadCtx, stop := context.WithTimeout(ctx, p.load)
	l.storm(loadCtx, p.workers, clients, names, next, 0)
	stop()
	loadEnd := time.Now()
	ack, unk, den := l.counts()
	if den > 0 {
		t.Errorf("%d executes were refused with no fault injected", den)
	}
	sctx, cancel := context.WithTimeout(ctx, p.settle)
	defer cancel()
	if unk > 0 { // timed out on a starved machine: resend with their keys
		if _, err := l.resolve(sctx, clients[0], names[0]); err != nil {
			t.Errorf("PROMISE BROKEN: %v", err)
		}
	}
	if bad := l.unexpectedAnswers(); len(bad) > 0 {
		t.Errorf("PROMISE BROKEN: answers no fault explains:\n  %s", brokenf(bad))
	}
	a, broken := e.checkLedger(sctx, l, nil)
	if len(broken) > 0 {
		t.Errorf("PROMISE BROKEN: money with three processes:\n  %s", brokenf(broken))
	}
	log := eventIDs(a.events)
	for _, s := range sinks {
		var missing []string
		if !eventually(p.settle, func() bool { missing = s.missing(log); return len(missing) == 0 }) {
			t.Errorf("PROMISE BROKEN: %s: %d of %d events never arrived (e.g. %s)", s.name, len(missing), len(log), missing[0])
		}
	}
	caughtUp := time.Since(loadEnd)
	time.Sleep(time.Second) // a second delivery of the same event would come now
	dups := 0
	for _, s := range sinks {
		for id, n := range s.counts() {
			if n > 1 {
				dups += n - 1
				t.Errorf("PROMISE BROKEN: %s received event %s %d times in normal operation", s.name, id, n)
			}
		}
		if s.badSignatures() > 0 {
			t.Errorf("PROMISE BROKEN: %s: %d deliveries failed signature verification", s.name, s.badSignatures())
		}
	}
	for _, sub := range subs {
		if msg := sub.check(log, p.settle); msg != "" {
			t.Errorf("PROMISE BROKEN: %s", msg)
		}
	}
	report(t, "4. three processes, one database",
		fmt.Sprintf("%d workers × %s spread over 3 processes, 2 endpoints, 3 subscribers", p.workers, p.load),
		join(fmt.Sprintf("%d acknowledged, outflow exact; %d events × 2 endpoints delivered with %d duplicates (last arrived %s after the load); each of the 3 subscribers received all %d once, in log order",
			ack, len(log), dups, ms(caughtUp), len(log)), l.note500s(t)))
}
