package stock_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/agenttrust/service/bench/dashboard"
	"github.com/agenttrust/service/bench/stock"
	"github.com/agenttrust/service/internal/testkit"
)

// setup seeds the dashboard's rows through the service's handler and
// returns the service's handler, the stock reference's on the same rows,
// and the key to send.
func setup(tb testing.TB) (svc, ref http.Handler, key string) {
	k := testkit.New(tb)
	_, keyB := k.NewOrg("counterparty")
	if _, err := dashboard.Seed(func(key string, body []byte) ([]byte, error) { return post(k.Handler, key, body) }, k.Key, keyB); err != nil {
		tb.Fatal(err)
	}
	pool, err := pgxpool.New(context.Background(), k.DBURL)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(pool.Close)
	return k.Handler, stock.Handler(pool, k.OrgID), k.Key
}

func post(h http.Handler, key string, body []byte) ([]byte, error) {
	req := httptest.NewRequest(http.MethodPost, "/graphql", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+key)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		return nil, fmt.Errorf("HTTP %d: %.400s", rec.Code, rec.Body.String())
	}
	return rec.Body.Bytes(), nil
}

// TestStockAnswersAsTheService: the stock reference answers the plain page
// and the page with trust as the service does, row for row and field for
// field, so that the two are compared on the same work.
func TestStockAnswersAsTheService(t *testing.T) {
	t.Parallel()
	svc, ref, key := setup(t)
	for _, p := range pages() {
		want, err := post(svc, key, p.Body)
		if err == nil {
			err = p.Check(want)
		}
		if err != nil {
			t.Fatalf("service: %v", err)
		}
		got, err := post(ref, key, p.Body)
		if err == nil {
			err = p.Check(got)
		}
		if err != nil {
			t.Fatalf("stock: %v", err)
		}
		var w, g any // amounts compared as numbers: 1000.5 and 1000.50 are one amount
		if err := json.Unmarshal(want, &w); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(got, &g); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(w, g) {
			t.Errorf("%s: stock answered\n%.600s\nthe service\n%.600s", p.Name, got, want)
		}
	}
}

// BenchmarkPages: the plain page and the page with trust, one request at a
// time through each handler in this process, the service's beside the stock
// reference's on the same rows: CPU per request (the process's, client
// side included) and, with -benchmem, allocations. The load comparison is
// `make bench-read`.
func BenchmarkPages(b *testing.B) {
	svc, ref, key := setup(b)
	for _, p := range pages() {
		for _, s := range []struct {
			name string
			h    http.Handler
		}{{"stock", ref}, {"service", svc}} {
			b.Run(p.Name+"/"+s.name, func(b *testing.B) {
				out, err := post(s.h, key, p.Body)
				if err == nil {
					err = p.Check(out)
				}
				if err != nil {
					b.Fatal(err)
				}
				b.ReportAllocs()
				cpu := processCPU()
				for b.Loop() {
					if _, err := post(s.h, key, p.Body); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64((processCPU()-cpu).Microseconds())/float64(b.N), "cpu-µs/op")
			})
		}
	}
}

// pages are the dashboard's pages the stock reference serves.
func pages() []dashboard.Request {
	var out []dashboard.Request
	for _, p := range dashboard.Pages() {
		if p.Name == "plain" || p.Name == "trust" {
			out = append(out, p)
		}
	}
	return out
}

func processCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
