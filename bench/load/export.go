package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/agenttrust/service/bench/benchdb"
	"github.com/agenttrust/service/transaction"
)

// The export scenario's sizes: a counterparty's memos of 1,000 quotes
// inflating the victim's export, twelve at once.
const (
	exportRows    = 49990
	exportMemo    = 1000
	exportClients = 12
	exportRSSGoal = 300 << 20
)

// exportScenario: twelve concurrent exports of a large history (49,990
// transactions with 1 KB memos), streamed from GET /transactions/export,
// with the server's peak RSS against its goal; exportTransactions must
// refuse the same range at its byte bound.
func exportScenario(ctx context.Context, e *env, _ config) []group {
	g := group{scenario: "export: 12 × 49,990 rows, 1 KB memos"}
	s, err := e.serve(ctx, "export", 2)
	if err != nil {
		return []group{g.fail(err)}
	}
	defer s.close()
	victim, other := s.orgs[0], s.orgs[1]
	if err := seedExportRows(ctx, s, victim, other); err != nil {
		return []group{g.fail(err)}
	}
	if err := exportFieldRefused(ctx, s.svc.base, victim.key); err != nil {
		g.problem = err
	}
	svc := s.svc
	svc.resetPeak()
	cpu0 := svc.cpu()
	lat, sizes, errs := runExports(ctx, svc.base+"/transactions/export?format=csv", victim.key)
	cpu := svc.cpu() - cpu0
	slices.Sort(lat)
	ok := int64(exportClients) - int64(len(errs))
	g.service = row{target: "service: GET /transactions/export csv", conc: fmt.Sprint(exportClients), unit: "MiB",
		p50: percentile(lat, 50), p90: percentile(lat, 90), p99: percentile(lat, 99), p999: percentile(lat, 99.9),
		errors: int64(len(errs)), total: exportClients, peakRSS: svc.peakRSS()}
	if ok > 0 {
		g.service.cpuPerOp = cpu / time.Duration(ok)
		var total int64
		for _, n := range sizes {
			total += n
		}
		g.service.ops = float64(total) / (1 << 20) / lat[len(lat)-1].Seconds() // MiB/s streamed, all exports together
	}
	g.notes = append(g.notes, fmt.Sprintf("each export %.0f MiB of CSV, every row checked; exportTransactions on the same range: VALIDATION_FAILED on until",
		float64(slices.Max(sizes))/(1<<20)))
	if len(errs) > 0 {
		g.notes = append(g.notes, fmt.Sprintf("%d exports failed, the first with: %v", len(errs), errs[0]))
	}
	if peak := svc.peakRSS(); peak >= exportRSSGoal && g.problem == nil {
		g.problem = fmt.Errorf("peak RSS %d MiB, over the goal of %d MiB", peak>>20, exportRSSGoal>>20)
	}
	return []group{g, fieldExports(ctx, s, victim)}
}

// fieldExportRows is a range of the seeded history just within
// exportTransactions' default bound (rows of about 2.15 KB of CSV).
const fieldExportRows = transaction.DefaultExportMaxBytes / 2200

// fieldExports: twelve concurrent exportTransactions of the largest range
// the field answers, which it builds in memory, with the server's peak RSS.
func fieldExports(ctx context.Context, s *served, victim org) group {
	g := group{scenario: "export: 12 × exportTransactions at the bound"}
	conn := benchdb.Open(s.dbURL)
	defer conn.Close()
	var first time.Time
	if err := conn.QueryRowContext(ctx, `SELECT min(created_at) FROM transactions`).Scan(&first); err != nil {
		return g.fail(err)
	}
	body := gql(`query($s: Time, $u: Time) { exportTransactions(format: csv, since: $s, until: $u) { count content } }`, map[string]any{
		"s": first.UTC().Format(time.RFC3339Nano), "u": first.Add(fieldExportRows * time.Millisecond).UTC().Format(time.RFC3339Nano)})
	counted := func(status int, raw []byte) error {
		if err := graphqlOK(status, raw); err != nil {
			return err
		}
		var r struct {
			Data struct {
				ExportTransactions struct{ Count int } `json:"exportTransactions"`
			} `json:"data"`
		}
		if err := json.Unmarshal(raw, &r); err != nil || r.Data.ExportTransactions.Count != fieldExportRows {
			return fmt.Errorf("want %d rows (%v): %.300s", fieldExportRows, err, raw)
		}
		return nil
	}
	pl := plan{url: s.svc.base + "/graphql", workers: exportClients, duration: 10 * time.Second, ok: counted, next: fixed(body, victim.key)}
	var out outcome
	g.service, out = measure(ctx, s.svc, pl, fmt.Sprintf("service: exportTransactions csv, %d rows", fieldExportRows))
	g.noteErrors("exportTransactions", out)
	if peak := g.service.peakRSS; peak >= exportRSSGoal {
		g.problem = fmt.Errorf("peak RSS %d MiB, over the goal of %d MiB", peak>>20, exportRSSGoal>>20)
	}
	return g
}

// seedExportRows stores the victim's history: transactions both ways with
// the other organization, the memos the other organization's.
func seedExportRows(ctx context.Context, s *served, victim, other org) error {
	mine, err := registerAgents(ctx, s.svc.base, victim.key, "victim", 1, "1000")
	if err != nil {
		return err
	}
	theirs, err := registerAgents(ctx, s.svc.base, other.key, "other", 1, "1000")
	if err != nil {
		return err
	}
	conn := benchdb.Open(s.dbURL)
	defer conn.Close()
	_, err = conn.ExecContext(ctx, `INSERT INTO transactions (id, from_agent, to_agent, from_org, to_org, action, amount, currency, memo, status, created_at)
		SELECT 'tx_load' || lpad(g::text, 6, '0'),
			CASE WHEN g % 2 = 0 THEN $1 ELSE $2 END, CASE WHEN g % 2 = 0 THEN $2 ELSE $1 END,
			CASE WHEN g % 2 = 0 THEN $3 ELSE $4 END, CASE WHEN g % 2 = 0 THEN $4 ELSE $3 END,
			'purchase', 1, 'USD', repeat('"', $5), 'completed', now() - interval '1 day' + g * interval '1 millisecond'
		FROM generate_series(1, $6) g`, mine[0], theirs[0], victim.id, other.id, exportMemo, exportRows)
	if err != nil {
		return fmt.Errorf("seed transactions: %w", err)
	}
	return nil
}

// exportFieldRefused checks that exportTransactions refuses the whole
// history at its byte bound, naming until.
func exportFieldRefused(ctx context.Context, base, key string) error {
	_, body, err := post(ctx, newClient(1), base+"/graphql", call{body: gql(`{ exportTransactions(format: csv) { count } }`, nil), key: key})
	if err != nil {
		return err
	}
	var r struct {
		Errors []struct {
			Extensions struct {
				Code        string
				FieldErrors []struct{ Field string }
			}
		}
	}
	if json.Unmarshal(body, &r) != nil || len(r.Errors) != 1 || r.Errors[0].Extensions.Code != "VALIDATION_FAILED" ||
		len(r.Errors[0].Extensions.FieldErrors) != 1 || r.Errors[0].Extensions.FieldErrors[0].Field != "until" {
		return fmt.Errorf("exportTransactions of the whole history: want VALIDATION_FAILED on until, got %.300s", body)
	}
	return nil
}

// runExports runs exportClients exports at once, each read to its end and
// its lines counted; it returns their latencies, sizes and failures.
func runExports(ctx context.Context, url, key string) ([]time.Duration, []int64, []error) {
	var mu sync.Mutex
	var lat []time.Duration
	var sizes []int64
	var errs []error
	var wg sync.WaitGroup
	c := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: exportClients}}
	defer c.CloseIdleConnections()
	for range exportClients {
		wg.Go(func() {
			t0 := time.Now()
			n, err := exportOnce(ctx, c, url, key)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, err)
				return
			}
			lat, sizes = append(lat, time.Since(t0)), append(sizes, n)
		})
	}
	wg.Wait()
	return lat, sizes, errs
}

// exportOnce reads one export and checks it holds the header and every row.
func exportOnce(ctx context.Context, c *http.Client, url, key string) (int64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := c.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 300))
		return 0, fmt.Errorf("HTTP %d: %s", resp.StatusCode, body)
	}
	var lines lineCounter
	n, err := io.Copy(&lines, resp.Body)
	if err != nil {
		return n, fmt.Errorf("read export: %w", err)
	}
	if lines != exportRows+1 {
		return n, fmt.Errorf("export of %d lines, want %d", lines, exportRows+1)
	}
	return n, nil
}

// lineCounter counts the newlines written to it (no memo holds one).
type lineCounter int

func (l *lineCounter) Write(p []byte) (int, error) {
	*l += lineCounter(bytes.Count(p, []byte{'\n'}))
	return len(p), nil
}
