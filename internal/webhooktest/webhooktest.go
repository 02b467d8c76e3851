// Package webhooktest is a local HTTPS webhook receiver for tests: it records
// every request, answers as the test tells it, and checks signatures with the
// Standard Webhooks reference library.
package webhooktest

import (
	"crypto/x509"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
)

// Request is one request the receiver got.
type Request struct {
	Header http.Header
	Body   []byte
	At     time.Time
	// Message is the decoded body.
	Message struct {
		ID        string          `json:"id"`
		Type      string          `json:"type"`
		Timestamp string          `json:"timestamp"`
		Data      json.RawMessage `json:"data"`
	}
}

// Answer is how the receiver answers one request.
type Answer struct {
	Status int
	Header map[string]string
	Body   string
	Delay  time.Duration // wait before answering
}

// Receiver is an httptest TLS server that records webhook requests.
type Receiver struct {
	Server  *httptest.Server
	mu      sync.Mutex
	reqs    []Request
	answer  func(Request) Answer
	waiters []*waiter
	conns   int            // connections accepted
	types   map[string]int // requests per message type
}

// waiter is a Wait told, once, when n requests of its types have arrived:
// a request wakes no one before that, so waiting for a backlog costs the
// process nothing per request (the delivery benchmark waits so).
type waiter struct {
	types []string
	n     int
	done  chan struct{}
}

// New starts a receiver that answers 204 until told otherwise; it stops when t ends.
func New(t testing.TB) *Receiver {
	r := &Receiver{answer: func(Request) Answer { return Answer{Status: http.StatusNoContent} }, types: map[string]int{}}
	r.Server = httptest.NewUnstartedServer(http.HandlerFunc(r.serve))
	r.Server.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			r.mu.Lock()
			r.conns++
			r.mu.Unlock()
		}
	}
	r.Server.StartTLS()
	t.Cleanup(r.Server.Close)
	return r
}

func (r *Receiver) serve(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	got := Request{Header: req.Header.Clone(), Body: body, At: time.Now()}
	_ = json.Unmarshal(body, &got.Message)
	r.mu.Lock()
	r.reqs = append(r.reqs, got)
	r.types[got.Message.Type]++
	r.waiters = slices.DeleteFunc(r.waiters, func(w *waiter) bool {
		if r.countLocked(w.types) < w.n {
			return false
		}
		close(w.done)
		return true
	})
	answer := r.answer
	r.mu.Unlock()
	a := answer(got)
	if a.Delay > 0 {
		select {
		case <-time.After(a.Delay):
		case <-req.Context().Done():
			// Gone without an answer: returning would send net/http's
			// implicit 200, which a client cutting its wait at this very
			// moment could still read as the endpoint's answer.
			panic(http.ErrAbortHandler)
		}
	}
	for k, v := range a.Header {
		w.Header().Set(k, v)
	}
	w.WriteHeader(a.Status)
	_, _ = io.WriteString(w, a.Body)
}

// URL is the receiver's https URL (on 127.0.0.1).
func (r *Receiver) URL() string { return r.Server.URL + "/hook" }

// Roots trusts the receiver's certificate.
func (r *Receiver) Roots() *x509.CertPool {
	pool := x509.NewCertPool()
	pool.AddCert(r.Server.Certificate())
	return pool
}

// Answer sets how requests are answered from now on.
func (r *Receiver) Answer(fn func(Request) Answer) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.answer = fn
}

// Requests returns what arrived so far, of the given types (all when none given).
func (r *Receiver) Requests(types ...string) []Request {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]Request, 0, r.countLocked(types))
	for _, q := range r.reqs {
		if len(types) == 0 || contains(types, q.Message.Type) {
			out = append(out, q)
		}
	}
	return out
}

// Conns is how many connections the receiver has accepted: a client that
// keeps connections alive opens about as many as it sends at once.
func (r *Receiver) Conns() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.conns
}

// countLocked is len(r.Requests(types...)) without the copy; r.mu is held.
func (r *Receiver) countLocked(types []string) int {
	if len(types) == 0 {
		return len(r.reqs)
	}
	n := 0
	for _, t := range types {
		n += r.types[t]
	}
	return n
}

// Wait returns once n requests of the given types arrived, failing t after timeout.
func (r *Receiver) Wait(t testing.TB, n int, timeout time.Duration, types ...string) []Request {
	t.Helper()
	r.Await(t, n, timeout, types...)
	return r.Requests(types...)
}

// Await is Wait without copying the requests, so that a benchmark timing
// what follows the last request leaves the copy out of its span.
func (r *Receiver) Await(t testing.TB, n int, timeout time.Duration, types ...string) {
	t.Helper()
	r.mu.Lock()
	w := &waiter{types: types, n: n, done: make(chan struct{})}
	if r.countLocked(types) >= n {
		close(w.done)
	} else {
		r.waiters = append(r.waiters, w)
	}
	r.mu.Unlock()
	select {
	case <-w.done:
	case <-time.After(timeout):
		r.mu.Lock()
		r.waiters = slices.DeleteFunc(r.waiters, func(x *waiter) bool { return x == w })
		r.mu.Unlock()
		t.Fatalf("receiver: want %d requests of types %v within %s, got %d", n, types, timeout, len(r.Requests(types...)))
	}
}

// Verify fails t unless q carries a valid Standard Webhooks signature under secret.
func Verify(t testing.TB, q Request, secret string) {
	t.Helper()
	if err := Check(q, secret); err != nil {
		t.Fatalf("signature of %s %s under %.12s…: %v", q.Message.Type, q.Message.ID, secret, err)
	}
}

// Check verifies q's signature under secret with the reference library.
func Check(q Request, secret string) error {
	wh, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		return err
	}
	return wh.Verify(q.Body, q.Header)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
