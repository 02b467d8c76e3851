package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

const (
	txSubscription  = `subscription { events(types: ["transaction.completed"]) { id createdAt } }`
	regSubscription = `subscription { events(types: ["agent.registered"]) { id createdAt } }`
)

// dashboard is a seeded service for dashboard traffic: two organizations,
// senders in the first (whose page the reads list), receivers in the second.
type dashboard struct {
	orgs               []org
	senders, receivers []string
}

func seedDashboard(ctx context.Context, base, dbURL string) (*dashboard, error) {
	orgs, err := newOrgs(ctx, dbURL, 2)
	if err != nil {
		return nil, err
	}
	d := &dashboard{orgs: orgs}
	if d.senders, err = registerAgents(ctx, base, orgs[0].key, "sender", execSenders, "1000000"); err != nil {
		return nil, err
	}
	if d.receivers, err = registerAgents(ctx, base, orgs[1].key, "receiver", execReceivers, "1000000"); err != nil {
		return nil, err
	}
	return d, steadyTrust(ctx, dbURL, slices.Concat(d.senders, d.receivers))
}

// The kinds of dashboard request.
const (
	kindRead = iota
	kindEvaluate
	kindExecute
)

// next picks a dashboard request: 80% the agents page with trust, 15%
// evaluateTrust, 5% executeTransaction, between random agents.
func (d *dashboard) next(_ int, rng *rand.Rand) call {
	key := d.orgs[0].key
	from, to := d.senders[rng.IntN(len(d.senders))], d.receivers[rng.IntN(len(d.receivers))]
	switch r := rng.IntN(100); {
	case r < 80:
		return call{body: gql(trustPageQuery, nil), key: key, kind: kindRead}
	case r < 95:
		return call{kind: kindEvaluate, key: key, body: gql(evaluateQuery, map[string]any{"in": map[string]any{
			"agentId": from, "toAgent": to, "action": "purchase", "amount": strconv.Itoa(rng.IntN(100) + 1), "currency": "USD"}})}
	default:
		return call{kind: kindExecute, key: key, body: gql(executeQuery, map[string]any{"in": map[string]any{
			"fromAgent": from, "toAgent": to, "action": "purchase", "amount": strconv.Itoa(rng.IntN(100) + 1), "currency": "USD"}})}
	}
}

// mixedScenario: dashboard traffic from 16 clients (80% reads, 15%
// evaluates, 5% executes) with c.subs websocket subscribers to the
// transactions attached, half under each organization's key; every
// subscriber must receive every committed transaction exactly once.
func mixedScenario(ctx context.Context, e *env, c config) []group {
	g := group{scenario: fmt.Sprintf("mixed + %d subscribers", c.subs)}
	s, err := e.serve(ctx, "mixed", 0)
	if err != nil {
		return []group{g.fail(err)}
	}
	defer s.close()
	dbURL, svc := s.dbURL, s.svc
	d, err := seedDashboard(ctx, svc.base, dbURL)
	if err != nil {
		return []group{g.fail(err)}
	}
	p := plan{url: svc.base + "/graphql", workers: 16, duration: c.duration, next: d.next}
	warm(ctx, c, p)
	subs, err := subscribe(ctx, svc.addr, []string{d.orgs[0].key, d.orgs[1].key}, c.subs, txSubscription)
	if err != nil {
		return []group{g.fail(err)}
	}
	if err := svc.waitMetric("att_live_subscriptions", float64(c.subs), time.Minute); err != nil {
		subs.close()
		return []group{g.fail(err)}
	}
	seq0, err := lastSeq(ctx, dbURL)
	if err != nil {
		subs.close()
		return []group{g.fail(err)}
	}
	var out outcome
	g.service, out = measure(ctx, svc, p, "service: 80% page, 15% evaluate, 5% execute")
	g.noteErrors("service", out)
	events, err := eventsAfter(ctx, dbURL, seq0, "transaction.completed")
	if err != nil {
		subs.close()
		return []group{g.fail(err)}
	}
	ids := eventIDs(events)
	subs.waitFor(func(int) int { return len(ids) }, time.Minute)
	lat := subs.close()
	note, err := subs.check(func(int) []string { return ids }, lat)
	g.notes = append(g.notes, fmt.Sprintf("answered: %s; %d transaction.completed events logged during the run", kindCounts(out.kinds), len(ids)), note)
	g.problem = err
	if executes := at(out.kinds, kindExecute); err == nil && executes != int64(len(ids)) {
		g.problem = fmt.Errorf("%d executes acknowledged but %d transaction.completed events logged", executes, len(ids))
	}
	return []group{g}
}

func kindCounts(k []int64) string {
	return fmt.Sprintf("%d pages, %d evaluates, %d executes", at(k, kindRead), at(k, kindEvaluate), at(k, kindExecute))
}

func at(k []int64, i int) int64 {
	if i < len(k) {
		return k[i]
	}
	return 0
}

// fanoutOrgs is how many organizations the fan-out's subscribers are spread over.
const fanoutOrgs = 100

// fanoutScenario: c.fanoutSubs websocket subscribers over 100 organizations,
// then a burst of c.events registrations spread over them by 8 writers; each
// event must reach every subscriber of its organization. The row's rate is
// deliveries per second (burst start to last receipt), its latencies commit
// to receipt, its CPU the server's per delivery. bench/livebench measures
// memory per idle subscription and statements per wake-up in more detail.
func fanoutScenario(ctx context.Context, e *env, c config) []group {
	g := group{scenario: fmt.Sprintf("fan-out: %d subscribers", c.fanoutSubs)}
	s, err := e.serve(ctx, "fanout", fanoutOrgs)
	if err != nil {
		return []group{g.fail(err)}
	}
	defer s.close()
	keys := make([]string, fanoutOrgs)
	for i, o := range s.orgs {
		keys[i] = o.key
	}
	if _, err := registerAgents(ctx, s.svc.base, keys[0], "warm", 1, "10"); err != nil {
		return []group{g.fail(err)}
	}
	f, err := openFanout(ctx, s.svc, keys, c.fanoutSubs)
	if err != nil {
		return []group{g.fail(err)}
	}
	if err := f.deliver(ctx, s, keys, c, &g); err != nil {
		return []group{g.fail(err)}
	}
	return []group{g}
}

// fanout is the fan-out scenario's subscribers, how long they took to
// subscribe, and the server's resident memory before and with them idle.
type fanout struct {
	subs          *subscribers
	setup         time.Duration
	rss0, rssIdle int64
}

// openFanout opens n subscriptions to registrations over keys and waits
// until the server counts them all.
func openFanout(ctx context.Context, svc *proc, keys []string, n int) (*fanout, error) {
	rss0, _ := svc.rss()
	t0 := time.Now()
	subs, err := subscribe(ctx, svc.addr, keys, n, regSubscription)
	if err != nil {
		return nil, err
	}
	if err := svc.waitMetric("att_live_subscriptions", float64(n), 2*time.Minute); err != nil {
		subs.close()
		return nil, err
	}
	f := &fanout{subs: subs, setup: time.Since(t0), rss0: rss0}
	time.Sleep(2 * time.Second) // let the subscriptions settle before measuring memory
	f.rssIdle, _ = svc.rss()
	return f, nil
}

// deliver bursts the registrations, waits for every subscriber to receive
// its organization's, closes the subscribers and fills g's row and notes.
func (f *fanout) deliver(ctx context.Context, s *served, keys []string, c config, g *group) error {
	seq0, err := lastSeq(ctx, s.dbURL)
	if err != nil {
		f.subs.close()
		return err
	}
	s.svc.resetPeak()
	cpu0 := s.svc.cpu()
	start := time.Now()
	perOrg := c.events / fanoutOrgs
	werr := burst(ctx, s.svc.base, keys, perOrg)
	events, err := eventsAfter(ctx, s.dbURL, seq0, "agent.registered")
	if err != nil {
		f.subs.close()
		return err
	}
	of := byOrg(events)
	wantOf := func(i int) []string { return of[s.orgs[i%fanoutOrgs].id] }
	var want int64
	for i := range c.fanoutSubs {
		want += int64(len(wantOf(i)))
	}
	f.subs.waitFor(func(i int) int { return len(wantOf(i)) }, 2*time.Minute)
	cpu := s.svc.cpu() - cpu0
	took := f.subs.lastReceipt().Sub(start)
	total := f.subs.total()
	lat := f.subs.close()
	note, cerr := f.subs.check(wantOf, lat)
	g.service = row{target: "service: websocket deliveries", conc: "8", ops: float64(total) / took.Seconds(), unit: "msg",
		p50: percentile(lat, 50), p90: percentile(lat, 90), p99: percentile(lat, 99), p999: percentile(lat, 99.9),
		errors: want - min(want, total), total: want, peakRSS: s.svc.peakRSS()}
	if total > 0 {
		g.service.cpuPerOp = cpu / time.Duration(total)
	}
	g.notes = append(g.notes,
		fmt.Sprintf("%d events by 8 writers over %d organizations; subscribed in %s; server RSS %.0f MiB before, %.0f MiB with the subscriptions idle (%.1f KiB each)",
			perOrg*fanoutOrgs, fanoutOrgs, f.setup.Round(time.Millisecond), float64(f.rss0)/(1<<20), float64(f.rssIdle)/(1<<20), float64(f.rssIdle-f.rss0)/1024/float64(c.fanoutSubs)),
		note)
	if werr != nil {
		g.err = werr
	}
	g.problem = cerr
	return nil
}

// burst registers perOrg agents in each organization, 8 at a time.
func burst(ctx context.Context, base string, keys []string, perOrg int) error {
	c := newClient(8)
	defer c.CloseIdleConnections()
	var next atomic.Int64
	var wg sync.WaitGroup
	var once sync.Once
	var failed error
	for range 8 {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= perOrg*len(keys) || ctx.Err() != nil {
					return
				}
				if _, err := registerOne(ctx, c, base, keys[i%len(keys)], fmt.Sprintf("burst %d", i), "10"); err != nil {
					once.Do(func() { failed = err })
					return
				}
			}
		})
	}
	wg.Wait()
	return failed
}
