package chaos

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/agenttrust/service/bench/promtext"
	"github.com/agenttrust/service/client"
)

// agents registers n agents of the organization that may purchase up to
// 1,000 USD at a time, with the daily limit given (nil: none).
func (e *env) agents(ctx context.Context, c *client.Client, n int, daily *decimal.Decimal) []string {
	e.t.Helper()
	out := make([]string, n)
	for i := range out {
		a, err := c.Agents.Register(ctx, client.RegisterAgentInput{Name: fmt.Sprintf("chaos-%d", i), AuthorizedActions: []string{"purchase"},
			SpendingLimit: decimal.NewFromInt(1000), Currency: "USD", Environment: client.Sandbox, DailyLimit: daily})
		if err != nil {
			e.t.Fatalf("register agent: %v", err)
		}
		out[i] = a.ID
	}
	return out
}

// subscriber is one live subscription through the client library (which
// reconnects and resumes after the last event it delivered).
type subscriber struct {
	name string
	st   *client.EventStream
	mu   sync.Mutex
	ids  []string
	done chan struct{}
}

// subscribe streams every event after the event id after ("" : live only).
// Without after, the stream starts at the log's position when the server
// acknowledged the connection, before Subscribe returns: nothing committed
// afterwards is missed, registered by the server yet or not.
func (e *env) subscribe(ctx context.Context, s *server, name, after string) *subscriber {
	e.t.Helper()
	return e.subscribeAt(ctx, s.URL, name, client.SubscribeOptions{After: after})
}

// subscribeAt subscribes through the client library at base and collects
// the ids it delivers until the test ends.
func (e *env) subscribeAt(ctx context.Context, base, name string, opts client.SubscribeOptions) *subscriber {
	e.t.Helper()
	c, err := client.New(client.Options{APIKey: e.key, BaseURL: base, Timeout: 10 * time.Second,
		RetryWaitMin: 100 * time.Millisecond, RetryWaitMax: time.Second})
	if err != nil {
		e.t.Fatal(err)
	}
	st, err := c.Events.Subscribe(ctx, opts)
	if err != nil {
		e.t.Fatalf("subscribe %s: %v", name, err)
	}
	sub := &subscriber{name: name, st: st, done: make(chan struct{})}
	go func() {
		defer close(sub.done)
		for ev := range st.Events() {
			sub.mu.Lock()
			sub.ids = append(sub.ids, ev.ID)
			sub.mu.Unlock()
		}
	}()
	e.t.Cleanup(func() { st.Close(); <-sub.done })
	return sub
}

// liveSubscriptions is the server's att_live_subscriptions (-1 when its
// /metrics cannot be read).
func liveSubscriptions(s *server) float64 {
	m, err := promtext.Scrape(s.URL)
	if err != nil {
		return -1
	}
	return m["att_live_subscriptions"]
}

func (s *subscriber) received() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.ids...)
}

// check waits until the subscriber received len(want) events, then reports
// how its stream differs from want (the log, in log order): a missing,
// repeated or reordered event.
func (s *subscriber) check(want []string, timeout time.Duration) string {
	eventually(timeout, func() bool { return len(s.received()) >= len(want) })
	time.Sleep(200 * time.Millisecond) // a repeat would come right after
	got := s.received()
	if err := s.st.Err(); err != nil {
		return fmt.Sprintf("%s: stream ended: %v", s.name, err)
	}
	return compareStreams(s.name, got, want)
}

// compareStreams reports how a stream's events (got) differ from want (the
// log, in log order): a missing, repeated or reordered event ("" if none).
func compareStreams(name string, got, want []string) string {
	seen := map[string]int{}
	for _, id := range got {
		seen[id]++
	}
	for id, n := range seen {
		if n > 1 {
			return fmt.Sprintf("%s: event %s received %d times", name, id, n)
		}
	}
	for _, id := range want {
		if seen[id] == 0 {
			return fmt.Sprintf("%s: received %d of %d events; %s is missing", name, len(got), len(want), id)
		}
	}
	if len(got) != len(want) {
		return fmt.Sprintf("%s: received %d events, the log holds %d", name, len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			return fmt.Sprintf("%s: event %d is %s, the log has %s there", name, i, got[i], want[i])
		}
	}
	return ""
}

// orphanedJobs counts the delivery jobs marked running: after a SIGKILL,
// the jobs the dead process had fetched.
func (e *env) orphanedJobs(ctx context.Context) int {
	var n int
	if err := e.sql.QueryRowContext(ctx, `SELECT count(*) FROM river_job WHERE state = 'running'`).Scan(&n); err != nil {
		e.t.Fatalf("count running jobs: %v", err)
	}
	return n
}

// rescueOrphans fast-forwards River's clocks for a dead process, as the
// short form may not wait for them: its leadership lease (15 s) ends now,
// and the jobs it left running look older than the rescue delay (2 × the
// server's 1 minute job timeout), so the new process's rescuer retries them
// at its first pass. What happens next is River's and the service's own
// doing; the long form waits the real delays instead.
func (e *env) rescueOrphans(ctx context.Context) {
	for _, q := range []string{
		`UPDATE river_job SET attempted_at = attempted_at - interval '1 hour' WHERE state = 'running'`,
		`DELETE FROM river_leader`,
	} {
		if _, err := e.sql.ExecContext(ctx, q); err != nil {
			e.t.Fatalf("%s: %v", q, err)
		}
	}
}

// rebuildTrust runs `agenttrust trust rebuild` (the operator's check that
// the stored trust counters match a replay of the raw records) and returns
// how many agents drifted.
func (e *env) rebuildTrust(ctx context.Context) (int, error) {
	cmd := exec.CommandContext(ctx, serverBinary(e.t), "trust", "rebuild")
	cmd.Env = append(cmd.Environ(), "DATABASE_URL="+e.dbURL, "ENCRYPTION_KEY="+e.encKey, "LOG_LEVEL=error")
	out, err := cmd.Output()
	var res struct {
		Drifted int `json:"drifted"`
	}
	if jerr := json.Unmarshal(out, &res); jerr != nil {
		return 0, fmt.Errorf("trust rebuild: %v: %s", err, out)
	}
	return res.Drifted, nil
}

// verifyChains asks the service to re-walk every agent's audit chain.
func verifyChains(ctx context.Context, c *client.Client, agents []string) []string {
	var broken []string
	for _, id := range agents {
		v, err := c.Agents.Verify(ctx, id)
		if err != nil || !v.Verified || !v.AuditChainValid {
			broken = append(broken, fmt.Sprintf("agent %s: verify %+v %v", id, v, err))
		}
	}
	return broken
}

// duplicates counts the deliveries beyond the first of each event.
func duplicates(counts map[string]int) int {
	n := 0
	for _, c := range counts {
		n += max(c-1, 0)
	}
	return n
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

func join(parts ...string) string {
	var out []string
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, "; ")
}

// stopwatch logs how long each step of a scenario took.
type stopwatch struct {
	t     *testing.T
	start time.Time
	last  time.Time
}

func newStopwatch(t *testing.T) *stopwatch {
	now := time.Now()
	return &stopwatch{t: t, start: now, last: now}
}

func (s *stopwatch) lap(step string) {
	s.t.Helper()
	now := time.Now()
	s.t.Logf("%-40s %7s (at %s)", step, now.Sub(s.last).Round(10*time.Millisecond), now.Sub(s.start).Round(10*time.Millisecond))
	s.last = now
}
