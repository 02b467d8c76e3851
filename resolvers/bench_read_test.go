package resolvers_test

import (
	"testing"
)

// BenchmarkDashboardPage: the dashboard's commonest request, a page of 50
// agents with the fields bench/read (make bench-read) loads the service with,
// plain and with trust. Run with -benchmem for allocations per request; the
// load comparison against the floor handler is `make bench-read`.
func BenchmarkDashboardPage(b *testing.B) {
	e := newBenchEnv(b)
	e.registerMany(e.Key, "agent", 50, "1000.50")
	for _, c := range []struct{ name, sel string }{
		{"plain", ""},
		{"trust", " trust { score assessment }"},
	} {
		b.Run(c.name, func(b *testing.B) {
			body := gqlBody(`{ agents(limit: 50) { nodes { id name status spendingLimit currency environment createdAt`+c.sel+` } } }`, nil)
			var page struct {
				Nodes []struct {
					ID    string               `json:"id"`
					Trust *struct{ Score int } `json:"trust"`
				} `json:"nodes"`
			}
			e.decode(e.Key, body, "agents", &page)
			if len(page.Nodes) != 50 || (c.sel != "") != (page.Nodes[0].Trust != nil) {
				b.Fatalf("unexpected page %+v", page)
			}
			e.measure(b, e.Key, body)
		})
	}
}
