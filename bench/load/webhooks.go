package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
)

// receiver is a local HTTPS webhook receiver: it answers 204 at once and
// records every delivery of a logged event (not the verification and test
// messages, nor the plain client's posts, which carry a header of their own).
type receiver struct {
	srv *httptest.Server
	pem string // its certificate, for WEBHOOK_CA_FILE and the plain client
	mu  sync.Mutex
	got []delivery
}

type delivery struct {
	path   string
	header http.Header
	body   []byte
	at     time.Time
}

func newReceiver(dir string) (*receiver, error) {
	r := &receiver{}
	r.srv = httptest.NewUnstartedServer(http.HandlerFunc(r.serve))
	r.srv.StartTLS()
	r.pem = filepath.Join(dir, "receiver.pem")
	block := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: r.srv.Certificate().Raw})
	if err := os.WriteFile(r.pem, block, 0o600); err != nil {
		r.srv.Close()
		return nil, err
	}
	return r, nil
}

func (r *receiver) serve(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	if req.Header.Get("X-Load-Plain") == "" && !bytes.Contains(body, []byte(`"type":"webhook.`)) {
		r.mu.Lock()
		r.got = append(r.got, delivery{path: req.URL.Path, header: req.Header.Clone(), body: body, at: time.Now()})
		r.mu.Unlock()
	}
	w.WriteHeader(http.StatusNoContent)
}

func (r *receiver) deliveries() []delivery {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.got)
}

func (r *receiver) close() { r.srv.Close() }

// The webhook scenario's endpoints, and the plain client's requests at a
// time (the service's delivery workers).
const webhookEndpoints, webhookWorkers = 50, 100

// webhookScenario: 50 endpoints of one organization on the local receiver,
// every one subscribed to agent.registered, then c.events/25 registrations:
// each must be delivered, signed, once to every endpoint. The row's rate is
// deliveries per second from the first receipt to the last (the note gives
// it from the first registration too), its latencies commit (the event's
// timestamp) to receipt. The baseline is
// a plain Go net/http client in its own process posting the same bodies with
// the same headers to the same receiver, 100 at a time (the service's
// delivery workers).
func webhookScenario(ctx context.Context, e *env, c config) []group {
	g := group{scenario: fmt.Sprintf("webhooks: %d endpoints", webhookEndpoints)}
	rcv, err := newReceiver(e.tmp)
	if err != nil {
		return []group{g.fail(err)}
	}
	defer rcv.close()
	s, err := e.serve(ctx, "webhooks", 1, "WEBHOOK_ALLOW_PRIVATE_NETWORKS=true", "WEBHOOK_CA_FILE="+rcv.pem)
	if err != nil {
		return []group{g.fail(err)}
	}
	defer s.close()
	secrets, err := registerHooks(ctx, s.svc.base, s.orgs[0].key, rcv)
	if err != nil {
		return []group{g.fail(err)}
	}
	events := max(1, c.events/25)
	s.svc.resetPeak()
	cpu0 := s.svc.cpu()
	start := time.Now()
	if err := burst(ctx, s.svc.base, []string{s.orgs[0].key}, events); err != nil {
		return []group{g.fail(err)}
	}
	got := awaitDeliveries(ctx, rcv, events*webhookEndpoints, 5*time.Minute)
	cpu := s.svc.cpu() - cpu0
	var note string
	g.service, note, g.problem = deliveryRow(got, secrets, events, start, cpu, s.svc.peakRSS())
	g.notes = append(g.notes, note)
	b, err := plainPosts(ctx, e, rcv, got, webhookWorkers)
	if err != nil {
		g.notes = append(g.notes, "plain client failed: "+err.Error())
		g.problem = err
		return []group{g}
	}
	g.baseline = &b
	return []group{g}
}

// registerHooks registers the scenario's endpoints on the receiver, each
// for agent.registered, and returns each one's secret by its path.
func registerHooks(ctx context.Context, base, key string, rcv *receiver) (map[string]string, error) {
	secrets := map[string]string{}
	for i := range webhookEndpoints {
		path := fmt.Sprintf("/hook/%d", i)
		secret, err := registerWebhook(ctx, base, key, rcv.srv.URL+path, "agent.registered")
		if err != nil {
			return nil, err
		}
		secrets[path] = secret
	}
	return secrets, nil
}

// awaitDeliveries waits, up to within, for want deliveries to arrive and
// returns those that did.
func awaitDeliveries(ctx context.Context, rcv *receiver, want int, within time.Duration) []delivery {
	deadline := time.Now().Add(within)
	for len(rcv.deliveries()) < want && time.Now().Before(deadline) && ctx.Err() == nil {
		time.Sleep(10 * time.Millisecond)
	}
	return rcv.deliveries()
}

// deliveryRow turns the deliveries of events to every endpoint into the
// service's row and a note of what arrived, and says whether any went
// missing, came twice or was badly signed.
func deliveryRow(got []delivery, secrets map[string]string, events int, start time.Time, cpu time.Duration, peakRSS int64) (row, string, error) {
	want := events * webhookEndpoints
	var first, last time.Time
	for _, d := range got {
		if d.at.After(last) {
			last = d.at
		}
		if first.IsZero() || d.at.Before(first) {
			first = d.at
		}
	}
	// Like the plain client's, the rate runs from the first delivery to the
	// last: the registrations before the first are the events' making, not
	// their delivery.
	took := last.Sub(first)
	lat, bad, dups := checkDeliveries(got, secrets)
	r := row{target: "service: signed deliveries", conc: strconv.Itoa(webhookWorkers), ops: float64(len(got)-dups) / took.Seconds(), unit: "dlv",
		p50: percentile(lat, 50), p90: percentile(lat, 90), p99: percentile(lat, 99), p999: percentile(lat, 99.9),
		errors: int64(want - (len(got) - dups) + bad), total: int64(want), peakRSS: peakRSS}
	if n := len(got); n > 0 {
		r.cpuPerOp = cpu / time.Duration(n)
	}
	note := fmt.Sprintf("%d events × %d endpoints: %d deliveries expected, %d received, %d duplicates, %d bad signatures; rate: first delivery to last (%.0f/s from the first registration); latency: commit to receipt (plain client: start, when every body is ready, to answer)",
		events, webhookEndpoints, want, len(got), dups, bad, float64(len(got)-dups)/last.Sub(start).Seconds())
	if len(got)-dups != want || bad > 0 || dups > 0 {
		return r, note, fmt.Errorf("webhook deliveries missing, doubled or badly signed")
	}
	return r, note, nil
}

// registerWebhook registers an endpoint for events over REST and returns its secret.
func registerWebhook(ctx context.Context, base, key, url string, events ...string) (string, error) {
	body, _ := json.Marshal(map[string]any{"url": url, "events": events})
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, base+"/webhooks", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var w struct{ Secret string }
	if resp.StatusCode != http.StatusCreated || json.Unmarshal(raw, &w) != nil || w.Secret == "" {
		return "", fmt.Errorf("register webhook: HTTP %d: %.300s", resp.StatusCode, raw)
	}
	return w.Secret, nil
}

// checkDeliveries verifies every delivery's signature under its endpoint's
// secret, counts the (endpoint, webhook-id) pairs seen twice, and returns the
// commit-to-receipt latencies, sorted.
func checkDeliveries(got []delivery, secrets map[string]string) (lat []time.Duration, bad, dups int) {
	hooks := map[string]*standardwebhooks.Webhook{}
	for path, s := range secrets {
		hooks[path], _ = standardwebhooks.NewWebhook(s)
	}
	seen := map[string]bool{}
	for _, d := range got {
		k := d.path + " " + d.header.Get("webhook-id")
		if seen[k] {
			dups++
			continue
		}
		seen[k] = true
		if wh := hooks[d.path]; wh == nil || wh.Verify(d.body, d.header) != nil {
			bad++
		}
		var m struct{ Timestamp time.Time }
		if json.Unmarshal(d.body, &m) == nil && !m.Timestamp.IsZero() {
			lat = append(lat, d.at.Sub(m.Timestamp))
		}
	}
	slices.Sort(lat)
	return lat, bad, dups
}

// plainRequest is one request of the plain client: what the service sent.
type plainRequest struct {
	URL    string            `json:"url"`
	Header map[string]string `json:"header"`
	Body   []byte            `json:"body"`
}

// plainPosts runs this program's post subcommand (a plain net/http client in
// its own process) on the bodies and headers the service delivered, and
// measures it as the service is measured: rate, latency per post, peak RSS
// and CPU per post (from the child's rusage).
func plainPosts(ctx context.Context, e *env, rcv *receiver, got []delivery, workers int) (row, error) {
	file := filepath.Join(e.tmp, "posts.json")
	var posts []plainRequest
	for _, d := range got {
		h := map[string]string{"Content-Type": "application/json", "X-Load-Plain": "1"}
		for _, k := range []string{"webhook-id", "webhook-timestamp", "webhook-signature", "User-Agent"} {
			h[k] = d.header.Get(k)
		}
		posts = append(posts, plainRequest{URL: rcv.srv.URL + d.path, Header: h, Body: d.body})
	}
	raw, err := json.Marshal(posts)
	if err != nil {
		return row{}, err
	}
	if err := os.WriteFile(file, raw, 0o600); err != nil {
		return row{}, err
	}
	cmd := exec.CommandContext(ctx, e.self, "post", "-posts", file, "-ca", rcv.pem, "-c", strconv.Itoa(workers))
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return row{}, fmt.Errorf("plain client: %w", err)
	}
	var s postSummary
	if err := json.Unmarshal(out, &s); err != nil {
		return row{}, fmt.Errorf("plain client: %w: %s", err, out)
	}
	// The child's CPU from its rusage; not its ru_maxrss, which counts the
	// parent's memory shared until exec: the child reads its own VmHWM.
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	r := row{target: "plain Go net/http client, same bodies", conc: strconv.Itoa(workers), unit: "post",
		ops: float64(s.OK) / s.Elapsed.Seconds(), p50: s.P50, p90: s.P90, p99: s.P99, p999: s.P999,
		errors: int64(s.Failed), total: int64(s.OK + s.Failed), peakRSS: s.PeakRSS}
	if s.OK > 0 {
		r.cpuPerOp = cpu / time.Duration(s.OK)
	}
	return r, nil
}

// postSummary is what the post subcommand prints.
type postSummary struct {
	OK, Failed          int
	Elapsed             time.Duration
	P50, P90, P99, P999 time.Duration
	PeakRSS             int64 // VmHWM, bytes
}

// plainPost is the post subcommand: post every request of a file with a
// plain net/http client, c at a time, and print a postSummary. A post's
// latency is from the start (when every body is ready, as a backlog of
// committed events is for the service) to its answer, comparable with the
// service's commit to receipt.
func plainPost(args []string) error {
	fs := flag.NewFlagSet("post", flag.ExitOnError)
	file := fs.String("posts", "", "JSON list of requests")
	ca := fs.String("ca", "", "PEM certificate to trust")
	conc := fs.Int("c", 100, "requests at a time")
	_ = fs.Parse(args)
	raw, err := os.ReadFile(*file)
	if err != nil {
		return err
	}
	var posts []plainRequest
	if err := json.Unmarshal(raw, &posts); err != nil {
		return err
	}
	certPEM, err := os.ReadFile(*ca)
	if err != nil {
		return err
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(certPEM)
	c := &http.Client{Timeout: 15 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots},
		MaxIdleConnsPerHost: *conc, ForceAttemptHTTP2: true}}
	s := postAll(c, posts, *conc)
	s.PeakRSS, _ = statusBytes(os.Getpid(), "VmHWM:")
	return json.NewEncoder(os.Stdout).Encode(s)
}

// postAll posts every request, conc at a time, and summarizes the answers.
func postAll(c *http.Client, posts []plainRequest, conc int) postSummary {
	work := make(chan plainRequest)
	var mu sync.Mutex
	var lat []time.Duration
	var s postSummary
	var wg sync.WaitGroup
	start := time.Now()
	for range conc {
		wg.Go(func() {
			for p := range work {
				ok := postOne(c, p)
				d := time.Since(start) // every body was ready at the start
				mu.Lock()
				if ok {
					s.OK++
					lat = append(lat, d)
				} else {
					s.Failed++
				}
				mu.Unlock()
			}
		})
	}
	for _, p := range posts {
		work <- p
	}
	close(work)
	wg.Wait()
	s.Elapsed = time.Since(start)
	slices.Sort(lat)
	s.P50, s.P90, s.P99, s.P999 = percentile(lat, 50), percentile(lat, 90), percentile(lat, 99), percentile(lat, 99.9)
	return s
}

// postOne posts p and says whether the answer was a 2xx.
func postOne(c *http.Client, p plainRequest) bool {
	req, _ := http.NewRequest(http.MethodPost, p.URL, bytes.NewReader(p.Body))
	for k, v := range p.Header {
		req.Header.Set(k, v)
	}
	resp, err := c.Do(req)
	if err != nil {
		return false
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode/100 == 2
}
