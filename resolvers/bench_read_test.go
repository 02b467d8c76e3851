package resolvers_test

import (
	"fmt"
	"net/http"
	"slices"
	"testing"

	"github.com/agenttrust/service/bench/dashboard"
)

// BenchmarkDashboard: each request of the dashboard (bench/dashboard) that
// bench/read (make bench-read) loads the service with, one at a time through
// the real handler: the pages compared one by one with the floor handler,
// then each request of the mix. Run with -benchmem for allocations per
// request; the load comparison against the floor is `make bench-read`.
func BenchmarkDashboard(b *testing.B) {
	e := newBenchEnv(b)
	_, keyB := e.NewOrg("counterparty")
	f, err := dashboard.Seed(e.dashboardPost, e.Key, keyB)
	if err != nil {
		b.Fatal(err)
	}
	for _, r := range slices.Concat(dashboard.Pages(), f.Mix()) {
		b.Run(r.Name, func(b *testing.B) {
			out, err := e.dashboardPost(e.Key, r.Body)
			if err == nil {
				err = r.Check(out)
			}
			if err != nil {
				b.Fatal(err)
			}
			e.measure(b, e.Key, r.Body)
		})
	}
}

// dashboardPost is dashboard.Post over the handler.
func (e *benchEnv) dashboardPost(key string, body []byte) ([]byte, error) {
	code, out := e.post(key, body)
	if code != http.StatusOK {
		return nil, fmt.Errorf("HTTP %d: %.400s", code, out)
	}
	return out, nil
}
