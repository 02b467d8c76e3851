package policy

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/agenttrust/service/money"
)

// Rolling window lengths.
const (
	// RollingWeek is the length of a rolling week.
	RollingWeek = 7 * 24 * time.Hour
	// RollingMonth is the length of a rolling month.
	RollingMonth = 30 * 24 * time.Hour
)

// Span is the part of time a window covers at some moment: outflows at or
// after From count (rolling windows exclude From itself: an outflow exactly
// a window old has left it). Until is when a calendar window resets; zero
// for rolling and total windows.
type Span struct {
	From      time.Time
	Inclusive bool // whether an outflow exactly at From counts
	Until     time.Time
	Rolling   time.Duration // the window's length when rolling
}

// Contains reports whether an outflow at t counts in the span. Outflows
// dated after now (clock skew) count too, erring on the safe side.
func (s Span) Contains(t time.Time) bool {
	if s.Inclusive {
		return !t.Before(s.From)
	}
	return t.After(s.From)
}

// SpanAt returns the span l covers at now, calendar windows in loc.
func (l SpendLimit) SpanAt(now time.Time, loc *time.Location) Span {
	if l.Window == WindowTotal {
		return Span{Inclusive: true}
	}
	if l.Mode == ModeRolling {
		d := rollingLength(l.Window)
		return Span{From: now.Add(-d), Rolling: d}
	}
	local := now.In(loc)
	y, m, d := local.Date()
	switch l.Window {
	case WindowWeek:
		d -= (int(local.Weekday()) + 6) % 7 // back to Monday, as ISO weeks start
		return Span{From: dayStart(y, m, d, loc), Inclusive: true, Until: dayStart(y, m, d+7, loc)}
	case WindowMonth:
		return Span{From: dayStart(y, m, 1, loc), Inclusive: true, Until: dayStart(y, m+1, 1, loc)}
	default:
		return Span{From: dayStart(y, m, d, loc), Inclusive: true, Until: dayStart(y, m, d+1, loc)}
	}
}

// dayStart is the first instant of a day in loc (d may overflow the month,
// as in time.Date). Where a change of offset skips midnight (daylight saving
// time starting at 00:00, as in America/Havana), the day begins when the
// skipped hour ends, not at the midnight time.Date normalizes into the day
// before.
func dayStart(y int, m time.Month, d int, loc *time.Location) time.Time {
	t := time.Date(y, m, d, 0, 0, 0, 0, loc)
	if _, _, td := t.Date(); td != time.Date(y, m, d, 12, 0, 0, 0, loc).Day() {
		_, end := t.ZoneBounds()
		return end
	}
	return t
}

func rollingLength(w LimitWindow) time.Duration {
	switch w {
	case WindowWeek:
		return RollingWeek
	case WindowMonth:
		return RollingMonth
	default:
		return Window
	}
}

// Counts reports whether an outflow for action counts toward a limit
// restricted to actions (nil = every action).
func Counts(actions []string, action string) bool {
	return actions == nil || slices.Contains(actions, action)
}

// windowCode is the refusal code of a window.
func windowCode(w LimitWindow) string {
	switch w {
	case WindowWeek:
		return ReasonWeeklyLimitExceeded
	case WindowMonth:
		return ReasonMonthlyLimitExceeded
	case WindowTotal:
		return ReasonTotalLimitExceeded
	default:
		return ReasonDailyLimitExceeded
	}
}

// windowNoun names a window in a reason ("the weekly limit").
func windowNoun(w LimitWindow) string {
	switch w {
	case WindowWeek:
		return "weekly"
	case WindowMonth:
		return "monthly"
	case WindowTotal:
		return "total"
	default:
		return "daily"
	}
}

// checkLimit is one spend limit's verdict on amount: ok, or a refusal's
// reason. limit is already scaled by the applying trust tier.
func checkLimit(in Input, l SpendLimit, limit money.Amount, loc *time.Location) (remaining money.Amount, reason string, ok bool) {
	span, live, spent := windowUse(in, l, loc)
	remaining = limit.Sub(spent)
	if in.Amount.Cmp(remaining) <= 0 {
		return remaining, "", true
	}
	return remaining, limitReason(in, l, span, live, limit, spent, remaining, loc), false
}

// windowUse is what l counts at in.Now: its span, the outflows in it on its
// actions, and their sum. The check and the usage both read it.
func windowUse(in Input, l SpendLimit, loc *time.Location) (span Span, live []Outflow, spent money.Amount) {
	span = l.SpanAt(in.Now, loc)
	for _, o := range in.Outflow {
		if span.Contains(o.At) && Counts(l.Actions, o.Action) {
			live = append(live, o)
			spent = spent.Add(o.Amount)
		}
	}
	return span, live, spent
}

// limitReason explains a window refusal: the limit, what was used, what
// remains, and when enough frees up (rolling) or the window resets (calendar).
func limitReason(in Input, l SpendLimit, span Span, live []Outflow, limit, spent, remaining money.Amount, loc *time.Location) string {
	cur := in.Sender.Currency
	amt, noun := in.Amount.Format(cur), windowNoun(l.Window)
	if in.Amount.Cmp(limit) > 0 {
		return fmt.Sprintf("amount %s exceeds the %s limit of %s%s on its own", amt, noun, limit.Format(cur), actionsNote(l.Actions))
	}
	if remaining.IsNegative() {
		remaining = money.Amount{}
	}
	msg := fmt.Sprintf("amount %s exceeds the remaining %s budget of %s (limit %s%s, %s spent %s)",
		amt, noun, remaining.Format(cur), limit.Format(cur), actionsNote(l.Actions), spent.Format(cur), spanText(l, span, loc))
	switch {
	case span.Rolling > 0:
		if t, ok := freesUp(live, span.Rolling, in.Amount, limit); ok {
			msg += fmt.Sprintf("; %s frees up at %s", amt, t.UTC().Format(time.RFC3339))
		}
	case !span.Until.IsZero():
		msg += fmt.Sprintf("; the budget resets at %s", span.Until.In(loc).Format(time.RFC3339))
	default:
		msg += "; a total limit never resets"
	}
	return msg
}

// spanText says over which period the spending was counted.
func spanText(l SpendLimit, span Span, loc *time.Location) string {
	switch {
	case l.Window == WindowTotal:
		return "in total"
	case span.Rolling == Window:
		return "in the last 24 hours"
	case span.Rolling > 0:
		return fmt.Sprintf("in the last %d days", span.Rolling/(24*time.Hour))
	}
	return "since " + span.From.In(loc).Format(time.RFC3339)
}

// actionsNote qualifies a limit restricted to some actions.
func actionsNote(actions []string) string {
	if actions == nil {
		return ""
	}
	return " on " + strings.Join(actions, ", ")
}

// freesUp returns the earliest time t = o.At+length, walking the counted
// outflows oldest first, such that once every outflow at or before o.At has
// left the window the amount fits within limit (outflows sharing o.At all
// leave at t). It is rounded up to the whole second, so the budget is really
// free at the printed time.
func freesUp(live []Outflow, length time.Duration, amount, limit money.Amount) (time.Time, bool) {
	live = slices.Clone(live)
	slices.SortFunc(live, func(a, b Outflow) int { return a.At.Compare(b.At) })
	var spent money.Amount
	for _, o := range live {
		spent = spent.Add(o.Amount)
	}
	for _, o := range live {
		spent = spent.Sub(o.Amount)
		if spent.Add(amount).Cmp(limit) <= 0 {
			return ceilSecond(o.At.Add(length)), true
		}
	}
	return time.Time{}, false
}

// checkVelocity is one velocity limit's verdict: ok, or a refusal's reason.
func checkVelocity(in Input, v VelocityLimit) (string, bool) {
	length := time.Duration(v.WindowSeconds) * time.Second
	live, count := velocityUse(in, v)
	if count < v.MaxCount {
		return "", true
	}
	// The oldest count−max+1 must leave before one more fits.
	slices.SortFunc(live, func(a, b Outflow) int { return a.At.Compare(b.At) })
	need, next := count-v.MaxCount+1, time.Time{}
	for _, o := range live {
		if need -= o.n(); need <= 0 {
			next = ceilSecond(o.At.Add(length))
			break
		}
	}
	return fmt.Sprintf("velocity limit of %d transactions%s per %d seconds reached (%d in the last %d seconds); the next one is allowed at %s",
		v.MaxCount, actionsNote(v.Actions), v.WindowSeconds, count, v.WindowSeconds, next.UTC().Format(time.RFC3339)), false
}

// velocityUse is what v counts at in.Now: the outflows in its trailing
// window on its actions, and how many transactions they stand for.
func velocityUse(in Input, v VelocityLimit) (live []Outflow, count int) {
	from := in.Now.Add(-time.Duration(v.WindowSeconds) * time.Second)
	for _, o := range in.Outflow {
		if o.At.After(from) && Counts(v.Actions, o.Action) {
			live = append(live, o)
			count += o.n()
		}
	}
	return live, count
}

// Edges returns the moments at which the party's bounded windows and
// velocity limits begin at now. A caller may sum outflows between edges
// (e.g. by hour) as long as no sum straddles an edge.
func (p Party) Edges(now time.Time) []time.Time {
	var edges []time.Time
	loc := p.Policy.Location()
	for _, l := range p.Limits() {
		if l.Window != WindowTotal {
			edges = append(edges, l.SpanAt(now, loc).From)
		}
	}
	for _, v := range p.Policy.VelocityLimits {
		edges = append(edges, now.Add(-time.Duration(v.WindowSeconds)*time.Second))
	}
	return edges
}

// Since returns the earliest moment whose outflows the party's policy can
// count at now in a bounded window, so a caller reads no older rows; total
// limits (HasTotal) count every outflow ever and are not bounded by it.
func (p Party) Since(now time.Time) time.Time {
	earliest := now
	loc := p.Policy.Location()
	for _, l := range p.Limits() {
		if from := l.SpanAt(now, loc).From; l.Window != WindowTotal && from.Before(earliest) {
			earliest = from
		}
	}
	for _, v := range p.Policy.VelocityLimits {
		if from := now.Add(-time.Duration(v.WindowSeconds) * time.Second); from.Before(earliest) {
			earliest = from
		}
	}
	return earliest
}

// HasTotal reports whether the party's policy has a total limit.
func (p Party) HasTotal() bool {
	return slices.ContainsFunc(p.Policy.SpendLimits, func(l SpendLimit) bool { return l.Window == WindowTotal })
}

// ceilSecond rounds t up to a whole second.
func ceilSecond(t time.Time) time.Time {
	if s := t.Truncate(time.Second); !s.Equal(t) {
		return s.Add(time.Second)
	}
	return t
}
