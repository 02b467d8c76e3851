package delivery

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// outageHandler is a slog.Handler for River's logger that turns an outage
// of the database into two lines: River's loops (fetches, leader election,
// maintenance) each log an error at every failed poll while Postgres is
// down. The first warning or error is checked against the database (probe);
// if it does not answer, one line says so and every warning and error after
// it is dropped until the database answers again, which one more line says.
// Records while the database answers pass as they are.
type outageHandler struct {
	next  slog.Handler
	state *outageState
}

// outageState is shared by a handler and those derived from it (WithAttrs,
// WithGroup), so that River's components share one outage.
type outageState struct {
	probe func(context.Context) error
	base  slog.Handler // the unwrapped handler, for the outage's own lines
	every time.Duration

	mu      sync.Mutex // held while checking, so a burst of records probes once
	down    bool
	since   time.Time // when the outage began
	dropped int       // records dropped during it
	checked time.Time // when the database last answered a probe
}

// probeEvery is how often an outage is checked for its end; a database that
// answered a probe this recently is taken to answer still.
const probeEvery = time.Second

func newOutageHandler(next slog.Handler, probe func(context.Context) error) *outageHandler {
	return &outageHandler{next: next, state: &outageState{probe: probe, base: next, every: probeEvery}}
}

// Enabled reports what the wrapped handler reports.
func (h *outageHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.next.Enabled(ctx, l)
}

// WithAttrs returns a handler with attrs that shares h's outage.
func (h *outageHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &outageHandler{next: h.next.WithAttrs(attrs), state: h.state}
}

// WithGroup returns a handler with the group that shares h's outage.
func (h *outageHandler) WithGroup(name string) slog.Handler {
	return &outageHandler{next: h.next.WithGroup(name), state: h.state}
}

// Handle passes r on unless the database is down and r is a warning or an
// error.
func (h *outageHandler) Handle(ctx context.Context, r slog.Record) error {
	if r.Level < slog.LevelWarn || !h.state.unreachable(ctx, r) {
		return h.next.Handle(ctx, r)
	}
	return nil
}

// unreachable reports whether the database is down, checking it first
// unless it answered lately; the record that finds an outage starts it.
func (s *outageState) unreachable(ctx context.Context, r slog.Record) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.down {
		s.dropped++
		return true
	}
	if time.Since(s.checked) < s.every {
		return false
	}
	err := s.check(ctx)
	if err == nil {
		s.checked = time.Now()
		return false
	}
	s.down, s.since, s.dropped = true, time.Now(), 1
	s.line(ctx, slog.LevelError, "database unreachable: webhook delivery waits for it; its errors are logged again once it answers",
		slog.String("err", err.Error()), slog.String("first", r.Message))
	go s.watch()
	return true
}

// watch probes the database until it answers, then ends the outage.
func (s *outageState) watch() {
	for {
		time.Sleep(s.every)
		if s.check(context.Background()) == nil {
			break
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.checked = time.Now()
	s.line(context.Background(), slog.LevelInfo, "database reachable again",
		slog.Duration("down_for", time.Since(s.since).Round(time.Millisecond)), slog.Int("errors_dropped", s.dropped))
	s.down = false
}

// check probes the database, within probeEvery.
func (s *outageState) check(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.every)
	defer cancel()
	return s.probe(ctx)
}

// line logs one of the outage's own lines.
func (s *outageState) line(ctx context.Context, level slog.Level, msg string, attrs ...slog.Attr) {
	if s.base.Enabled(ctx, level) {
		r := slog.NewRecord(time.Now(), level, msg, 0)
		r.AddAttrs(attrs...)
		_ = s.base.Handle(ctx, r)
	}
}
