package delivery

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/agenttrust/service/db/dbtest"
	"github.com/agenttrust/service/webhook"
)

// lines is a slog handler that keeps every record's level and message.
type lines struct {
	mu  sync.Mutex
	got []slog.Record
}

func (l *lines) Enabled(context.Context, slog.Level) bool { return true }
func (l *lines) Handle(_ context.Context, r slog.Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.got = append(l.got, r)
	return nil
}
func (l *lines) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l *lines) WithGroup(string) slog.Handler      { return l }

// atLeast returns the messages of the records at level or above.
func (l *lines) atLeast(level slog.Level) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, r := range l.got {
		if r.Level >= level {
			out = append(out, r.Level.String()+" "+r.Message)
		}
	}
	return out
}

// TestOutageHandlerLogsEachStateChangeOnce: while the database answers,
// warnings pass; once it does not, a burst of errors from several
// components becomes one line, and its return one more, which counts them;
// warnings pass again after it.
func TestOutageHandlerLogsEachStateChangeOnce(t *testing.T) {
	t.Parallel()
	var down atomic.Bool
	probes := atomic.Int64{}
	probe := func(context.Context) error {
		probes.Add(1)
		if down.Load() {
			return errors.New("connection refused")
		}
		return nil
	}
	out := &lines{}
	h := newOutageHandler(out, probe)
	h.state.every = 10 * time.Millisecond
	log := slog.New(h)
	log.Warn("a warning while the database answers")
	if got := out.atLeast(slog.LevelWarn); len(got) != 1 {
		t.Fatalf("logged %q, want the warning", got)
	}

	down.Store(true)
	time.Sleep(20 * time.Millisecond) // past the last probe's answer
	var wg sync.WaitGroup
	for i := range 5 {
		c := log.With("component", i)
		wg.Go(func() {
			for range 10 {
				c.Error("fetch jobs", "err", "connection refused")
			}
		})
	}
	wg.Wait()
	if got := out.atLeast(slog.LevelWarn); len(got) != 2 || !strings.Contains(got[1], "database unreachable") {
		t.Fatalf("logged %q during the outage, want the warning and one outage line", got)
	}
	if n := probes.Load(); n > 3 {
		t.Fatalf("%d probes for one burst of errors, want the first record's only", n)
	}

	down.Store(false)
	deadline := time.Now().Add(5 * time.Second)
	for len(out.atLeast(slog.LevelInfo)) < 3 {
		if time.Now().After(deadline) {
			t.Fatalf("no line for the database's return: %q", out.atLeast(slog.LevelInfo))
		}
		time.Sleep(5 * time.Millisecond)
	}
	out.mu.Lock()
	back := out.got[2]
	out.mu.Unlock()
	var dropped int64
	back.Attrs(func(a slog.Attr) bool {
		if a.Key == "errors_dropped" {
			dropped = a.Value.Int64()
		}
		return true
	})
	if back.Message != "database reachable again" || dropped != 50 {
		t.Fatalf("return logged as %q with %d errors dropped, want 50", back.Message, dropped)
	}
	log.Error("an error once the database answers")
	if got := out.atLeast(slog.LevelInfo); len(got) != 4 {
		t.Fatalf("logged %q, want the error after the return", got)
	}
}

// TestRiverLogsAnOutageTwice runs River's client, with the handler New
// gives it, through a proxy to Postgres that refuses connections for a
// while: River's loops fail at every poll, and the log holds one line for
// the outage and one for its end.
func TestRiverLogsAnOutageTwice(t *testing.T) {
	t.Parallel()
	_, dbURL := dbtest.NewWithURL(t)
	px := newProxy(t, dbURL)
	ctx := t.Context()
	cfg, err := pgxpool.ParseConfig(px.url)
	if err != nil {
		t.Fatal(err)
	}
	cfg.ConnConfig.ConnectTimeout = time.Second
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	out := &lines{}
	workers := river.NewWorkers()
	river.AddWorker(workers, &worker{})
	client, err := river.NewClient(riverpgxv5.New(pool), &river.Config{
		Queues:            map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: 2}},
		Workers:           workers,
		FetchCooldown:     20 * time.Millisecond,
		FetchPollInterval: 50 * time.Millisecond,
		Logger:            slog.New(newOutageHandler(out, pool.Ping)),
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := client.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer client.Stop(context.WithoutCancel(ctx)) //nolint:errcheck
	time.Sleep(500 * time.Millisecond)
	if got := out.atLeast(slog.LevelWarn); len(got) != 0 {
		t.Fatalf("logged %q before the outage", got)
	}

	px.refuse(true)
	time.Sleep(3 * time.Second)
	during := out.atLeast(slog.LevelWarn)
	px.refuse(false)
	if len(during) != 1 || !strings.Contains(during[0], "database unreachable") {
		t.Fatalf("logged %q during a 3 s outage, want one line", during)
	}
	deadline := time.Now().Add(10 * time.Second)
	for len(out.atLeast(slog.LevelInfo)) < 2 {
		if time.Now().After(deadline) {
			t.Fatalf("no line for the end of the outage: %q", out.atLeast(slog.LevelInfo))
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(time.Second)
	if got := out.atLeast(slog.LevelWarn); len(got) != 1 {
		t.Fatalf("logged %q after the outage, want nothing more", got)
	}
	// River reaches the database again (the job is due long after the test).
	job := webhook.DeliveryJob{OrgID: "org_none", WebhookID: "wh_none", Seqs: "1"}
	if _, err := client.Insert(ctx, job, &river.InsertOpts{ScheduledAt: time.Now().Add(time.Hour)}); err != nil {
		t.Fatalf("insert after the outage: %v", err)
	}
}

// proxy forwards TCP connections to Postgres, or, while refusing, closes
// them (and every connection it holds) at once.
type proxy struct {
	url     string
	target  string
	mu      sync.Mutex
	refused bool
	conns   map[net.Conn]bool
}

func newProxy(t *testing.T, dbURL string) *proxy {
	t.Helper()
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	p := &proxy{target: u.Host, conns: map[net.Conn]bool{}}
	u.Host = ln.Addr().String()
	p.url = u.String()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go p.serve(c)
		}
	}()
	return p
}

func (p *proxy) serve(c net.Conn) {
	p.mu.Lock()
	if p.refused {
		p.mu.Unlock()
		c.Close()
		return
	}
	up, err := net.Dial("tcp", p.target)
	if err != nil {
		p.mu.Unlock()
		c.Close()
		return
	}
	p.conns[c], p.conns[up] = true, true
	p.mu.Unlock()
	go p.pipe(up, c)
	p.pipe(c, up)
}

// pipe copies src to dst until either ends or the outage starts: once
// refused is set, no byte crosses, even on a connection refuse has not
// closed yet, so no probe can pass during the outage.
func (p *proxy) pipe(dst, src net.Conn) {
	defer dst.Close()
	defer src.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			p.mu.Lock()
			refused := p.refused
			p.mu.Unlock()
			if refused {
				return
			}
			if _, err := dst.Write(buf[:n]); err != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// refuse starts or ends the outage.
func (p *proxy) refuse(on bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.refused = on
	if on {
		for c := range p.conns {
			c.Close()
		}
		clear(p.conns)
	}
}
