package delivery

import (
	"errors"
	"fmt"
	"log/slog"
	"time"
)

// Config tunes delivery; zero fields take the defaults.
type Config struct {
	// Workers is how many delivery jobs (batches of events for one
	// endpoint) a process works at once, and how many requests it has in
	// flight at most (default DefaultWorkers).
	Workers int
	// PerEndpoint is how many of those jobs, and of those requests, one
	// endpoint may have at once (default 10): a slow or hung endpoint holds
	// a bounded share of the process. At most Workers.
	PerEndpoint int
	// PerOrganization is how many of those jobs, and of those requests,
	// all the endpoints of one organization may have at once: an
	// organization whose endpoints hang holds its own share of the process,
	// and the other organizations go on with the rest. At least
	// PerEndpoint, at most Workers; default a quarter of Workers, but at
	// least twice PerEndpoint (so that one hung endpoint leaves its
	// organization's others room) and at most Workers.
	PerOrganization int
	// RequestTimeout is the sender's bound on one request (default
	// DefaultRequestTimeout, the outbound client's default).
	RequestTimeout time.Duration
	// JobTimeout bounds one job: its sends, which start only in its first
	// half, and its records (default 1 minute). It must exceed twice
	// RequestTimeout, so that a send started at the half ends in time.
	JobTimeout time.Duration
	// RescueAfter is when a job whose process died mid-attempt is retried
	// (default 2 × JobTimeout); it must exceed JobTimeout, or a job still
	// running would be worked twice.
	RescueAfter time.Duration
	// Poll is the dispatcher's safety poll of the log (default 1s) and
	// FetchPoll River's (default 200ms), beside their notifications.
	Poll      time.Duration
	FetchPoll time.Duration
	// Batch is how many events one dispatch pass reads (default 2000).
	Batch  int
	Logger *slog.Logger
}

// DefaultWorkers is Config.Workers' default: at most that many deliveries
// are in flight from one process, so its outbound client never needs more
// connections than that to one host.
const DefaultWorkers = 100

// DefaultPerOrganization is Config.PerOrganization's default with the
// default Workers: a quarter of them, so that up to three organizations
// whose endpoints all hang still leave the others a quarter of the process.
const DefaultPerOrganization = DefaultWorkers / 4

// DefaultRequestTimeout is Config.RequestTimeout's default: the outbound
// client's own default bound on a request.
const DefaultRequestTimeout = 15 * time.Second

// withDefaults returns c with its zero fields set to the defaults.
func (c Config) withDefaults() Config {
	set := func(v *time.Duration, d time.Duration) {
		if *v == 0 {
			*v = d
		}
	}
	if c.Workers == 0 {
		c.Workers = DefaultWorkers
	}
	if c.PerEndpoint == 0 {
		c.PerEndpoint = min(10, max(c.Workers, 1))
		if c.PerOrganization > 0 {
			c.PerEndpoint = min(c.PerEndpoint, c.PerOrganization)
		}
	}
	if c.PerOrganization == 0 {
		c.PerOrganization = min(max(c.Workers, 1), max(c.Workers/4, 2*c.PerEndpoint))
	}
	if c.Batch == 0 {
		c.Batch = 2000
	}
	set(&c.RequestTimeout, DefaultRequestTimeout)
	set(&c.JobTimeout, time.Minute)
	set(&c.RescueAfter, 2*c.JobTimeout)
	set(&c.Poll, time.Second)
	set(&c.FetchPoll, 200*time.Millisecond)
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return c
}

// validate reports every inconsistent setting of a Config with its
// defaults applied, or nil.
func (c Config) validate() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	for _, f := range []struct {
		name string
		v    int64
	}{
		{"Workers", int64(c.Workers)}, {"PerEndpoint", int64(c.PerEndpoint)}, {"PerOrganization", int64(c.PerOrganization)},
		{"Batch", int64(c.Batch)},
		{"RequestTimeout", int64(c.RequestTimeout)}, {"JobTimeout", int64(c.JobTimeout)},
		{"RescueAfter", int64(c.RescueAfter)}, {"Poll", int64(c.Poll)}, {"FetchPoll", int64(c.FetchPoll)},
	} {
		if f.v < 0 {
			bad("%s must not be negative (zero takes the default)", f.name)
		}
	}
	if c.Workers > 0 && c.PerEndpoint > c.Workers {
		bad("PerEndpoint (%d) exceeds Workers (%d)", c.PerEndpoint, c.Workers)
	}
	if c.Workers > 0 && c.PerOrganization > c.Workers {
		bad("PerOrganization (%d) exceeds Workers (%d): one organization could take every worker", c.PerOrganization, c.Workers)
	}
	if c.PerOrganization > 0 && c.PerEndpoint > c.PerOrganization && c.PerEndpoint <= c.Workers {
		bad("PerEndpoint (%d) exceeds PerOrganization (%d)", c.PerEndpoint, c.PerOrganization)
	}
	if c.RequestTimeout > 0 && c.JobTimeout <= 2*c.RequestTimeout {
		bad("JobTimeout (%s) must exceed twice RequestTimeout (%s): sends start until half the job's time, and each may take RequestTimeout",
			c.JobTimeout, c.RequestTimeout)
	}
	if c.JobTimeout > 0 && c.RescueAfter <= c.JobTimeout {
		bad("RescueAfter (%s) must exceed JobTimeout (%s): a job still running would be rescued and worked twice",
			c.RescueAfter, c.JobTimeout)
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("webhook delivery config: %w", err)
	}
	return nil
}
