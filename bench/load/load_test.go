package main

import (
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
)

func TestPercentileIsNearestRank(t *testing.T) {
	t.Parallel()
	lat := make([]time.Duration, 1000)
	for i := range lat {
		lat[i] = time.Duration(i+1) * time.Millisecond
	}
	for _, c := range []struct {
		p    float64
		want time.Duration
	}{{50, 500 * time.Millisecond}, {90, 900 * time.Millisecond}, {99, 990 * time.Millisecond},
		{99.9, 999 * time.Millisecond}, {100, time.Second}, {0, time.Millisecond}} {
		if got := percentile(lat, c.p); got != c.want {
			t.Errorf("p%v = %s, want %s", c.p, got, c.want)
		}
	}
	if got := percentile(nil, 50); got != 0 {
		t.Errorf("p50 of nothing = %s", got)
	}
}

func TestPgbenchLogReadsEveryThreadLogAndFailures(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// client transaction latency(µs) script epoch µs [retries]
	write("tx.123", "0 0 1500 0 1700000000 1 0\n1 0 2500 0 1700000001 2 0\n")
	write("tx.123.1", "2 0 failed 0 1700000002 3 9\n")
	txs, err := pgbenchLog(dir)
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(txs, func(a, b pgbenchTx) int { return a.done.Compare(b.done) })
	want := []pgbenchTx{
		{done: time.Unix(1700000000, 1000), lat: 1500 * time.Microsecond},
		{done: time.Unix(1700000001, 2000), lat: 2500 * time.Microsecond},
		{done: time.Unix(1700000002, 3000), failed: true},
	}
	if len(txs) != len(want) {
		t.Fatalf("got %+v, want %+v", txs, want)
	}
	for i := range want {
		if !txs[i].done.Equal(want[i].done) || txs[i].lat != want[i].lat || txs[i].failed != want[i].failed {
			t.Fatalf("got %+v, want %+v", txs, want)
		}
	}
	if _, err := pgbenchLog(t.TempDir()); err == nil {
		t.Fatal("no log: want an error")
	}
}

func TestCheckDeliveriesVerifiesSignaturesAndCountsDuplicates(t *testing.T) {
	t.Parallel()
	const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	wh, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Now().Add(-time.Second)
	signed := func(id, body string) delivery {
		sig, err := wh.Sign(id, at, []byte(body))
		if err != nil {
			t.Fatal(err)
		}
		h := http.Header{}
		h.Set("webhook-id", id)
		h.Set("webhook-timestamp", strconv.FormatInt(at.Unix(), 10))
		h.Set("webhook-signature", sig)
		return delivery{path: "/hook/0", header: h, body: []byte(body), at: at.Add(250 * time.Millisecond)}
	}
	body := `{"id":"evt_1","type":"agent.registered","timestamp":"` + at.UTC().Format(time.RFC3339Nano) + `","data":{}}`
	good := signed("evt_1", body)
	tampered := signed("evt_2", body)
	tampered.body = []byte(`{"id":"evt_2"}`)
	lat, bad, dups := checkDeliveries([]delivery{good, good, tampered}, map[string]string{"/hook/0": secret})
	if bad != 1 || dups != 1 {
		t.Fatalf("bad %d, dups %d: want 1 and 1", bad, dups)
	}
	if len(lat) != 1 || lat[0] != 250*time.Millisecond {
		t.Fatalf("latencies %v, want [250ms]", lat)
	}
}
