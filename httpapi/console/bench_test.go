package console_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// BenchmarkConsoleAgentsPage measures, in headless Chromium, the time from
// navigating to the agents page of an organization with 1,000 agents to its
// first page of rows drawn (first-render-ms, the median of b.N loads, each
// in a fresh browser context), and the console's JavaScript gzipped: what
// the first page loads (first-js-gzip-KB) and all of it (all-js-gzip-KB). Run: go test -run '^$' -bench ConsoleAgentsPage -benchtime 5x ./httpapi/console/
func BenchmarkConsoleAgentsPage(b *testing.B) {
	browser := chromium(b)
	node, dir := needNode(b)
	url, key, _ := liveService(b)
	registerAgents(b, url, key, 1000)

	// The JavaScript gzipped as the server sends it: what the first page
	// loads (console.js and the chunks it imports) and all of it.
	dist := filepath.Join(repoRoot(b), "httpapi", "console", "dist")
	first, all := 0, 0
	names, _ := filepath.Glob(filepath.Join(dist, "*.js"))
	entry, err := os.ReadFile(filepath.Join(dist, "console.js"))
	if err != nil {
		b.Fatal(err)
	}
	for _, name := range names {
		raw, err := os.ReadFile(name)
		if err != nil {
			b.Fatal(err)
		}
		var zipped bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&zipped, gzip.BestCompression)
		_, _ = zw.Write(raw)
		_ = zw.Close()
		all += zipped.Len()
		base := filepath.Base(name)
		if base == "console.js" || bytes.Contains(entry, []byte(`from"./`+base+`"`)) {
			first += zipped.Len()
		}
	}

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	b.ResetTimer()
	lines := runScript(b, ctx, node, dir, "BENCH=1", "ROUNDS="+strconv.Itoa(b.N), "CONSOLE_URL="+url, "ADMIN_KEY="+key, "CHROMIUM="+browser)
	b.StopTimer()
	found := false
	for _, l := range lines {
		f := strings.Fields(l)
		if len(f) == 3 && f[0] == "METRIC" {
			v, err := strconv.ParseFloat(f[2], 64)
			if err != nil {
				b.Fatal(l)
			}
			b.ReportMetric(v, f[1])
			found = true
		}
	}
	if !found {
		b.Fatalf("the browser script measured nothing:\n%s", strings.Join(lines, "\n"))
	}
	b.ReportMetric(float64(first)/1024, "first-js-gzip-KB")
	b.ReportMetric(float64(all)/1024, "all-js-gzip-KB")
	b.ReportMetric(0, "ns/op")
}

// registerAgents registers n agents through the API, 10 to a request (the most mutations one request may run).
func registerAgents(b *testing.B, url, key string, n int) {
	b.Helper()
	for done := 0; done < n; {
		var doc strings.Builder
		doc.WriteString("mutation {")
		for i := 0; i < 10 && done < n; i, done = i+1, done+1 {
			fmt.Fprintf(&doc, ` a%d: registerAgent(input: {name: "bench-%04d", authorizedActions: ["purchase"], spendingLimit: 100, currency: "USD", environment: sandbox}) { id }`, i, done)
		}
		doc.WriteString("}")
		body, _ := json.Marshal(map[string]string{"query": doc.String()})
		req, _ := http.NewRequest(http.MethodPost, url+"/graphql", bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		var out struct{ Errors []json.RawMessage }
		_ = json.NewDecoder(resp.Body).Decode(&out)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || len(out.Errors) > 0 {
			b.Fatalf("register agents: %d %s", resp.StatusCode, out.Errors)
		}
	}
}
