package chaos

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/agenttrust/service/client"
	"github.com/agenttrust/service/event"
)

// stream is the webhook latency scenarios' steady load: executes between
// the env organization's agents through one server, open loop, and the
// commit-to-delivery times of their events at the organization's healthy
// endpoints.
type stream struct {
	t      *testing.T
	p      profile
	e      *env
	srv    *server
	c      *client.Client
	agents []string
	l      *ledger
	good   []*sink
}

// newStream registers the given number of healthy endpoints and four agents of the
// env's organization.
func newStream(t *testing.T, e *env, srv *server, healthy int) *stream {
	ctx := context.Background()
	s := &stream{t: t, p: current(), e: e, srv: srv, c: e.client(srv), l: newLedger()}
	for i := range healthy {
		g := newSink(t, fmt.Sprintf("good-%d", i+1), answer)
		e.register(ctx, s.c, g)
		s.good = append(s.good, g)
	}
	s.agents = e.agents(ctx, s.c, 4, nil)
	return s
}

// phase sends rate executes a second for p.phase, open loop (each at its
// time, whatever the previous ones are doing), and returns the ids of the
// transactions it committed.
func (s *stream) phase() []string {
	ctx := context.Background()
	var wg sync.WaitGroup
	var mu sync.Mutex
	var committed []string
	tick := time.NewTicker(time.Second / time.Duration(s.p.rate))
	defer tick.Stop()
	end := time.After(s.p.phase)
	for i := 0; ; i++ {
		select {
		case <-end:
			wg.Wait()
			return committed
		case <-tick.C:
		}
		o := s.l.add(s.agents[i%len(s.agents)], s.agents[(i+1)%len(s.agents)], decimal.New(int64(1+rand.IntN(9999)), -2))
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.l.execute(ctx, s.c, s.srv.name, o)
			// An overloaded machine may time an execute out: send it
			// again with its key (these scenarios are about deliveries).
			for o.state == unknown && ctx.Err() == nil {
				sleep(ctx, 100*time.Millisecond)
				s.l.execute(ctx, s.c, s.srv.name, o)
			}
			if o.state != acked {
				s.t.Errorf("execute %s refused (%s): no fault was injected on this path", o.in.IdempotencyKey, o.reason)
				return
			}
			mu.Lock()
			committed = append(committed, o.txID)
			mu.Unlock()
		}()
	}
}

// latencies waits until every healthy endpoint received the events of the
// transactions and returns their commit-to-delivery times.
func (s *stream) latencies(txIDs []string, label string) []time.Duration {
	ctx := context.Background()
	ack, _, _ := s.l.counts()
	evs, err := s.e.waitLog(ctx, ack, s.p.settle)
	if err != nil {
		s.t.Fatal(err)
	}
	want := map[string]bool{}
	for _, id := range txIDs {
		want[id] = true
	}
	var ids []string
	idSet := map[string]bool{}
	for _, ev := range evs {
		if ev.Type == event.TransactionCompleted && want[txOf(ev)] {
			ids = append(ids, ev.ID)
			idSet[ev.ID] = true
		}
	}
	var out []time.Duration
	for _, g := range s.good {
		var missing []string
		if !eventually(s.p.settle, func() bool { missing = g.missing(ids); return len(missing) == 0 }) {
			s.t.Fatalf("PROMISE BROKEN: %s: %d of %d events not delivered within %s (%s)", g.name, len(missing), len(ids), s.p.settle, label)
		}
		first := map[string]bool{}
		for _, a := range g.arrivals() {
			if idSet[a.id] && !first[a.id] {
				first[a.id] = true
				out = append(out, a.at.Sub(a.created))
			}
		}
	}
	return out
}

// checkSignatures fails t for every healthy delivery whose signature did
// not verify.
func (s *stream) checkSignatures() {
	for _, g := range s.good {
		if g.badSignatures() > 0 {
			s.t.Errorf("PROMISE BROKEN: %s: %d deliveries failed signature verification", g.name, g.badSignatures())
		}
	}
}

// besideLimit is the most a healthy endpoint's p99 commit-to-delivery may
// reach beside bad endpoints, given the baseline's p99: three times it or
// one slow answer (slowDelay) more, whichever is larger, since a loaded
// machine slows the phase beside the bad endpoints (their requests cost CPU
// too) by a fraction of that, while a healthy delivery that has to wait for
// a worker a bad endpoint holds waits for seconds (a hung attempt holds it
// for the 15 s request timeout).
func besideLimit(b99 time.Duration) time.Duration {
	return max(3*b99, b99+slowDelay)
}
