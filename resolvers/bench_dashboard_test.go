package resolvers_test

import (
	"fmt"
	"testing"
	"time"
)

// BenchmarkDashboardQueries: overview and spendSeries (one agent, 30 days of
// HOUR buckets; the organization, 90 DAY buckets) over a history of 10^3 and
// of 10^6 transactions, with the same last day (200 executes) in both, so
// any difference is the history's. Compare time and go-cpu-ms/op between the
// two sizes; stmts/op must be equal.
func BenchmarkDashboardQueries(b *testing.B) {
	for _, n := range []int{1_000, 1_000_000} {
		b.Run(fmt.Sprintf("history=%d", n), func(b *testing.B) {
			e := newBenchEnv(b)
			hub := e.registerMany(e.Key, "hub", 1, "1000")[0]
			others := e.registerMany(e.Key, "other", 20, "1000")
			e.seedHistoryBefore(hub, others, n-200, 25*time.Hour)
			for i := range 200 {
				to := others[i%len(others)]
				if err := e.call(e.Key, executeBody(hub, to, fmt.Sprint(1+i%50))); err != nil {
					b.Fatal(err)
				}
			}
			now := time.Now().UTC()
			at := func(d time.Duration) string { return now.Add(d).Format(timeFormat) }
			reads := []struct {
				name string
				body []byte
			}{
				{"overview", gqlBody(overviewQuery, nil)},
				{"spendSeries/agent-30d-hours", gqlBody(seriesQuery, map[string]any{"agent": hub, "bucket": "HOUR", "since": at(-30 * 24 * time.Hour), "until": at(0)})},
				{"spendSeries/org-90d-days", gqlBody(seriesQuery, map[string]any{"cur": "USD", "bucket": "DAY", "since": at(-90 * 24 * time.Hour), "until": at(0)})},
			}
			for _, r := range reads {
				b.Run(r.name, func(b *testing.B) { e.measure(b, e.Key, r.body) })
			}
		})
	}
}
