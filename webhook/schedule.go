package webhook

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"
)

// DefaultSchedule is the default WEBHOOK_RETRY_SCHEDULE: delays between attempts.
const DefaultSchedule = "5s,5m,30m,2h,5h,10h,14h,20h,24h"

// DefaultDisableAfter is the default WEBHOOK_DISABLE_AFTER: consecutive failed
// attempts (across events) after which an endpoint is disabled.
const DefaultDisableAfter = 50

// DefaultRetention is the default WEBHOOK_RETENTION of attempt records, and the
// window of events a re-activated endpoint catches up on.
const DefaultRetention = 720 * time.Hour

// RotationOverlap is how long deliveries are signed under the previous secret
// as well after a rotation.
const RotationOverlap = 24 * time.Hour

// Schedule is the list of delays between attempts: attempt n+1 follows
// attempt n after Schedule[n-1]; an event gets len(Schedule)+1 attempts.
type Schedule []time.Duration

// ParseSchedule reads a comma-separated list of positive Go durations.
func ParseSchedule(s string) (Schedule, error) {
	var out Schedule
	for _, part := range strings.Split(s, ",") {
		d, err := time.ParseDuration(strings.TrimSpace(part))
		if err != nil || d <= 0 {
			return nil, fmt.Errorf("WEBHOOK_RETRY_SCHEDULE: %q is not a positive duration like 5s or 2h", part)
		}
		out = append(out, d)
	}
	return out, nil
}

// String renders s as ParseSchedule reads it.
func (s Schedule) String() string {
	parts := make([]string, len(s))
	for i, d := range s {
		parts[i] = d.String()
	}
	return strings.Join(parts, ",")
}

// Attempts is how many attempts an event gets: the first and one per delay.
func (s Schedule) Attempts() int { return len(s) + 1 }

// Delay returns how long to wait after failed attempt number attempt (1 for
// the first) before the next: the schedule's delay with ±10% jitter, or the
// endpoint's Retry-After when it asked for one, kept between that delay and
// the schedule's longest delay.
func (s Schedule) Delay(attempt int, retryAfter time.Duration) time.Duration {
	if len(s) == 0 {
		return 0
	}
	i := min(max(attempt-1, 0), len(s)-1)
	base := s[i]
	d := base + time.Duration((rand.Float64()*0.2-0.1)*float64(base))
	if retryAfter > 0 {
		d = min(max(retryAfter, base), s.longest())
	}
	return d
}

func (s Schedule) longest() time.Duration {
	var m time.Duration
	for _, d := range s {
		m = max(m, d)
	}
	return m
}
