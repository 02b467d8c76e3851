package chaos

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/agenttrust/service/event"
)

// perEndpointLimit is the delivery runner's default in-flight limit per
// endpoint and process (delivery.Config.PerEndpoint).
const perEndpointLimit = 10

// roomyOrgShare is this scenario's organization share
// (WEBHOOK_ORG_CONCURRENCY): the three bad endpoints' shares leave the
// healthy ones of the same organization room, so the healthy endpoints
// wait for no place the organization's share would hold back (that share
// is scenario 6's), and only the per-endpoint share is under test.
const roomyOrgShare = 3*perEndpointLimit + 10

// TestBadEndpointsDoNotDelayOthers: three healthy endpoints receive a
// steady stream of payments, first alone (the baseline), then beside an
// endpoint that never answers, one that answers after 3 s and one that
// answers with an endless body. The healthy endpoints' commit-to-delivery
// latency with the bad ones beside them stays close to the baseline of the
// same run, and each bad endpoint holds at most its in-flight share.
func TestBadEndpointsDoNotDelayOthers(t *testing.T) {
	t.Parallel()
	p := current()
	ctx := context.Background()
	e := newEnv(t, privateDB(t))
	srv := e.startServer("server", fmt.Sprintf("WEBHOOK_ORG_CONCURRENCY=%d", roomyOrgShare))
	st := newStream(t, e, srv, 3)
	base := st.latencies(st.phase(), "baseline")
	bad := []*sink{newSink(t, "hung", hang), newSink(t, "slow", slow), newSink(t, "huge-body", hugeBody)}
	for _, s := range bad {
		e.register(ctx, st.c, s)
	}
	beside := st.latencies(st.phase(), "beside the bad endpoints")

	// What the bad endpoints cost the queue: each job over an endpoint's
	// in-flight share is snoozed (fetched, put back) until a slot frees.
	var snoozes int64
	if err := e.sql.QueryRowContext(ctx, `SELECT coalesce(sum((metadata->>'snoozes')::bigint), 0) FROM river_job`).Scan(&snoozes); err != nil {
		t.Fatalf("count snoozes: %v", err)
	}
	var goodIDs []string
	for _, g := range st.good {
		goodIDs = append(goodIDs, g.id)
	}
	var goodSnoozes int64
	if err := e.sql.QueryRowContext(ctx, `SELECT coalesce(sum((metadata->>'snoozes')::bigint), 0) FROM river_job WHERE args->>'webhook_id' = ANY($1)`, goodIDs).Scan(&goodSnoozes); err != nil {
		t.Fatalf("count snoozes: %v", err)
	}
	b50, b99 := percentile(base, 50), percentile(base, 99)
	w50, w99 := percentile(beside, 50), percentile(beside, 99)
	limit := besideLimit(b99)
	if w99 > limit {
		t.Errorf("PROMISE BROKEN: healthy endpoints' p99 commit-to-delivery rose from %s to %s beside the bad endpoints (allowed %s)", ms(b99), ms(w99), ms(limit))
	}
	var peaks []string
	for _, s := range bad {
		s.mu.Lock()
		peak, n := s.peak, len(s.got)
		s.mu.Unlock()
		if n == 0 {
			t.Errorf("%s received nothing: the scenario proves nothing", s.name)
		}
		if peak > perEndpointLimit {
			t.Errorf("PROMISE BROKEN: %s held %d requests at once, more than its in-flight share of %d", s.name, peak, perEndpointLimit)
		}
		peaks = append(peaks, fmt.Sprintf("%s %d", s.name, peak))
	}
	st.checkSignatures()
	ratio := func(a, b time.Duration) string {
		return fmt.Sprintf("%.2f×", float64(a)/float64(max(b, time.Millisecond)))
	}
	report(t, "3. hung, slow and huge-body endpoints",
		fmt.Sprintf("%d executes/s × %s per phase, 3 healthy endpoints", p.rate, p.phase),
		fmt.Sprintf("healthy endpoints' commit→delivery p50 / p99: alone %s / %s, beside the bad ones %s / %s (%s / %s); %d deliveries each phase; most requests held at once: %s (limit %d); %d delivery jobs snoozed for a busy endpoint, %d of them the healthy endpoints'",
			ms(b50), ms(b99), ms(w50), ms(w99), ratio(w50, b50), ratio(w99, b99), len(base), join(peaks...), perEndpointLimit, snoozes, goodSnoozes))
}

// txOf is the transaction id in a transaction event's data.
func txOf(ev event.Event) string {
	var d struct{ ID string }
	_ = json.Unmarshal(ev.Data, &d)
	return d.ID
}
