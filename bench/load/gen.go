package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"slices"
	"sync"
	"time"
)

// call is one request a worker sends: a GraphQL body under an API key.
type call struct {
	body []byte
	key  string
	kind int // index into the run's kinds, for a per-kind count
}

// plan is a closed-loop load: workers each send one request, wait for the
// answer, and send the next, for the duration.
type plan struct {
	url      string
	workers  int
	duration time.Duration
	// next picks worker w's next request.
	next func(w int, rng *rand.Rand) call
	// ok judges an answer; nil means HTTP 200 and no GraphQL errors.
	ok func(status int, body []byte) error
}

// outcome is what a run measured on the client side.
type outcome struct {
	requests int64 // answered, ok or not
	errors   int64
	firstErr string
	elapsed  time.Duration
	lat      []time.Duration // sorted
	kinds    []int64         // ok answers per kind
}

func (o outcome) rps() float64 { return float64(o.requests-o.errors) / o.elapsed.Seconds() }

// pct is the p-th percentile latency (nearest rank).
func (o outcome) pct(p float64) time.Duration { return percentile(o.lat, p) }

func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	// The rank, less a hair so that 99.9% of 1000 is 999, not 1000 by rounding.
	i := int(math.Ceil(p/100*float64(len(sorted))-1e-9)) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

// graphqlOK accepts an HTTP 200 answer without GraphQL errors.
func graphqlOK(status int, body []byte) error {
	if status != http.StatusOK {
		return fmt.Errorf("HTTP %d: %.300s", status, body)
	}
	if bytes.Contains(body, []byte(`"errors":`)) {
		return fmt.Errorf("GraphQL errors: %.300s", body)
	}
	return nil
}

// newClient is an HTTP client that keeps one connection per worker.
func newClient(workers int) *http.Client {
	return &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{
		MaxIdleConns: workers * 2, MaxIdleConnsPerHost: workers * 2, IdleConnTimeout: 30 * time.Second}}
}

// run drives p and returns what it measured. Requests that fail count as
// errors (the first one is kept for the report); the run goes on.
func (p plan) run(ctx context.Context) outcome {
	if p.ok == nil {
		p.ok = graphqlOK
	}
	c := newClient(p.workers)
	defer c.CloseIdleConnections()
	// Workers send nothing new after the deadline but let the requests in
	// flight finish: a request cut off is not an error of the server.
	deadline := time.Now().Add(p.duration)
	var (
		mu  sync.Mutex
		out outcome
		wg  sync.WaitGroup
	)
	start := time.Now()
	for w := range p.workers {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w)+1, uint64(start.UnixNano())))
			t := p.work(ctx, c, w, rng, deadline)
			mu.Lock()
			defer mu.Unlock()
			out.add(t)
		})
	}
	wg.Wait()
	out.elapsed = time.Since(start)
	slices.Sort(out.lat)
	return out
}

// tally is what one worker of a run saw.
type tally struct {
	requests, errors int64
	first            string
	lat              []time.Duration
	kinds            []int64 // ok answers per kind
}

// work sends worker w's requests, one at a time, until the deadline or
// until ctx ends.
func (p plan) work(ctx context.Context, c *http.Client, w int, rng *rand.Rand, deadline time.Time) tally {
	t := tally{lat: make([]time.Duration, 0, 4096)}
	for ctx.Err() == nil && time.Now().Before(deadline) {
		c1 := p.next(w, rng)
		t0 := time.Now()
		status, body, err := post(ctx, c, p.url, c1)
		if ctx.Err() != nil {
			break // interrupted
		}
		t.lat = append(t.lat, time.Since(t0))
		t.requests++
		if err == nil {
			err = p.ok(status, body)
		}
		if err != nil {
			t.errors++
			if t.first == "" {
				t.first = err.Error()
			}
			continue
		}
		for len(t.kinds) <= c1.kind {
			t.kinds = append(t.kinds, 0)
		}
		t.kinds[c1.kind]++
	}
	return t
}

// add counts a worker's tally into o.
func (o *outcome) add(t tally) {
	o.requests += t.requests
	o.errors += t.errors
	o.lat = append(o.lat, t.lat...)
	for len(o.kinds) < len(t.kinds) {
		o.kinds = append(o.kinds, 0)
	}
	for i, n := range t.kinds {
		o.kinds[i] += n
	}
	if o.firstErr == "" {
		o.firstErr = t.first
	}
}

func post(ctx context.Context, c *http.Client, url string, q call) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(q.body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+q.key)
	resp, err := c.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, body, err
}

// gql is a GraphQL request body.
func gql(query string, vars map[string]any) []byte {
	b, err := json.Marshal(map[string]any{"query": query, "variables": vars})
	if err != nil {
		panic(err)
	}
	return b
}
