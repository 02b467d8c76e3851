package delivery

import (
	"strings"
	"testing"
	"time"
)

// TestConfigValidate: the defaults are consistent; each inconsistent
// setting is refused with a message naming it, and every bad setting of a
// config is reported at once.
func TestConfigValidate(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		cfg  Config
		want []string // substrings of the error, one per bad setting; none: valid
	}{
		{"defaults", Config{}, nil},
		{"the test environment's", Config{RequestTimeout: 3 * time.Second, JobTimeout: 7 * time.Second}, nil},
		{"negative workers", Config{Workers: -1}, []string{"Workers must not be negative"}},
		{"negative poll", Config{Poll: -time.Second}, []string{"Poll must not be negative"}},
		{"more per endpoint than workers", Config{Workers: 4, PerEndpoint: 5}, []string{"PerEndpoint (5) exceeds Workers (4)"}},
		{"per endpoint defaults within few workers", Config{Workers: 4}, nil},
		{"job timeout twice the request timeout", Config{RequestTimeout: 30 * time.Second, JobTimeout: time.Minute},
			[]string{"JobTimeout (1m0s) must exceed twice RequestTimeout (30s)"}},
		{"job timeout under the default request timeout", Config{JobTimeout: 20 * time.Second},
			[]string{"JobTimeout (20s) must exceed twice RequestTimeout (15s)"}},
		{"rescue before the job times out", Config{JobTimeout: time.Minute, RescueAfter: time.Minute},
			[]string{"RescueAfter (1m0s) must exceed JobTimeout (1m0s)"}},
		{"every bad setting at once", Config{Batch: -5, Workers: 2, PerEndpoint: 3, JobTimeout: 10 * time.Second, RescueAfter: 5 * time.Second},
			[]string{"Batch must not be negative", "PerEndpoint (3) exceeds Workers (2)", "JobTimeout (10s) must exceed twice",
				"RescueAfter (5s) must exceed JobTimeout (10s)"}},
	} {
		err := c.cfg.withDefaults().validate()
		if len(c.want) == 0 {
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
			continue
		}
		if err == nil {
			t.Errorf("%s: accepted", c.name)
			continue
		}
		msg := err.Error()
		for _, w := range c.want {
			if !strings.Contains(msg, w) {
				t.Errorf("%s: %q does not say %q", c.name, msg, w)
			}
		}
		if lines := strings.Count(msg, "\n") + 1; lines != len(c.want) {
			t.Errorf("%s: %d complaints in %q, want %d", c.name, lines, msg, len(c.want))
		}
	}
}
