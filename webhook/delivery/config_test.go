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
		{"per endpoint defaults within the organization's share", Config{PerOrganization: 4}, nil},
		{"more per organization than workers", Config{Workers: 4, PerOrganization: 5},
			[]string{"PerOrganization (5) exceeds Workers (4): one organization could take every worker"}},
		{"more per endpoint than per organization", Config{PerEndpoint: 8, PerOrganization: 4},
			[]string{"PerEndpoint (8) exceeds PerOrganization (4)"}},
		{"negative per organization", Config{PerOrganization: -1}, []string{"PerOrganization must not be negative"}},
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

// TestConfigDefaultShares: an organization's share defaults to a quarter
// of the workers, but at least two endpoints' shares and at most every
// worker; an endpoint's share defaults within the organization's.
func TestConfigDefaultShares(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		cfg                 Config
		perEndpoint, perOrg int
	}{
		{Config{}, 10, 25},
		{Config{Workers: 200}, 10, 50},
		{Config{Workers: 4, PerEndpoint: 2}, 2, 4},
		{Config{Workers: 20, PerEndpoint: 2}, 2, 5},
		{Config{PerOrganization: 4}, 4, 4},
		{Config{Workers: 1}, 1, 1},
	} {
		got := c.cfg.withDefaults()
		if got.PerEndpoint != c.perEndpoint || got.PerOrganization != c.perOrg {
			t.Errorf("%+v: per endpoint %d, per organization %d; want %d, %d",
				c.cfg, got.PerEndpoint, got.PerOrganization, c.perEndpoint, c.perOrg)
		}
	}
}
