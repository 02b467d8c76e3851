package chaos

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agenttrust/service/client"
	"github.com/agenttrust/service/event"
)

// behaviour is how a receiver answers deliveries (verification requests are
// always answered 204, so that registration succeeds).
type behaviour int

const (
	answer   behaviour = iota // 204 at once
	hang                      // never answers: holds the request until the sender gives up
	slow                      // answers 204 after slowDelay
	hugeBody                  // answers 200 with an endless body
)

// slowDelay is how long a slow endpoint takes to answer.
const slowDelay = 3 * time.Second

// arrival is one delivery a receiver got.
type arrival struct {
	id, typ string
	at      time.Time // when it arrived
	created time.Time // the event's timestamp (its commit, to the millisecond)
}

// sink is one webhook endpoint: its own TLS server (its own host:port, as a
// real endpoint would be), recording every delivery and checking its
// signature with the client library's verifier.
type sink struct {
	name   string
	how    behaviour
	srv    *httptest.Server
	stop   chan struct{}
	secret atomic.Pointer[string]
	id     string // wh_…, once registered

	mu       sync.Mutex
	got      []arrival
	badSigs  int
	inFlight int
	peak     int // most requests held at once
}

func newSink(t *testing.T, name string, how behaviour) *sink {
	s := &sink{name: name, how: how, stop: make(chan struct{})}
	s.srv = httptest.NewTLSServer(http.HandlerFunc(s.serve))
	t.Cleanup(func() {
		close(s.stop) // frees hung handlers, so Close does not wait for them
		s.srv.CloseClientConnections()
		s.srv.Close()
	})
	return s
}

func (s *sink) URL() string { return s.srv.URL + "/hook/" + s.name }

func (s *sink) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil {
		return
	}
	var msg struct {
		ID, Type, Timestamp string
	}
	_ = json.Unmarshal(body, &msg)
	if msg.Type == "webhook.verification" {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	a := arrival{id: r.Header.Get("webhook-id"), typ: msg.Type, at: time.Now()}
	a.created, _ = time.Parse(event.TimeFormat, msg.Timestamp)
	bad := false
	if sec := s.secret.Load(); sec != nil {
		ev, err := client.VerifyWebhook(*sec, r.Header, body)
		bad = err != nil || ev.ID != a.id
	}
	s.mu.Lock()
	s.got = append(s.got, a)
	if bad {
		s.badSigs++
	}
	s.inFlight++
	s.peak = max(s.peak, s.inFlight)
	s.mu.Unlock()
	defer func() { s.mu.Lock(); s.inFlight--; s.mu.Unlock() }()
	switch s.how {
	case answer:
		w.WriteHeader(http.StatusNoContent)
	case hang:
		s.wait(r.Context(), time.Hour)
	case slow:
		if s.wait(r.Context(), slowDelay) {
			w.WriteHeader(http.StatusNoContent)
		}
	case hugeBody:
		w.Header().Set("Content-Type", "application/octet-stream")
		w.WriteHeader(http.StatusOK)
		chunk := make([]byte, 64<<10)
		for range 16 << 10 { // up to 1 GiB, until the sender hangs up
			if _, err := w.Write(chunk); err != nil {
				return
			}
			select {
			case <-s.stop:
				return
			default:
			}
		}
	}
}

// wait sleeps d unless the request or the receiver ends first; it reports
// whether d passed.
func (s *sink) wait(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
	case <-s.stop:
	}
	return false
}

// arrivals returns a copy of what arrived so far.
func (s *sink) arrivals() []arrival {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]arrival(nil), s.got...)
}

// badSignatures is how many deliveries failed verification.
func (s *sink) badSignatures() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.badSigs
}

// counts is how many times each event id arrived.
func (s *sink) counts() map[string]int {
	out := map[string]int{}
	for _, a := range s.arrivals() {
		out[a.id]++
	}
	return out
}

// missing lists the ids in want that never arrived.
func (s *sink) missing(want []string) []string {
	got := s.counts()
	var out []string
	for _, id := range want {
		if got[id] == 0 {
			out = append(out, id)
		}
	}
	return out
}

// register makes the sink an endpoint of the env's organization for every
// event type, and remembers its secret to verify deliveries.
func (e *env) register(ctx context.Context, c *client.Client, s *sink) {
	e.t.Helper()
	w, err := c.Webhooks.Register(ctx, client.RegisterWebhookInput{URL: s.URL(), Events: []string{"*"}})
	if err != nil {
		e.t.Fatalf("register %s: %v", s.name, err)
	}
	s.id = w.ID
	s.secret.Store(&w.Secret)
}
