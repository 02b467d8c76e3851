package policy

import (
	"slices"
	"testing"
	"time"

	"github.com/agenttrust/service/money"
)

// The replay's edges are Party.Edges, sorted and without repeats.
func TestReplayEdgesAreThePartys(t *testing.T) {
	t.Parallel()
	daily := money.MustParse("100")
	limit := func(w LimitWindow, m WindowMode) SpendLimit { return SpendLimit{Amount: daily, Window: w, Mode: m} }
	p := Party{DailyLimit: &daily, Policy: SpendPolicy{Timezone: "America/New_York",
		SpendLimits: []SpendLimit{limit(WindowWeek, ModeCalendar), limit(WindowMonth, ModeRolling), limit(WindowTotal, ModeRolling),
			limit(WindowDay, ModeCalendar), {Amount: daily, Window: WindowDay, Mode: ModeRolling, Actions: []string{"pay"}}},
		VelocityLimits: []VelocityLimit{{MaxCount: 1, WindowSeconds: 86400}, {MaxCount: 2, WindowSeconds: 60}}}}
	s := newReplayState(Replay{Sender: p})
	for now := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC); now.Before(time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)); now = now.Add(97 * time.Minute) {
		want := p.Edges(now)
		slices.SortFunc(want, time.Time.Compare)
		want = slices.CompactFunc(want, time.Time.Equal)
		if got := s.edges(now); !slices.EqualFunc(got, want, time.Time.Equal) {
			t.Fatalf("at %v: edges %v, want %v", now, got, want)
		}
	}
}
