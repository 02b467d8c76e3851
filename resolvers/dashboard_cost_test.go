package resolvers_test

import (
	"testing"
	"time"

	"github.com/agenttrust/service/internal/testkit"
)

// The dashboard's reads send the same number of statements whatever the
// organization's history holds.
func TestDashboardStatementsConstant(t *testing.T) {
	t.Parallel()
	k := testkit.New(t)
	a := k.Register(map[string]any{"spendingLimit": "1000", "dailyLimit": "900"})
	seller := k.Register(map[string]any{"name": "seller"})
	k.SetPolicy(k.Key, a.ID, map[string]any{"spendLimits": []any{
		map[string]any{"amount": "900", "window": "day"},
		map[string]any{"amount": "5000", "window": "week", "mode": "calendar"},
		map[string]any{"amount": "9000", "window": "total"}},
		"velocityLimits": []any{map[string]any{"maxCount": 100, "windowSeconds": 600}}})
	now := time.Now().UTC()
	reads := map[string]func(){
		"overview": func() { readOverview(t, k, k.Key) },
		"spendSeries agent": func() {
			series(t, k, k.Key, map[string]any{"agent": a.ID, "bucket": "HOUR", "since": now.Add(-30 * 24 * time.Hour).Format(timeFormat), "until": now.Add(time.Hour).Format(timeFormat)})
		},
		"spendSeries organization": func() {
			series(t, k, k.Key, map[string]any{"cur": "USD", "bucket": "DAY", "since": now.Add(-90 * 24 * time.Hour).Format(timeFormat), "until": now.Add(time.Hour).Format(timeFormat)})
		},
		"policyUsage": func() { readUsage(t, k, k.Key, a.ID) },
	}
	count := func(read func()) int64 {
		before := k.DB.Statements()
		read()
		return k.DB.Statements() - before
	}
	small := map[string]int64{}
	for name, read := range reads {
		small[name] = count(read)
	}
	for range 12 {
		k.MustExecute(k.Key, testkit.Pay(a, seller, "1"))
	}
	for name, read := range reads {
		if n := count(read); n != small[name] || n == 0 {
			t.Errorf("%s: %d statements after 12 transactions, %d before", name, n, small[name])
		}
	}
}
