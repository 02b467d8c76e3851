package policy

import (
	"fmt"
	"slices"
	"time"

	"github.com/agenttrust/service/money"
)

// DailySpent sums the outflows that count against the daily limit at now:
// those less than Window old, i.e. with At in (now−Window, now]. An outflow
// exactly Window old no longer counts. Outflows dated after now (clock skew
// between database and service) are counted too, erring on the safe side.
func DailySpent(outflow []Outflow, now time.Time) money.Amount {
	var sum money.Amount
	for _, o := range outflow {
		if counts(o, now) {
			sum = sum.Add(o.Amount)
		}
	}
	return sum
}

// counts reports whether o is still inside the window ending at now.
func counts(o Outflow, now time.Time) bool {
	return o.At.After(now.Add(-Window))
}

// dailyReason explains a daily-limit refusal, including when enough budget frees up.
func dailyReason(in Input, limit, spent, remaining money.Amount) string {
	cur := in.Sender.Currency
	amt := fmtAmt(in.Amount, cur)
	if in.Amount.Cmp(limit) > 0 {
		return fmt.Sprintf("amount %s exceeds the daily limit of %s on its own", amt, fmtAmt(limit, cur))
	}
	if remaining.IsNegative() {
		remaining = money.Amount{}
	}
	msg := fmt.Sprintf("amount %s exceeds the remaining daily budget of %s (limit %s, %s spent in the last 24 hours)",
		amt, fmtAmt(remaining, cur), fmtAmt(limit, cur), fmtAmt(spent, cur))
	if t, ok := freesUpAt(in.Outflow, in.Now, in.Amount, limit); ok {
		msg += fmt.Sprintf("; %s frees up at %s", amt, t.UTC().Format(time.RFC3339))
	}
	return msg
}

// freesUpAt returns the earliest time t = o.At+Window, walking the counted
// outflows oldest first, such that once every outflow at or before o.At has
// left the window the amount fits within limit (outflows sharing o.At all
// leave at t, so expiring them one by one yields the same t). The time is rounded up to
// the whole second so that the budget is really free at the printed time.
func freesUpAt(outflow []Outflow, now time.Time, amount, limit money.Amount) (time.Time, bool) {
	live := make([]Outflow, 0, len(outflow))
	for _, o := range outflow {
		if counts(o, now) {
			live = append(live, o)
		}
	}
	slices.SortFunc(live, func(a, b Outflow) int { return a.At.Compare(b.At) })
	spent := DailySpent(live, now)
	for _, o := range live {
		spent = spent.Sub(o.Amount)
		if spent.Add(amount).Cmp(limit) <= 0 {
			return ceilSecond(o.At.Add(Window)), true
		}
	}
	return time.Time{}, false
}

// ceilSecond rounds t up to a whole second.
func ceilSecond(t time.Time) time.Time {
	if s := t.Truncate(time.Second); !s.Equal(t) {
		return s.Add(time.Second)
	}
	return t
}
