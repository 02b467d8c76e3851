package chaos

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/agenttrust/service/client"
)

// probe is one /readyz answer.
type probe struct {
	at     time.Time
	status int // 0: no answer
	took   time.Duration
}

// prober asks /readyz every interval until ctx ends.
type prober struct {
	mu     sync.Mutex
	probes []probe
}

func (p *prober) run(ctx context.Context, url string, every time.Duration) {
	hc := &http.Client{Timeout: 10 * time.Second}
	for ctx.Err() == nil {
		start := time.Now()
		pr := probe{at: start}
		if resp, err := hc.Get(url + "/readyz"); err == nil {
			resp.Body.Close()
			pr.status = resp.StatusCode
		}
		pr.took = time.Since(start)
		p.mu.Lock()
		p.probes = append(p.probes, pr)
		p.mu.Unlock()
		sleep(ctx, every)
	}
}

// between returns the probes sent in [from, to).
func (p *prober) between(from, to time.Time) []probe {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []probe
	for _, pr := range p.probes {
		if !pr.at.Before(from) && pr.at.Before(to) {
			out = append(out, pr)
		}
	}
	return out
}

// firstAfter returns when the first probe sent after t answered status.
func (p *prober) firstAfter(t time.Time, status int) (time.Time, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, pr := range p.probes {
		if pr.at.After(t) && pr.status == status {
			return pr.at.Add(pr.took), true
		}
	}
	return time.Time{}, false
}

// promptly is how long any answer may take while Postgres is down, beyond
// the slowest answer of the same kind while it was up (a starved machine
// slows both): /readyz gives the database 2 s; the rest must fail at once,
// not wait for a connection or a statement timeout (15 s).
const promptly = 3 * time.Second

// TestPostgresRestartUnderLoad stops a private Postgres under execute load,
// once with a fast shutdown and once as a crash (immediate), and starts it
// again. While it is down, every answer is a prompt 503 and /readyz says
// not ready; afterwards the same process recovers by itself: ready again,
// executes succeed, unanswered executes resent with their keys run at most
// once, webhook delivery resumes and a live subscription (the client
// library reconnecting) receives every event once, in order.
func TestPostgresRestartUnderLoad(t *testing.T) {
	t.Parallel()
	p := current()
	ctx := context.Background()
	sw := newStopwatch(t)
	pg := newCluster(t)
	sw.lap("private cluster")
	e := newEnv(t, pg.URL)
	sw.lap("migrated")
	srv := e.startServer("server")
	sw.lap("server started")
	pid := srv.pid()
	c := e.client(srv)
	rcv := newSink(t, "receiver", answer)
	e.register(ctx, c, rcv)
	sub := e.subscribe(ctx, srv, "live", "") // before the first event: it must see the whole log
	agents := e.agents(ctx, c, 6, nil)

	l := newLedger()
	next := func(r *rand.Rand) (string, string, decimal.Decimal) {
		i := r.IntN(len(agents))
		return agents[i], agents[(i+1+r.IntN(len(agents)-1))%len(agents)], decimal.New(int64(1+r.IntN(9999)), -2)
	}
	loadCtx, stopLoad := context.WithCancel(ctx)
	var background sync.WaitGroup
	background.Add(2)
	pr := &prober{}
	go func() { defer background.Done(); pr.run(loadCtx, srv.URL, 100*time.Millisecond) }()
	go func() {
		defer background.Done()
		// A pause between executes keeps the load steady instead of a
		// tight loop of refusals while Postgres is down.
		l.storm(loadCtx, p.workers, []*client.Client{c}, []string{srv.name}, next, 5*time.Millisecond)
	}()

	sw.lap("set up")
	var figures []string
	for _, mode := range []string{"fast", "immediate"} {
		warm := time.Now()
		time.Sleep(p.load)
		var upSlowest, upExecSlowest time.Duration
		for _, q := range pr.between(warm, time.Now()) {
			upSlowest = max(upSlowest, q.took)
		}
		for _, o := range l.snapshot() {
			if o.state == acked && o.sentAt.After(warm) {
				upExecSlowest = max(upExecSlowest, o.took)
			}
		}
		if err := pg.stop(mode); err != nil {
			t.Fatal(err)
		}
		down := time.Now()
		time.Sleep(p.outage)
		// Postgres accepts connections a moment before pg_ctl start returns,
		// so /readyz must say 503 for the probes sent before the start began.
		starting := time.Now()
		if err := pg.start(); err != nil {
			t.Fatal(err)
		}
		up := time.Now()
		notReady, ok := pr.firstAfter(down, http.StatusServiceUnavailable)
		if !ok {
			t.Errorf("PROMISE BROKEN: /readyz never reported not-ready while Postgres was down (%s stop)", mode)
		}
		during := pr.between(down, starting)
		var slowest time.Duration
		for _, q := range during {
			slowest = max(slowest, q.took)
			if q.status != http.StatusServiceUnavailable {
				t.Errorf("PROMISE BROKEN: /readyz answered %d while Postgres was down (%s stop)", q.status, mode)
			}
		}
		var execSlowest time.Duration
		var execs int
		for _, o := range l.snapshot() {
			if !o.sentAt.Before(down) && o.sentAt.Before(up) {
				execs++
				execSlowest = max(execSlowest, o.took)
				// (One sent just before pg_ctl saw Postgres accept may succeed.)
				if o.state == unknown && o.status != 0 && o.status != http.StatusServiceUnavailable {
					// INTERNAL at 200 or 500: an outage the edge did not recognise
					t.Errorf("PROMISE BROKEN: execute %s sent while Postgres was down (%s stop) was answered %d, not 503",
						o.in.IdempotencyKey, mode, o.status)
				}
			}
		}
		if slowest > promptly+upSlowest || execSlowest > promptly+upExecSlowest {
			t.Errorf("PROMISE BROKEN: answers hung while Postgres was down (%s stop): /readyz up to %s (%s while up), executes up to %s (%s while up); allowed %s more",
				mode, slowest, upSlowest, execSlowest, upExecSlowest, promptly)
		}
		var ready time.Time
		ok = eventually(p.settle, func() bool {
			var found bool
			ready, found = pr.firstAfter(up, http.StatusOK)
			return found
		})
		if !ok {
			t.Fatalf("PROMISE BROKEN: /readyz not 200 within %s of Postgres starting again (%s stop)", p.settle, mode)
		}
		var firstAck time.Time
		if !eventually(p.settle, func() bool {
			for _, o := range l.snapshot() {
				if o.state == acked && o.sentAt.After(up) {
					firstAck = o.sentAt.Add(o.took)
					return true
				}
			}
			return false
		}) {
			t.Fatalf("PROMISE BROKEN: no execute succeeded within %s of Postgres starting again (%s stop)", p.settle, mode)
		}
		figures = append(figures, fmt.Sprintf("%s stop: not-ready after %s, %d probes and %d executes while down all 503 (slowest %s / %s; while up %s / %s), ready %s and first execute %s after the start",
			mode, ms(notReady.Sub(down)), len(during), execs, ms(slowest), ms(execSlowest), ms(upSlowest), ms(upExecSlowest), ms(ready.Sub(up)), ms(firstAck.Sub(up))))
	}
	time.Sleep(p.load)
	stopLoad()
	background.Wait()
	if srv.pid() != pid {
		t.Errorf("PROMISE BROKEN: the server process changed (%d → %d): it did not recover by itself", pid, srv.pid())
	}

	sw.lap("outages")
	e.reconnect()
	sctx, cancel := context.WithTimeout(ctx, p.settle)
	defer cancel()
	ack, unk, _ := l.counts()
	if _, err := l.resolve(sctx, c, srv.name); err != nil {
		t.Errorf("PROMISE BROKEN: %v", err)
	}
	sw.lap("resolved")
	replayed, broken := l.replay(sctx, c, p.replay)
	sw.lap("replayed")
	if len(broken) > 0 {
		t.Errorf("PROMISE BROKEN: replaying acknowledged keys after the restarts:\n  %s", brokenf(broken))
	}
	if bad := l.unexpectedAnswers(); len(bad) > 0 {
		t.Errorf("PROMISE BROKEN: answers no outage explains:\n  %s", brokenf(bad))
	}
	a, broken := e.checkLedger(sctx, l, nil)
	if len(broken) > 0 {
		t.Errorf("PROMISE BROKEN: money after the restarts:\n  %s", brokenf(broken))
	}
	sw.lap("checked")
	log := eventIDs(a.events)
	var missing []string
	if !eventually(p.settle, func() bool { missing = rcv.missing(log); return len(missing) == 0 }) {
		t.Errorf("PROMISE BROKEN: %d of %d events never reached the receiver after the restarts (e.g. %s)", len(missing), len(log), missing[0])
	}
	if msg := sub.check(log, p.settle); msg != "" {
		t.Errorf("PROMISE BROKEN: live subscription across the restarts: %s", msg)
	}
	sw.lap("delivered and subscribed")
	l.mu.Lock()
	statuses := fmt.Sprint(l.statuses)
	l.mu.Unlock()
	report(t, "2. Postgres restarted under load",
		fmt.Sprintf("%d workers, private cluster stopped %s twice", p.workers, p.outage),
		join(strings.Join(figures, "; "),
			fmt.Sprintf("same process throughout; %d acknowledged, %d without an answer resent with their keys, %d replayed: 0 lost, 0 doubled; error statuses %s; %d events all delivered (%s) and received once, in order, by the live subscription",
				ack, unk, replayed, statuses, len(log), plural(duplicates(rcv.counts()), "duplicate")), l.note500s(t)))
}
