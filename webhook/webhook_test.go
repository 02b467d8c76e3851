package webhook_test

import (
	"cmp"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/agenttrust/service/failure"
	"github.com/agenttrust/service/webhook"
)

func TestSignatureVerifiesWithTheReferenceLibrary(t *testing.T) {
	t.Parallel()
	a, b := webhook.NewSecret(), webhook.NewSecret()
	if !strings.HasPrefix(a, "whsec_") || len(a) != len("whsec_")+44 || a == b {
		t.Fatalf("secrets %q %q", a, b)
	}
	body := webhook.Body("evt_1", "agent.registered", time.Date(2026, 11, 21, 19, 51, 27, 123e6, time.UTC), []byte(`{"agent_id":"agent_1"}`))
	if string(body) != `{"id":"evt_1","type":"agent.registered","timestamp":"2026-11-21T19:51:27.123Z","data":{"agent_id":"agent_1"}}` {
		t.Fatalf("body %s", body)
	}
	h := http.Header{}
	if err := webhook.SetHeaders(h, []string{a, b}, "evt_1", time.Now(), body); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{a, b} {
		wh, _ := standardwebhooks.NewWebhook(s)
		if err := wh.Verify(body, h); err != nil {
			t.Fatalf("verify under one of two secrets: %v", err)
		}
	}
	wh, _ := standardwebhooks.NewWebhook(webhook.NewSecret())
	if wh.Verify(body, h) == nil {
		t.Fatal("verified under an unrelated secret")
	}
	wa, _ := standardwebhooks.NewWebhook(a)
	if wa.Verify(append(body[:len(body)-1:len(body)-1], ' ', '}'), h) == nil {
		t.Fatal("verified a changed body")
	}
	if _, err := webhook.Signature([]string{"nope"}, "evt_1", time.Now(), body); err == nil {
		t.Fatal("signed with a malformed secret")
	}
}

// Signing keeps keyed HMAC states per secret and signs again with them: a
// state used before signs the next body as a new one does, concurrently
// too, and so do secrets past the bound that empties the store.
func TestSignaturesStayValidAcrossReuse(t *testing.T) {
	t.Parallel()
	secrets := make([]string, 5000) // past maxMacSecrets (4096)
	for i := range secrets {
		secrets[i] = webhook.NewSecret()
	}
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i, s := range secrets {
				if i%4 != w && i%100 != 0 { // every 100th secret by all four at once
					continue
				}
				wh, _ := standardwebhooks.NewWebhook(s)
				for round := range 2 {
					body := fmt.Appendf(nil, `{"i":%d,"round":%d}`, i, round)
					h := http.Header{}
					if err := webhook.SetHeaders(h, []string{s}, fmt.Sprintf("evt_%d", i), time.Now(), body); err != nil {
						t.Error(err)
						return
					}
					if err := wh.Verify(body, h); err != nil {
						t.Errorf("secret %d, signature %d: %v", i, round+1, err)
						return
					}
				}
			}
		})
	}
	wg.Wait()
}

func TestValidate(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		in    webhook.RegisterInput
		field string // "" when valid
	}{
		{"ok", webhook.RegisterInput{URL: "https://example.com/hook", Events: []string{"*"}}, ""},
		{"types", webhook.RegisterInput{URL: "https://example.com/hook", Events: []string{"agent.registered", "webhook.disabled"}}, ""},
		{"http", webhook.RegisterInput{URL: "http://example.com/hook", Events: []string{"*"}}, "input.url"},
		{"empty url", webhook.RegisterInput{Events: []string{"*"}}, "input.url"},
		{"no host", webhook.RegisterInput{URL: "https:///x", Events: []string{"*"}}, "input.url"},
		{"credentials", webhook.RegisterInput{URL: "https://u:p@example.com/", Events: []string{"*"}}, "input.url"},
		{"too long", webhook.RegisterInput{URL: "https://example.com/" + strings.Repeat("a", 2030), Events: []string{"*"}}, "input.url"},
		{"no events", webhook.RegisterInput{URL: "https://example.com/", Events: nil}, "input.events"},
		{"unknown", webhook.RegisterInput{URL: "https://example.com/", Events: []string{"agent.registered", "nope"}}, "input.events[1]"},
		{"test type", webhook.RegisterInput{URL: "https://example.com/", Events: []string{webhook.TypeTest}}, "input.events[0]"},
		{"wildcard and more", webhook.RegisterInput{URL: "https://example.com/", Events: []string{"*", "agent.registered"}}, "input.events[0]"},
	} {
		err := tc.in.Validate()
		fe := failure.As(err)
		switch {
		case tc.field == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.field != "" && (fe == nil || fe.Code != failure.ValidationFailed || fe.FieldErrors[0].Field != tc.field):
			t.Errorf("%s: %v, want a field error on %s", tc.name, err, tc.field)
		}
	}
}

func TestScheduleDelay(t *testing.T) {
	t.Parallel()
	s, err := webhook.ParseSchedule(webhook.DefaultSchedule)
	if err != nil || s.Attempts() != 10 || s[0] != 5*time.Second || s[8] != 24*time.Hour {
		t.Fatalf("default schedule %v %v", s, err)
	}
	for _, bad := range []string{"", "5s,,5m", "-1s", "0s", "soon"} {
		if _, err := webhook.ParseSchedule(bad); err == nil {
			t.Errorf("ParseSchedule(%q) accepted", bad)
		}
	}
	for range 100 {
		if d := s.Delay(1, 0); d < 4500*time.Millisecond || d > 5500*time.Millisecond {
			t.Fatalf("first retry after %s, want 5s ±10%%", d)
		}
		if d := s.Delay(2, 0); d < 270*time.Second || d > 330*time.Second {
			t.Fatalf("second retry after %s, want 5m ±10%%", d)
		}
	}
	if d := s.Delay(1, time.Minute); d != time.Minute {
		t.Fatalf("Retry-After 1m within bounds: %s", d)
	}
	if d := s.Delay(2, time.Second); d != 5*time.Minute {
		t.Fatalf("Retry-After shorter than the schedule: %s, want the schedule's 5m", d)
	}
	if d := s.Delay(1, 100*time.Hour); d != 24*time.Hour {
		t.Fatalf("Retry-After beyond the longest delay: %s, want 24h", d)
	}
}

func TestTallyAttemptsInTheOrderTheyEnded(t *testing.T) {
	t.Parallel()
	ok, fail, gone := webhook.Attempt{StatusCode: 204}, webhook.Attempt{StatusCode: 500}, webhook.Attempt{StatusCode: 410}
	noAnswer := webhook.Attempt{Err: "timed out waiting for the endpoint"}
	for _, c := range []struct {
		name     string
		attempts []webhook.Attempt
		prev     int
		want     int
		reason   string
	}{
		{"all succeed", []webhook.Attempt{ok, ok}, 7, 0, ""},
		{"failures add to the count", []webhook.Attempt{fail, noAnswer}, 1, 3, ""},
		{"only failures after the last success count", []webhook.Attempt{fail, fail, ok, fail}, 2, 1, ""},
		{"a success last clears the count", []webhook.Attempt{fail, ok}, 4, 0, ""},
		{"reaching the limit disables", []webhook.Attempt{fail, fail}, 3, 5, "5 consecutive failed attempts"},
		{"a success under the limit keeps it active", []webhook.Attempt{fail, fail, fail, fail, fail, ok, fail}, 0, 1, ""},
		{"410 disables at once", []webhook.Attempt{gone, ok}, 0, 0, "the endpoint answered 410 Gone"},
		{"a count over the limit left by others does not disable without a failure here", []webhook.Attempt{}, 9, 9, ""},
		{"a 3xx is a failure", []webhook.Attempt{{StatusCode: 302}}, 0, 1, ""},
	} {
		tally := webhook.TallyAttempts(c.attempts)
		got := tally.Apply(c.prev)
		if got != c.want {
			t.Errorf("%s: count %d → %d, want %d", c.name, c.prev, got, c.want)
		}
		if r := webhook.DisableReason(tally, got, 5); r != c.reason {
			t.Errorf("%s: disable reason %q, want %q", c.name, r, c.reason)
		}
	}
}

// A delivery job's arguments name the organization, the endpoint and the
// events' sequence numbers in the compact form, and nothing else.
func TestDeliveryJobArgs(t *testing.T) {
	t.Parallel()
	job := webhook.DeliveryJob{OrgID: "org_1", WebhookID: "wh_1", Seqs: webhook.EncodeSeqs([]int64{7, 9, 10, 11})}
	raw, err := json.Marshal(job)
	if err != nil || string(raw) != `{"org_id":"org_1","webhook_id":"wh_1","seqs":"7,2.2"}` {
		t.Fatalf("job args %s (%v)", raw, err)
	}
	if seqs, err := job.EventSeqs(); err != nil || !slices.Equal(seqs, []int64{7, 9, 10, 11}) {
		t.Fatalf("job events %v (%v)", seqs, err)
	}
}

// Body builds by hand what json.Marshal makes of a Message: the same bytes
// whatever the data holds (spacing, HTML characters, line separators).
func TestBodyIsWhatMarshalMakes(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 21, 19, 51, 27, 123e6, time.UTC)
	for _, data := range []string{
		`{"agent_id": "agent_1", "n": [1, 2, {"x": null}]}`,
		`{"note": "a <b> & c", "sep": "\u2028 \u2029", "raw": "x` + "\u2028" + `y"}`,
		`{"quote": "say \"hi\"\n", "unicode": "éß✓"}`,
		"{\n \"a\" :\t\"x  y \\\\\" ,\r\n\"b\":[ 1 , 2 ] }",
		``,
	} {
		for _, id := range []string{"evt_1", `odd"id<&>` + "\x01é"} {
			want, err := json.Marshal(webhook.Message{ID: id, Type: "agent.registered", Timestamp: "2026-11-21T19:51:27.123Z", Data: json.RawMessage(cmp.Or(data, "{}"))})
			if err != nil {
				t.Fatal(err)
			}
			if got := webhook.Body(id, "agent.registered", at, json.RawMessage(data)); string(got) != string(want) {
				t.Errorf("Body(%q, %s)\n got %s\nwant %s", id, data, got, want)
			}
		}
	}
}

// BenchmarkBody builds the body of a typical event: its data as the log's
// jsonb gives it back (a space after every colon and comma).
func BenchmarkBody(b *testing.B) {
	data := json.RawMessage(`{"id": "agent_2rhupb5n2lxyxykkcg7qiwi5oy", "name": "bench agent 17", "status": "active", "org_id": "org_bench_a", "currency": "USD", "created_at": "2026-11-23T05:27:00.778Z", "daily_limit": null, "environment": "sandbox", "spending_limit": "100.00", "authorized_actions": ["purchase", "refund", "transfer"]}`)
	at := time.Date(2026, 11, 21, 19, 51, 27, 123e6, time.UTC)
	b.ReportAllocs()
	for b.Loop() {
		webhook.Body("evt_uvuqrhw35sae47t4nipzhgcfuy", "agent.registered", at, data)
	}
}

// BenchmarkSetHeaders signs a 500-byte body under one secret, as every
// delivery to an endpoint does.
func BenchmarkSetHeaders(b *testing.B) {
	secret := webhook.NewSecret()
	body := make([]byte, 500)
	b.ReportAllocs()
	for b.Loop() {
		if err := webhook.SetHeaders(make(http.Header, 5), []string{secret}, "evt_1", time.Now(), body); err != nil {
			b.Fatal(err)
		}
	}
}

// Body makes a body whose id, type and data need no escaping (the usual
// case: the log's data as our encoders wrote it) in the one buffer it starts
// with. Not parallel: AllocsPerRun counts the whole process's allocations.
func TestBodyAllocatesOnce(t *testing.T) {
	at := time.Date(2026, 11, 21, 19, 51, 27, 123e6, time.UTC)
	data := json.RawMessage(`{"agent":{"id":"agent_2rhupb5n2lxyxykkcg7qiwi5oy","name":"bench","spending_limit":"10.00"}}`)
	if n := testing.AllocsPerRun(100, func() { webhook.Body("evt_1", "agent.registered", at, data) }); n != 1 {
		t.Errorf("Body allocated %v times, want 1", n)
	}
}
