package resolvers_test

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/agenttrust/service/auth"
	"github.com/agenttrust/service/internal/testkit"
	"github.com/agenttrust/service/money"
)

const seriesQuery = `query($agent: ID, $cur: String, $bucket: SpendBucket!, $since: Time!, $until: Time!, $action: String) {
 spendSeries(agentId: $agent, currency: $cur, bucket: $bucket, since: $since, until: $until, action: $action) { start amount count } }`

type spendPoint struct {
	Start  string      `json:"start"`
	Amount json.Number `json:"amount"`
	Count  int         `json:"count"`
}

func series(t *testing.T, k *testkit.Kit, key string, vars map[string]any) []spendPoint {
	t.Helper()
	var out []spendPoint
	k.Do(key, seriesQuery, vars).Into(t, "spendSeries", &out)
	return out
}

const timeFormat = "2006-01-02T15:04:05.000Z"

// spendSeries sums equal the completed transactions of each bucket, at the
// buckets' edges, for both bucket sizes, one agent or the organization, all
// actions or one; buckets without outflow are zeros.
func TestSpendSeries(t *testing.T) {
	t.Parallel()
	k := testkit.New(t)
	clock := k.Clock()
	a := k.RegisterAs(k.Key, map[string]any{"name": "a", "spendingLimit": "1000"})
	b := k.RegisterAs(k.Key, map[string]any{"name": "b", "spendingLimit": "1000"})
	eur := k.RegisterAs(k.Key, map[string]any{"name": "eur", "spendingLimit": "1000", "currency": "EUR"})
	eurSeller := k.RegisterAs(k.Key, map[string]any{"name": "eur seller", "currency": "EUR"})
	seller := k.RegisterAs(k.Key, map[string]any{"name": "seller"})
	// Start just before a UTC midnight, so hour and day edges fall inside.
	now := clock.Now()
	midnight := now.Truncate(24 * time.Hour).Add(24 * time.Hour)
	clock.Advance(midnight.Add(-2*time.Hour - time.Millisecond).Sub(now))
	start := clock.Now()
	type paid struct {
		at     time.Time
		from   string
		action string
		amount money.Amount
	}
	var done []paid
	pay := func(from testkit.Agent, to testkit.Agent, amount, action string) {
		in := testkit.Pay(from, to, amount)
		in["action"] = action
		tx := k.MustExecute(k.Key, in)
		at, _ := time.Parse(time.RFC3339Nano, tx.CreatedAt)
		done = append(done, paid{at: at, from: from.ID, action: action, amount: money.MustParse(amount)})
	}
	// 21:59:59.999, then 22:00:00.000 exactly, ... across midnight and a day.
	steps := []struct {
		after  time.Duration
		from   testkit.Agent
		amount string
		action string
	}{
		{0, a, "1.01", "purchase"}, {time.Millisecond, a, "2.02", "purchase"}, {0, b, "4", "purchase"},
		{30 * time.Minute, a, "3", "refund"}, {90*time.Minute - time.Millisecond, a, "5.55", "purchase"},
		{time.Millisecond, a, "6", "purchase"}, {0, eur, "9", "purchase"}, {25 * time.Hour, a, "7.5", "refund"},
	}
	for _, s := range steps {
		clock.Advance(s.after)
		to := seller
		if s.from.ID == eur.ID {
			to = eurSeller
		}
		pay(s.from, to, s.amount, s.action)
	}
	// One reversed transaction still counts, as it does for limits.
	k.Reverse(k.Key, k.MustExecute(k.Key, testkit.Pay(b, seller, "0.5")).ID, "mistake")
	done = append(done, paid{at: clock.Now(), from: b.ID, action: "purchase", amount: money.MustParse("0.5")})

	since, until := start.Add(-30*time.Minute), clock.Now().Add(time.Minute)
	for _, tc := range []struct {
		name   string
		bucket string
		agent  *string
		action *string
	}{
		{"agent hours", "HOUR", &a.ID, nil}, {"agent days", "DAY", &a.ID, nil},
		{"org hours", "HOUR", nil, nil}, {"org days", "DAY", nil, nil},
		{"agent refunds by hour", "HOUR", &a.ID, ptrTo("refund")}, {"org purchases by day", "DAY", nil, ptrTo("purchase")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			step := time.Hour
			if tc.bucket == "DAY" {
				step = 24 * time.Hour
			}
			vars := map[string]any{"bucket": tc.bucket, "since": since.Format(timeFormat), "until": until.Format(timeFormat), "action": tc.action}
			if tc.agent != nil {
				vars["agent"] = *tc.agent
			} else {
				vars["cur"] = "USD"
			}
			got := series(t, k, k.Key, vars)
			first := since.UTC().Truncate(step)
			n := int(until.Add(-time.Microsecond).UTC().Truncate(step).Sub(first)/step) + 1
			if len(got) != n {
				t.Fatalf("%d buckets, want %d", len(got), n)
			}
			for i, p := range got {
				bStart := first.Add(time.Duration(i) * step)
				if p.Start != bStart.Format(timeFormat) {
					t.Fatalf("bucket %d starts %s, want %s", i, p.Start, bStart.Format(timeFormat))
				}
				var sum money.Amount
				count := 0
				for _, d := range done {
					if d.from == eur.ID || (tc.agent != nil && d.from != *tc.agent) || (tc.action != nil && d.action != *tc.action) {
						continue
					}
					if !d.at.Before(bStart) && d.at.Before(bStart.Add(step)) {
						sum, count = sum.Add(d.amount), count+1
					}
				}
				if money.MustParse(p.Amount.String()).Cmp(sum) != 0 || p.Count != count {
					t.Errorf("bucket %s: %s in %d, want %s in %d", p.Start, p.Amount, p.Count, sum, count)
				}
			}
		})
	}
	eurDays := series(t, k, k.Key, map[string]any{"bucket": "DAY", "cur": "EUR", "since": since.Format(timeFormat), "until": until.Format(timeFormat)})
	total := 0
	for _, p := range eurDays {
		total += p.Count
	}
	if total != 1 {
		t.Errorf("EUR series holds %d transactions, want 1: %+v", total, eurDays)
	}
}

// spendSeries refuses bad arguments with VALIDATION_FAILED naming each,
// another organization's agent with NOT_FOUND, and agent keys without one of
// their agents with FORBIDDEN.
func TestSpendSeriesRefusals(t *testing.T) {
	t.Parallel()
	k := testkit.New(t)
	a := k.Register(nil)
	other := k.NewOrgWithKey("other")
	theirs := k.RegisterAs(other.Key, map[string]any{"name": "theirs"})
	now := time.Now().UTC()
	at := func(d time.Duration) string { return now.Add(d).Format(timeFormat) }
	for _, tc := range []struct {
		name   string
		vars   map[string]any
		code   string
		fields []string
	}{
		{"no currency without agent", map[string]any{"bucket": "DAY", "since": at(-time.Hour), "until": at(0)}, "VALIDATION_FAILED", []string{"currency"}},
		{"bad currency", map[string]any{"cur": "usd1", "bucket": "DAY", "since": at(-time.Hour), "until": at(0)}, "VALIDATION_FAILED", []string{"currency"}},
		{"until before since", map[string]any{"cur": "USD", "bucket": "HOUR", "since": at(0), "until": at(-time.Hour)}, "VALIDATION_FAILED", []string{"until"}},
		{"until equal to since", map[string]any{"cur": "USD", "bucket": "HOUR", "since": at(0), "until": at(0)}, "VALIDATION_FAILED", []string{"until"}},
		{"2001 hours", map[string]any{"cur": "USD", "bucket": "HOUR", "since": "2026-01-01T00:00:00.000Z", "until": "2026-03-25T09:00:00.001Z"}, "VALIDATION_FAILED", []string{"until"}},
		{"agent's other currency", map[string]any{"agent": a.ID, "cur": "EUR", "bucket": "DAY", "since": at(-time.Hour), "until": at(0)}, "VALIDATION_FAILED", []string{"currency"}},
		{"empty action and no currency", map[string]any{"bucket": "DAY", "since": at(-time.Hour), "until": at(0), "action": ""}, "VALIDATION_FAILED", []string{"action", "currency"}},
		{"another organization's agent", map[string]any{"agent": theirs.ID, "bucket": "DAY", "since": at(-time.Hour), "until": at(0)}, "NOT_FOUND", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := k.Do(k.Key, seriesQuery, tc.vars)
			r.Refused(t, tc.code)
			if tc.fields != nil {
				if got := r.Fields(t); fmt.Sprint(got) != fmt.Sprint(tc.fields) {
					t.Errorf("fields %v, want %v", got, tc.fields)
				}
			}
		})
	}
	// 2,000 hours exactly is allowed.
	if got := series(t, k, k.Key, map[string]any{"cur": "USD", "bucket": "HOUR", "since": "2026-01-01T00:00:00.000Z", "until": "2026-03-25T08:00:00.000Z"}); len(got) != 2000 {
		t.Errorf("2,000 hours: %d buckets", len(got))
	}
	_, agentKey := k.IssueKey(auth.RoleAgent, a.ID)
	b := k.Register(map[string]any{"name": "b"})
	day := now.Truncate(24 * time.Hour) // one day's bucket, whatever the hour the test runs at
	vars := map[string]any{"agent": a.ID, "bucket": "DAY", "since": day.Format(timeFormat), "until": day.Add(time.Hour).Format(timeFormat)}
	if got := series(t, k, agentKey, vars); len(got) != 1 {
		t.Errorf("agent key, own agent: %+v", got)
	}
	vars["agent"] = b.ID
	k.Do(agentKey, seriesQuery, vars).Refused(t, "FORBIDDEN")
	delete(vars, "agent")
	vars["cur"] = "USD"
	k.Do(agentKey, seriesQuery, vars).Refused(t, "FORBIDDEN")
	k.Do(agentKey, usageQuery, map[string]any{"id": b.ID}).Refused(t, "FORBIDDEN")
	readUsage(t, k, agentKey, a.ID)
}
