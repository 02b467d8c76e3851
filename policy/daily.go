package policy

import (
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

// ceilSecond rounds t up to a whole second.
func ceilSecond(t time.Time) time.Time {
	if s := t.Truncate(time.Second); !s.Equal(t) {
		return s.Add(time.Second)
	}
	return t
}
