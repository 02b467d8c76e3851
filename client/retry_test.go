package client_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/agenttrust/service/client"
	"github.com/agenttrust/service/httpapi"
	"github.com/agenttrust/service/internal/testkit"
)

// script is a fake service answering its i-th request with answers[i] (the
// last one repeated) and recording every request.
type script struct {
	answers []func(http.ResponseWriter)
	mu      sync.Mutex
	reqs    []*http.Request
	bodies  []string
}

func (s *script) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	i := len(s.reqs)
	s.reqs = append(s.reqs, r)
	s.bodies = append(s.bodies, string(body))
	s.mu.Unlock()
	s.answers[min(i, len(s.answers)-1)](w)
}

func (s *script) req(i int) *http.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reqs[i]
}

func (s *script) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.reqs)
}

// gqlErrorAnswer answers status with one GraphQL error of code, with extra extensions.
func gqlErrorAnswer(status int, code string, ext map[string]any, header ...string) func(http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		for i := 0; i+1 < len(header); i += 2 {
			w.Header().Set(header[i], header[i+1])
		}
		e := map[string]any{"code": code}
		for k, v := range ext {
			e[k] = v
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(map[string]any{"errors": []any{map[string]any{"message": "scripted " + code, "extensions": e}}})
	}
}

func plainAnswer(status int, body string) func(http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	}
}

const agentJSON = `{"id":"agent_1","name":"n","authorizedActions":["purchase"],"spendingLimit":10,"dailyLimit":null,"currency":"USD","environment":"sandbox","status":"active","fingerprint":"sha256:00","createdAt":"2026-11-21T19:51:27.123Z","updatedAt":"2026-11-21T19:51:27.123Z"}`

func dataAnswer(field, value string) func(http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = fmt.Fprintf(w, `{"data":{%q:%s}}`, field, value)
	}
}

// scripted starts s and returns a client of it with fast backoff.
func scripted(t *testing.T, s *script, opts ...func(*client.Options)) *client.Client {
	t.Helper()
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	o := client.Options{APIKey: "key_test", BaseURL: srv.URL, RetryWaitMin: time.Millisecond, RetryWaitMax: 5 * time.Millisecond}
	for _, f := range opts {
		f(&o)
	}
	c, err := client.New(o)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestRetryReadOn5xxThenSuccess(t *testing.T) {
	t.Parallel()
	s := &script{answers: []func(http.ResponseWriter){
		gqlErrorAnswer(503, "INTERNAL", nil),
		plainAnswer(502, "bad gateway"),
		dataAnswer("agent", agentJSON),
	}}
	a, err := scripted(t, s).Agents.Get(context.Background(), "agent_1")
	if err != nil || a.ID != "agent_1" || !a.SpendingLimit.Equal(dec("10")) {
		t.Fatalf("get: %+v %v", a, err)
	}
	if n := s.count(); n != 3 {
		t.Fatalf("%d attempts, want 3", n)
	}
}

func TestRetryHonoursRetryAfter(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"read", "register"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := &script{answers: []func(http.ResponseWriter){
				gqlErrorAnswer(429, "RATE_LIMITED", map[string]any{"retryAfter": 1}, "Retry-After", "1"),
				dataAnswer(map[string]string{"read": "agent", "register": "registerAgent"}[name], agentJSON),
			}}
			c := scripted(t, s)
			start := time.Now()
			var err error
			if name == "read" {
				_, err = c.Agents.Get(context.Background(), "agent_1")
			} else {
				// A 429 is refused before anything runs, so even a
				// mutation that must not run twice is retried.
				_, err = c.Agents.Register(context.Background(), client.RegisterAgentInput{Name: "n"})
			}
			if err != nil || s.count() != 2 {
				t.Fatalf("%v after %d attempts", err, s.count())
			}
			if waited := time.Since(start); waited < time.Second {
				t.Fatalf("retried after %s, before Retry-After", waited)
			}
		})
	}
}

func TestNoRetryOnClientErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		code string
		ext  map[string]any
		is   error
	}{
		{"VALIDATION_FAILED", map[string]any{"fieldErrors": []any{map[string]any{"field": "input.amount", "message": "must be positive"}}}, client.ErrValidation},
		{"POLICY_DENIED", map[string]any{"reasonCode": "trust_too_low", "reason": "score 120 is below 400"}, client.ErrPolicyDenied},
		{"CONFLICT", nil, client.ErrConflict},
		{"NOT_FOUND", nil, client.ErrNotFound},
		{"FORBIDDEN", nil, client.ErrForbidden},
		{"UNAUTHENTICATED", nil, client.ErrUnauthenticated},
	}
	for _, tc := range cases {
		t.Run(tc.code, func(t *testing.T) {
			t.Parallel()
			s := &script{answers: []func(http.ResponseWriter){gqlErrorAnswer(200, tc.code, tc.ext, "X-Request-Id", "req_"+tc.code)}}
			// Execute is retried on failures that may be transient, never on these answers.
			_, err := scripted(t, s).Transactions.Execute(context.Background(), client.ExecuteInput{Amount: dec("1")})
			if !errors.Is(err, tc.is) || s.count() != 1 {
				t.Fatalf("%v after %d attempts", err, s.count())
			}
			var api *client.APIError
			if !errors.As(err, &api) || api.Code != tc.code || api.RequestID != "req_"+tc.code || api.Message != "scripted "+tc.code {
				t.Fatalf("APIError: %#v", api)
			}
			var ve *client.ValidationError
			if errors.As(err, &ve) && (len(ve.FieldErrors) != 1 || ve.FieldErrors[0].Field != "input.amount") {
				t.Fatalf("field errors: %+v", ve.FieldErrors)
			}
			var pd *client.PolicyDeniedError
			if errors.As(err, &pd) && (pd.ReasonCode != "trust_too_low" || pd.Reason != "score 120 is below 400") {
				t.Fatalf("policy: %+v", pd)
			}
		})
	}
}

func TestMutationNotRetriedOnceItReachedTheServer(t *testing.T) {
	t.Parallel()
	hangUp := func(w http.ResponseWriter) {
		conn, _, _ := w.(http.Hijacker).Hijack()
		conn.Close()
	}
	for name, answer := range map[string]func(http.ResponseWriter){"503": gqlErrorAnswer(503, "INTERNAL", nil), "hang up": hangUp} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := &script{answers: []func(http.ResponseWriter){answer, dataAnswer("reverseTransaction", `{}`)}}
			_, err := scripted(t, s).Transactions.Reverse(context.Background(), "tx_1", "r")
			if err == nil || s.count() != 1 {
				t.Fatalf("%v after %d attempts", err, s.count())
			}
		})
	}
	// The same failures are retried for a read.
	s := &script{answers: []func(http.ResponseWriter){hangUp, gqlErrorAnswer(503, "INTERNAL", nil), dataAnswer("transaction", `{"id":"tx_1","amount":1}`)}}
	if tx, err := scripted(t, s).Transactions.Get(context.Background(), "tx_1"); err != nil || tx.ID != "tx_1" || s.count() != 3 {
		t.Fatalf("read: %+v %v after %d attempts", tx, err, s.count())
	}
}

// countingTransport counts round trips.
type countingTransport struct{ n atomic.Int32 }

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.n.Add(1)
	return http.DefaultTransport.RoundTrip(r)
}

func TestMutationRetriedWhenNeverSent(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens: every connection is refused
	rt := &countingTransport{}
	c, err := client.New(client.Options{APIKey: "k", BaseURL: "http://" + addr, MaxRetries: 2, HTTPClient: &http.Client{Transport: rt},
		RetryWaitMin: time.Millisecond, RetryWaitMax: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Agents.Suspend(context.Background(), "agent_1", "")
	if !errors.Is(err, syscall.ECONNREFUSED) || rt.n.Load() != 3 {
		t.Fatalf("%v after %d attempts, want ECONNREFUSED after 3", err, rt.n.Load())
	}
}

func TestRetriesExhaustedAndDisabled(t *testing.T) {
	t.Parallel()
	s := &script{answers: []func(http.ResponseWriter){gqlErrorAnswer(503, "INTERNAL", nil, "X-Request-Id", "req_last")}}
	_, err := scripted(t, s, func(o *client.Options) { o.MaxRetries = 2 }).Trust.Query(context.Background(), "agent_1")
	var api *client.APIError
	if !errors.As(err, &api) || api.StatusCode != 503 || api.RequestID != "req_last" || !errors.Is(err, client.ErrInternal) || s.count() != 3 {
		t.Fatalf("%v after %d attempts", err, s.count())
	}
	s = &script{answers: s.answers}
	if _, err := scripted(t, s, func(o *client.Options) { o.NoRetries = true }).Trust.Query(context.Background(), "agent_1"); err == nil || s.count() != 1 {
		t.Fatalf("NoRetries: %v after %d attempts", err, s.count())
	}
}

func TestRetryBoundedByContext(t *testing.T) {
	t.Parallel()
	s := &script{answers: []func(http.ResponseWriter){gqlErrorAnswer(429, "RATE_LIMITED", map[string]any{"retryAfter": 30}, "Retry-After", "30")}}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := scripted(t, s).Agents.Get(ctx, "agent_1")
	var rl *client.RateLimitError
	if !errors.As(err, &rl) || rl.RetryAfter != 30*time.Second || !errors.Is(err, client.ErrRateLimited) || time.Since(start) > time.Second || s.count() != 1 {
		t.Fatalf("%v after %d attempts and %s", err, s.count(), time.Since(start))
	}

	// Backoff waits end with the context too.
	s = &script{answers: []func(http.ResponseWriter){gqlErrorAnswer(503, "INTERNAL", nil)}}
	ctx, cancel = context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start = time.Now()
	c := scripted(t, s, func(o *client.Options) {
		o.MaxRetries, o.RetryWaitMin, o.RetryWaitMax = 100, 50*time.Millisecond, 50*time.Millisecond
	})
	if _, err := c.Agents.Get(ctx, "agent_1"); err == nil || time.Since(start) > time.Second || s.count() < 2 {
		t.Fatalf("%v after %d attempts and %s", err, s.count(), time.Since(start))
	}
}

func TestHeadersAndLogger(t *testing.T) {
	t.Parallel()
	s := &script{answers: []func(http.ResponseWriter){gqlErrorAnswer(503, "INTERNAL", nil), dataAnswer("agent", agentJSON)}}
	var logs bytes.Buffer
	c := scripted(t, s, func(o *client.Options) {
		o.UserAgent = "shop-bot/1.2"
		o.Logger = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	})
	if _, err := c.Agents.Get(context.Background(), "agent_1"); err != nil {
		t.Fatal(err)
	}
	r := s.req(0)
	if ua := r.Header.Get("User-Agent"); ua != "shop-bot/1.2 agenttrust-go/"+client.Version {
		t.Fatalf("User-Agent %q", ua)
	}
	if r.Header.Get("Authorization") != "Bearer key_test" || r.Method != http.MethodPost || r.URL.Path != "/graphql" {
		t.Fatalf("request: %s %s %v", r.Method, r.URL, r.Header)
	}
	if !strings.Contains(logs.String(), "retrying") || !strings.Contains(logs.String(), "agents.get") {
		t.Fatalf("logs: %q", logs.String())
	}

	s = &script{answers: []func(http.ResponseWriter){dataAnswer("agent", agentJSON)}}
	if _, err := scripted(t, s).Agents.Get(context.Background(), "agent_1"); err != nil {
		t.Fatal(err)
	}
	if ua := s.req(0).Header.Get("User-Agent"); ua != "agenttrust-go/"+client.Version {
		t.Fatalf("default User-Agent %q", ua)
	}
}

// TestExecuteLostAnswerCreatesOneTransaction loses the answer of an execute
// the server committed: the retry carries the same idempotency key and gets
// the original transaction back.
func TestExecuteLostAnswerCreatesOneTransaction(t *testing.T) {
	t.Parallel()
	var (
		mu       sync.Mutex
		keys     []string
		lostBody string
	)
	loseFirst := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			if !bytes.Contains(body, []byte("executeTransaction")) {
				next.ServeHTTP(w, r)
				return
			}
			var req struct {
				Variables struct {
					Input struct{ IdempotencyKey string }
				}
			}
			_ = json.Unmarshal(body, &req)
			mu.Lock()
			keys = append(keys, req.Variables.Input.IdempotencyKey)
			first := len(keys) == 1
			mu.Unlock()
			if !first {
				next.ServeHTTP(w, r)
				return
			}
			rec := httptest.NewRecorder()
			next.ServeHTTP(rec, r) // the server commits...
			mu.Lock()
			lostBody = rec.Body.String()
			mu.Unlock()
			conn, _, _ := w.(http.Hijacker).Hijack()
			conn.Close() // ...and the answer is lost
		})
	}
	b := setupWrapped(t, loseFirst)
	from, to := b.register(b.c, "payer", "100"), b.register(b.c, "payee", "100")
	tx := b.execute(from.ID, to.ID, "42.42")
	mu.Lock()
	defer mu.Unlock()
	if len(keys) != 2 || keys[0] == "" || keys[0] != keys[1] {
		t.Fatalf("idempotency keys sent: %q", keys)
	}
	if !strings.Contains(lostBody, tx.ID) {
		t.Fatalf("the retry returned %s, not the committed transaction: %s", tx.ID, lostBody)
	}
	page, err := b.c.Transactions.List(b.ctx, client.ListTransactionsParams{})
	if err != nil || page.TotalCount != 1 || page.Transactions[0].ID != tx.ID {
		t.Fatalf("transactions: %+v %v", page, err)
	}
	mu.Unlock()
	// A second execute without a key gets a fresh one: it pays again.
	b.execute(from.ID, to.ID, "42.42")
	mu.Lock()
	if len(keys) != 3 || keys[2] == keys[0] {
		t.Fatalf("keys: %q", keys)
	}
}

// TestRetryRealRateLimit lets the real edge refuse a request with 429 and
// Retry-After; the client waits and the retry succeeds.
func TestRetryRealRateLimit(t *testing.T) {
	t.Parallel()
	k := testkit.New(t, func(cfg *httpapi.Config) { cfg.RateLimitRPS, cfg.RateLimitBurst = 1, 1 })
	srv := httptest.NewServer(k.Handler)
	t.Cleanup(srv.Close)
	c, err := client.New(client.Options{APIKey: k.Key, BaseURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Agents.List(context.Background(), client.ListAgentsParams{}); err != nil {
		t.Fatal(err)
	}
	noRetry, _ := client.New(client.Options{APIKey: k.Key, BaseURL: srv.URL, NoRetries: true})
	_, err = noRetry.Agents.List(context.Background(), client.ListAgentsParams{})
	var rl *client.RateLimitError
	if !errors.As(err, &rl) || rl.RetryAfter < time.Second || rl.StatusCode != http.StatusTooManyRequests || rl.RequestID == "" {
		t.Fatalf("over the limit without retries: %#v", err)
	}
	start := time.Now()
	a, err := c.Agents.Register(context.Background(), client.RegisterAgentInput{Name: "patient", AuthorizedActions: []string{"purchase"},
		SpendingLimit: dec("1"), Currency: "USD", Environment: client.Sandbox})
	if err != nil || time.Since(start) < 500*time.Millisecond {
		t.Fatalf("register after a 429: %+v %v in %s", a, err, time.Since(start))
	}
	time.Sleep(time.Second)
	if page, err := c.Agents.List(context.Background(), client.ListAgentsParams{}); err != nil || page.TotalCount != 1 {
		t.Fatalf("one agent expected: %+v %v", page, err)
	}
}

// TestAttemptTimeout bounds each attempt by Options.Timeout: a read that
// timed out is retried, a mutation is not (it may have run).
func TestAttemptTimeout(t *testing.T) {
	t.Parallel()
	slow := func(w http.ResponseWriter) { time.Sleep(400 * time.Millisecond); dataAnswer("agent", agentJSON)(w) }
	s := &script{answers: []func(http.ResponseWriter){slow, dataAnswer("agent", agentJSON)}}
	c := scripted(t, s, func(o *client.Options) { o.Timeout = 100 * time.Millisecond })
	if _, err := c.Agents.Get(context.Background(), "agent_1"); err != nil || s.count() != 2 {
		t.Fatalf("read: %v after %d attempts", err, s.count())
	}
	s = &script{answers: []func(http.ResponseWriter){slow, dataAnswer("suspendAgent", agentJSON)}}
	c = scripted(t, s, func(o *client.Options) { o.Timeout = 100 * time.Millisecond })
	if _, err := c.Agents.Suspend(context.Background(), "agent_1", ""); !errors.Is(err, context.DeadlineExceeded) || s.count() != 1 {
		t.Fatalf("mutation: %v after %d attempts", err, s.count())
	}
}

// GraphQL's own refusal of a variable (its path is ["variable", …]) is a
// *ValidationError naming the field the way the service's fieldErrors do.
func TestVariableCoercionErrorNamesTheField(t *testing.T) {
	t.Parallel()
	s := &script{answers: []func(http.ResponseWriter){func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/graphql-response+json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = io.WriteString(w, `{"errors":[{"message":"cannot be null","path":["variable","input","authorizedActions",1],`+
			`"extensions":{"code":"GRAPHQL_VALIDATION_FAILED"}}],"data":null}`)
	}}}
	_, err := scripted(t, s).Agents.Register(context.Background(), client.RegisterAgentInput{Name: "x", SpendingLimit: dec("1")})
	var ve *client.ValidationError
	if !errors.As(err, &ve) || !errors.Is(err, client.ErrValidation) || ve.StatusCode != http.StatusBadRequest ||
		len(ve.FieldErrors) != 1 || ve.FieldErrors[0] != (client.FieldError{Field: "input.authorizedActions[1]", Message: "cannot be null"}) {
		t.Fatalf("%#v", err)
	}
	if want := "invalid input: input.authorizedActions[1]: cannot be null"; ve.Message != want {
		t.Fatalf("message %q, want %q", ve.Message, want)
	}
}
