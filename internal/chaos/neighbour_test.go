package chaos

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/agenttrust/service/client"
	"github.com/agenttrust/service/db"
	"github.com/agenttrust/service/webhook/delivery"
)

// orgShare is the delivery runner's default share of one organization per
// process (WEBHOOK_ORG_CONCURRENCY): jobs, and requests in flight.
const orgShare = delivery.DefaultPerOrganization

// hungEndpoints is how many endpoints of the noisy organization hang.
const hungEndpoints = 12

// TestNoisyNeighbourDoesNotDelayOthers: one organization's three healthy
// endpoints receive a steady stream of payments, first alone (the
// baseline), then while another organization's twelve endpoints never
// answer and its agents keep committing events for them. The first
// organization's commit-to-delivery latency stays close to the baseline of
// the same run, and the noisy organization never holds more requests than
// its share.
func TestNoisyNeighbourDoesNotDelayOthers(t *testing.T) {
	t.Parallel()
	p := current()
	e := newEnv(t, privateDB(t))
	srv := e.startServer("server")
	st := newStream(t, e, srv, 3)
	base := st.latencies(st.phase(), "baseline")

	n := newNoisy(t, e, srv)
	defer n.stop()
	if !eventually(p.settle, func() bool { return n.inFlight() >= orgShare }) {
		t.Fatalf("the noisy organization's %d hung endpoints hold %d requests: the scenario proves nothing", hungEndpoints, n.inFlight())
	}
	beside := st.latencies(st.phase(), "beside the noisy organization")
	n.stop()

	b50, b99 := percentile(base, 50), percentile(base, 99)
	w50, w99 := percentile(beside, 50), percentile(beside, 99)
	limit := besideLimit(b99)
	if w99 > limit {
		t.Errorf("PROMISE BROKEN: the quiet organization's p99 commit-to-delivery rose from %s to %s beside the noisy one (allowed %s)", ms(b99), ms(w99), ms(limit))
	}
	if n.peak > orgShare {
		t.Errorf("PROMISE BROKEN: the noisy organization held %d requests at once, more than its share of %d", n.peak, orgShare)
	}
	st.checkSignatures()
	// What the noisy organization costs the queue: each of its jobs over
	// its share is snoozed (fetched, put back) until a place frees.
	var snoozes int64
	if err := e.sql.QueryRowContext(context.Background(), `SELECT coalesce(sum((metadata->>'snoozes')::bigint), 0) FROM river_job`).Scan(&snoozes); err != nil {
		t.Fatalf("count snoozes: %v", err)
	}
	report(t, "6. noisy neighbour: another organization's 12 hung endpoints",
		fmt.Sprintf("%d executes/s × %s per phase, 3 healthy endpoints; the noisy organization commits an event every %s", p.rate, p.phase, noisyEvery),
		fmt.Sprintf("quiet organization's commit→delivery p50 / p99: alone %s / %s, beside the noisy one %s / %s (%.2f× / %.2f×); %d deliveries each phase; the noisy organization's most requests held at once: %d (share %d), %d committed events; %d delivery jobs snoozed for a busy endpoint or organization",
			ms(b50), ms(b99), ms(w50), ms(w99), float64(w50)/float64(max(b50, time.Millisecond)), float64(w99)/float64(max(b99, time.Millisecond)),
			len(base), n.peak, orgShare, n.events, snoozes))
}

// noisyEvery is how often the noisy organization commits an event: each
// is a delivery job for every one of its hung endpoints.
const noisyEvery = 100 * time.Millisecond

// noisy is the noisy organization: its hung endpoints, the goroutine
// committing its events, and the most requests its endpoints held at once
// (sampled).
type noisy struct {
	t      *testing.T
	sinks  []*sink
	done   chan struct{}
	once   sync.Once
	wg     sync.WaitGroup
	peak   int
	events int
}

// newNoisy creates the organization, registers its hung endpoints, and
// starts committing its events and sampling its requests in flight.
func newNoisy(t *testing.T, e *env, srv *server) *noisy {
	ctx := context.Background()
	_, _, key, err := db.NewOrgService(e.db).CreateOrg(ctx, "noisy")
	if err != nil {
		t.Fatalf("create the noisy organization: %v", err)
	}
	c := e.clientWith(srv, key)
	n := &noisy{t: t, done: make(chan struct{})}
	for i := range hungEndpoints {
		s := newSink(t, fmt.Sprintf("noisy-%d", i+1), hang)
		e.register(ctx, c, s)
		n.sinks = append(n.sinks, s)
	}
	n.wg.Go(func() { n.commit(ctx, c) })
	n.wg.Go(n.sample)
	return n
}

// commit registers an agent of the noisy organization every noisyEvery
// until stop.
func (n *noisy) commit(ctx context.Context, c *client.Client) {
	tick := time.NewTicker(noisyEvery)
	defer tick.Stop()
	for {
		select {
		case <-n.done:
			return
		case <-tick.C:
		}
		_, err := c.Agents.Register(ctx, client.RegisterAgentInput{Name: fmt.Sprintf("noisy-%d", n.events), AuthorizedActions: []string{"purchase"},
			SpendingLimit: decimal.NewFromInt(10), Currency: "USD", Environment: client.Sandbox})
		if err != nil {
			n.t.Errorf("register a noisy agent: %v", err)
			return
		}
		n.events++
	}
}

// sample keeps the most requests the noisy endpoints held at once.
func (n *noisy) sample() {
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-n.done:
			return
		case <-tick.C:
		}
		n.peak = max(n.peak, n.inFlight())
	}
}

// inFlight is how many requests the noisy endpoints hold now.
func (n *noisy) inFlight() int {
	total := 0
	for _, s := range n.sinks {
		s.mu.Lock()
		total += s.inFlight
		s.mu.Unlock()
	}
	return total
}

// stop ends the noisy organization's commits and sampling.
func (n *noisy) stop() {
	n.once.Do(func() { close(n.done); n.wg.Wait() })
}
