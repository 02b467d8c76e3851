package outbound_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agenttrust/service/webhook"
	"github.com/agenttrust/service/webhook/outbound"
)

// endpoint is a TLS server running handler that counts its connections.
func endpoint(t testing.TB, handler http.HandlerFunc) (*httptest.Server, *x509.CertPool, *atomic.Int32) {
	t.Helper()
	var conns atomic.Int32
	srv := httptest.NewUnstartedServer(handler)
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	roots := x509.NewCertPool()
	roots.AddCert(srv.Certificate())
	return srv, roots, &conns
}

func client(roots *x509.CertPool, maxBody int64) *outbound.Client {
	return outbound.New(outbound.Config{AllowPrivateNetworks: true, RootCAs: roots, Timeout: 5 * time.Second, MaxResponseBytes: maxBody})
}

// The request on the wire: method, path and query, Host, the exact body and
// its length, the caller's headers and no others of the client's own
// (no Idempotency-Key, no Accept-Encoding); HTTP/1.1 over TLS to an
// endpoint that offers no HTTP/2.
func TestClientWritesTheRequest(t *testing.T) {
	t.Parallel()
	got := make(chan *http.Request, 1)
	bodies := make(chan string, 1)
	srv, roots, _ := endpoint(t, func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- r
		bodies <- string(b)
		w.WriteHeader(http.StatusAccepted)
	})
	h := http.Header{"Webhook-Id": {"evt_1"}, "Content-Type": {"application/json"}}
	resp, err := client(roots, 0).Post(context.Background(), srv.URL+"/in/hook?x=1&y=%20", h, []byte(`{"a":1}`))
	if err != nil || resp.StatusCode != http.StatusAccepted {
		t.Fatalf("post: %v %+v", err, resp)
	}
	r, body := <-got, <-bodies
	if r.Method != http.MethodPost || r.URL.RequestURI() != "/in/hook?x=1&y=%20" || r.Host != strings.TrimPrefix(srv.URL, "https://") ||
		r.Proto != "HTTP/1.1" || r.TLS == nil || r.ContentLength != 7 || body != `{"a":1}` ||
		r.Header.Get("Webhook-Id") != "evt_1" || r.Header.Get("Content-Type") != "application/json" ||
		r.Header.Get("Idempotency-Key") != "" || r.Header.Get("Accept-Encoding") != "" {
		t.Fatalf("the endpoint got %s %s %s host %q length %d body %q headers %v", r.Method, r.URL.RequestURI(), r.Proto, r.Host, r.ContentLength, body, r.Header)
	}
}

// An endpoint that offers HTTP/2 in its TLS handshake is spoken to in it,
// one connection carrying concurrent requests.
func TestClientSpeaksHTTP2WhenOffered(t *testing.T) {
	t.Parallel()
	var conns atomic.Int32
	protos := make(chan string, 8)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		protos <- r.Proto
		time.Sleep(20 * time.Millisecond)
		w.WriteHeader(http.StatusNoContent)
	}))
	srv.EnableHTTP2 = true
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	roots := x509.NewCertPool()
	roots.AddCert(srv.Certificate())
	c := client(roots, 0)
	if _, err := c.Post(context.Background(), srv.URL, http.Header{}, []byte("{}")); err != nil { // the connection first
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 7 {
		wg.Go(func() {
			if resp, err := c.Post(context.Background(), srv.URL, http.Header{}, []byte("{}")); err != nil || resp.StatusCode != http.StatusNoContent {
				t.Errorf("post: %v %+v", err, resp)
			}
		})
	}
	wg.Wait()
	close(protos)
	for p := range protos {
		if p != "HTTP/2.0" {
			t.Errorf("the endpoint got a request in %s, want HTTP/2.0", p)
		}
	}
	if n := conns.Load(); n != 1 {
		t.Errorf("8 posts over HTTP/2 opened %d connections, want 1", n)
	}
}

// A kept-alive connection the endpoint closes on reading the next request,
// without answering, does not fail the delivery: it is sent once more on a
// new connection, as its webhook-id makes it safe to repeat.
func TestClientResendsWhenAKeptConnectionDies(t *testing.T) {
	t.Parallel()
	var requests atomic.Int32
	var mu sync.Mutex
	served := map[string]int{} // requests per client connection
	srv, roots, conns := endpoint(t, func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		mu.Lock()
		served[r.RemoteAddr]++
		second := served[r.RemoteAddr] == 2
		mu.Unlock()
		if second {
			conn, _, err := http.NewResponseController(w).Hijack()
			if err == nil {
				_ = conn.Close()
			}
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
	c := client(roots, 0)
	for i := range 2 {
		resp, err := c.Post(context.Background(), srv.URL, http.Header{}, []byte("{}"))
		if err != nil || resp.StatusCode != http.StatusNoContent {
			t.Fatalf("post %d: %v %+v", i, err, resp)
		}
	}
	if r, n := requests.Load(), conns.Load(); r != 3 || n != 2 {
		t.Fatalf("%d requests on %d connections, want 3 on 2", r, n)
	}
}

// A header value holding a line break is refused before anything is sent.
func TestClientRefusesHeaderInjection(t *testing.T) {
	t.Parallel()
	var requests atomic.Int32
	srv, roots, _ := endpoint(t, func(http.ResponseWriter, *http.Request) { requests.Add(1) })
	c := client(roots, 0)
	for _, h := range []http.Header{{"X-A": {"v\r\nX-Evil: 1"}}, {"X-A": {"v\n"}}, {"X Bad": {"v"}}, {"X:Bad": {"v"}}, {"": {"v"}}} {
		if _, err := c.Post(context.Background(), srv.URL, h, nil); err == nil || !strings.Contains(err.Error(), "invalid") {
			t.Errorf("header %q: %v, want it refused", h, err)
		}
	}
	if n := requests.Load(); n != 0 {
		t.Fatalf("the endpoint got %d requests", n)
	}
}

// Interim answers (103 Early Hints) are passed over; a chunked answer is read
// to its end and leaves the connection reusable; an answer longer than the
// bound is cut and its connection closed, as is one that asks for it.
func TestClientReadsAnswers(t *testing.T) {
	t.Parallel()
	srv, roots, conns := endpoint(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/early":
			w.Header().Set("Link", "</style.css>; rel=preload")
			w.WriteHeader(http.StatusEarlyHints)
			w.WriteHeader(http.StatusOK)
			_, _ = io.WriteString(w, "done")
		case "/chunked":
			for range 3 {
				_, _ = io.WriteString(w, "part.")
				w.(http.Flusher).Flush()
			}
		case "/long":
			_, _ = io.WriteString(w, strings.Repeat("x", 100<<10))
		case "/close":
			w.Header().Set("Connection", "close")
			_, _ = io.WriteString(w, "bye")
		}
	})
	c := client(roots, 64)
	for _, tc := range []struct {
		path, body string
		status     int
		conns      int32 // connections opened so far
	}{
		{"/early", "done", 200, 1},
		{"/chunked", "part.part.part.", 200, 1},
		{"/early", "done", 200, 1},
		{"/long", strings.Repeat("x", 64), 200, 1},
		{"/early", "done", 200, 2}, // /long's connection was not kept
		{"/close", "bye", 200, 2},
		{"/early", "done", 200, 3},
	} {
		resp, err := c.Post(context.Background(), srv.URL+tc.path, http.Header{}, nil)
		if err != nil || resp.StatusCode != tc.status || string(resp.Body) != tc.body {
			t.Fatalf("%s: %v %+v, want %d %q", tc.path, err, resp, tc.status, tc.body)
		}
		if n := conns.Load(); n != tc.conns {
			t.Fatalf("after %s: %d connections, want %d", tc.path, n, tc.conns)
		}
	}
}

// An idle connection the endpoint closed is noticed when a request fails on
// it before any answer, and the request goes once more on a new connection.
func TestClientRetriesOnAConnectionClosedWhileIdle(t *testing.T) {
	t.Parallel()
	var requests atomic.Int32
	srv, roots, conns := endpoint(t, func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		w.WriteHeader(http.StatusNoContent)
	})
	c := client(roots, 0)
	if _, err := c.Post(context.Background(), srv.URL, http.Header{}, nil); err != nil {
		t.Fatal(err)
	}
	srv.CloseClientConnections() // the endpoint drops the idle connection
	resp, err := c.Post(context.Background(), srv.URL, http.Header{}, nil)
	if err != nil || resp.StatusCode != http.StatusNoContent {
		t.Fatalf("post after the endpoint closed the idle connection: %v %+v", err, resp)
	}
	if r, n := requests.Load(), conns.Load(); r != 2 || n != 2 {
		t.Fatalf("%d requests on %d connections, want 2 on 2", r, n)
	}
}

// A request whose context ends stops at once, however long the endpoint takes.
func TestClientStopsWithItsContext(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	srv, roots, _ := endpoint(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
			// Gone without an answer: returning would send net/http's implicit
			// 200, which the client could read as the endpoint's answer.
			panic(http.ErrAbortHandler)
		}
	})
	c := client(roots, 0)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	start := time.Now()
	_, err := c.Post(ctx, srv.URL, http.Header{}, nil)
	if err == nil || time.Since(start) > 2*time.Second {
		t.Fatalf("cancelled post: %v after %s, want an error soon after 100ms", err, time.Since(start))
	}
	if !strings.Contains(err.Error(), "canceled") {
		t.Fatalf("cancelled post: %q, want it to say so", err)
	}
}

// CloseIdleConnections closes the connections no request uses; the next
// request dials a new one, which resumes the first one's TLS session.
func TestClientClosesIdleConnections(t *testing.T) {
	t.Parallel()
	resumed := make(chan bool, 2)
	srv, roots, conns := endpoint(t, func(w http.ResponseWriter, r *http.Request) {
		resumed <- r.TLS.DidResume
		w.WriteHeader(http.StatusNoContent)
	})
	c := client(roots, 0)
	for range 2 {
		if _, err := c.Post(context.Background(), srv.URL, http.Header{}, nil); err != nil {
			t.Fatal(err)
		}
		c.CloseIdleConnections()
	}
	if n := conns.Load(); n != 2 {
		t.Fatalf("%d connections, want 2", n)
	}
	if first, second := <-resumed, <-resumed; first || !second {
		t.Fatalf("sessions resumed: first %v, second %v; want only the second", first, second)
	}
}

// An answer whose headers never end is cut off after a bounded number of
// bytes, not read until the timeout.
func TestClientBoundsTheAnswersHeaders(t *testing.T) {
	t.Parallel()
	srv, roots, _ := endpoint(t, func(w http.ResponseWriter, r *http.Request) {
		conn, buf, err := http.NewResponseController(w).Hijack()
		if err != nil {
			return
		}
		defer conn.Close()
		_, _ = buf.WriteString("HTTP/1.1 200 OK\r\n")
		line := "X-Filler: " + strings.Repeat("a", 1000) + "\r\n"
		for range 10_000 { // 10 MB unless the client stops reading
			if _, err := buf.WriteString(line); err != nil {
				return
			}
		}
		_ = buf.Flush()
	})
	start := time.Now()
	_, err := client(roots, 0).Post(context.Background(), srv.URL, http.Header{}, nil)
	if err == nil || !strings.Contains(err.Error(), "too large") || time.Since(start) > 3*time.Second {
		t.Fatalf("endless headers: %v after %s, want the answer refused as too large", err, time.Since(start))
	}
}

// BenchmarkSend delivers a message to a local TLS endpoint answering 204
// over a kept-alive connection: the sender's work per delivery (body,
// signature, request, answer), and the endpoint's, which runs in this
// process too.
func BenchmarkSend(b *testing.B) {
	srv, roots, _ := endpoint(b, func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.WriteHeader(http.StatusNoContent)
	})
	c := client(roots, 4<<10)
	secrets := []string{webhook.NewSecret()}
	msg := webhook.Outgoing{ID: "evt_uvuqrhw35sae47t4nipzhgcfuy", Type: "agent.registered", At: time.Now(),
		Data: []byte(`{"agent":{"id":"agent_2rhupb5n2lxyxykkcg7qiwi5oy","name":"bench agent 17","status":"active","spending_limit":"100.00"}}`)}
	b.ReportAllocs()
	for b.Loop() {
		if a := c.Send(context.Background(), srv.URL, secrets, msg); !a.Success() {
			b.Fatal(a.Err)
		}
	}
}

// BenchmarkPlainPost is BenchmarkSend's baseline: a plain net/http client
// posting a body of the same size to the same endpoint, unsigned.
func BenchmarkPlainPost(b *testing.B) {
	srv, roots, _ := endpoint(b, func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.WriteHeader(http.StatusNoContent)
	})
	c := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots}, ForceAttemptHTTP2: true}}
	body := []byte(`{"id":"evt_uvuqrhw35sae47t4nipzhgcfuy","type":"agent.registered","timestamp":"2026-01-01T00:00:00Z","data":{"agent":{"id":"agent_2rhupb5n2lxyxykkcg7qiwi5oy","name":"bench agent 17","status":"active","spending_limit":"100.00"}}}`)
	b.ReportAllocs()
	for b.Loop() {
		resp, err := c.Post(srv.URL, "application/json", bytes.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		resp.Body.Close()
	}
}
