// Package delivery runs webhook delivery on River: the dispatcher that turns
// the event log into durable delivery jobs, the workers that send them, and
// the pruning of old attempt records. Every replica runs one; River shares
// the jobs among them and each job is worked by one replica at a time.
package delivery

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/agenttrust/service/db"
	"github.com/agenttrust/service/failure"
	"github.com/agenttrust/service/webhook"
)

// Config tunes delivery; zero fields take the defaults.
type Config struct {
	// DatabaseURL is the Postgres River's own pgx pool connects to.
	DatabaseURL string
	// Workers is how many deliveries a process sends at once (default 100).
	Workers int
	// PerEndpoint is how many of them may go to one endpoint (default 10), so
	// a slow or hung endpoint holds a bounded share of the capacity.
	PerEndpoint int
	// JobTimeout bounds one attempt, send and record (default 1 minute).
	JobTimeout time.Duration
	// RescueAfter is when a job whose process died mid-attempt is retried
	// (default 2 × JobTimeout).
	RescueAfter time.Duration
	// Poll is the dispatcher's safety poll of the log (default 1s) and
	// River's fetch poll (default 200ms), beside their notifications.
	Poll      time.Duration
	FetchPoll time.Duration
	// Batch is how many events one dispatch transaction reads (default 500).
	Batch  int
	Logger *slog.Logger
}

func (c *Config) defaults() {
	if c.Workers <= 0 {
		c.Workers = 100
	}
	if c.PerEndpoint <= 0 {
		c.PerEndpoint = 10
	}
	if c.JobTimeout <= 0 {
		c.JobTimeout = time.Minute
	}
	if c.RescueAfter <= 0 {
		c.RescueAfter = 2 * c.JobTimeout
	}
	if c.Poll <= 0 {
		c.Poll = time.Second
	}
	if c.FetchPoll <= 0 {
		c.FetchPoll = 200 * time.Millisecond
	}
	if c.Batch <= 0 {
		c.Batch = 500
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
}

// Runner is one process's share of webhook delivery.
type Runner struct {
	cfg    Config
	db     *db.DB
	svc    *db.WebhookService
	sender webhook.Sender
	pool   *pgxpool.Pool
	client *river.Client[pgx.Tx]
	slots  *slots
	wake   chan struct{}
	// retryAfter carries an endpoint's Retry-After from Work to NextRetry.
	retryAfter sync.Map // job id -> time.Duration
}

// New builds a runner; Run starts it.
func New(ctx context.Context, d *db.DB, svc *db.WebhookService, sender webhook.Sender, cfg Config) (*Runner, error) {
	cfg.defaults()
	pcfg, err := pgxpool.ParseConfig(cfg.DatabaseURL)
	if err != nil {
		return nil, fmt.Errorf("webhook delivery pool: %w", err)
	}
	if pcfg.MaxConns < 10 {
		pcfg.MaxConns = 10 // River's fetches, completions, leader election and listener
	}
	pool, err := pgxpool.NewWithConfig(ctx, pcfg)
	if err != nil {
		return nil, fmt.Errorf("webhook delivery pool: %w", err)
	}
	r := &Runner{cfg: cfg, db: d, svc: svc, sender: sender, pool: pool, slots: newSlots(cfg.PerEndpoint), wake: make(chan struct{}, 1)}
	workers := river.NewWorkers()
	if err := river.AddWorkerSafely(workers, &worker{r: r}); err != nil {
		pool.Close()
		return nil, err
	}
	r.client, err = river.NewClient(riverpgxv5.New(pool), &river.Config{
		Queues:                      map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: cfg.Workers}},
		Workers:                     workers,
		JobTimeout:                  cfg.JobTimeout,
		RescueStuckJobsAfter:        cfg.RescueAfter,
		FetchCooldown:               min(cfg.FetchPoll, 20*time.Millisecond),
		FetchPollInterval:           cfg.FetchPoll,
		CompletedJobRetentionPeriod: time.Hour,
		Logger:                      cfg.Logger.With("component", "river"),
	})
	if err != nil {
		pool.Close()
		return nil, fmt.Errorf("webhook delivery client: %w", err)
	}
	return r, nil
}

// Run delivers until ctx ends, then stops taking jobs and lets running
// attempts finish (a job cut short is retried, by this or another replica).
func (r *Runner) Run(ctx context.Context) error {
	defer r.pool.Close()
	if err := r.client.Start(ctx); err != nil {
		return fmt.Errorf("start webhook delivery: %w", err)
	}
	var wg sync.WaitGroup
	wg.Add(3)
	go func() { defer wg.Done(); r.db.ListenEvents(ctx, r.Wake) }()
	go func() { defer wg.Done(); r.dispatch(ctx) }()
	go func() { defer wg.Done(); r.prune(ctx) }()
	<-ctx.Done()
	wg.Wait()
	sctx, cancel := context.WithTimeout(context.Background(), r.cfg.JobTimeout)
	defer cancel()
	if err := r.client.Stop(sctx); err != nil {
		return r.client.StopAndCancel(context.Background())
	}
	return nil
}

// Kill stops at once: running attempts are cancelled mid-request and their
// jobs left to be retried. Tests use it to stand for a killed process (a real
// crash leaves its running jobs to River's rescuer, after RescueAfter).
func (r *Runner) Kill() { _ = r.client.StopAndCancel(context.Background()) }

// Wake asks the dispatcher to read the log now.
func (r *Runner) Wake() {
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// dispatch queues jobs for new events whenever woken, and on a slow poll.
func (r *Runner) dispatch(ctx context.Context) {
	t := time.NewTicker(r.cfg.Poll)
	defer t.Stop()
	backoff := 50 * time.Millisecond
	recheck := 5 * time.Millisecond
	for {
		n, pending, err := r.svc.DispatchWebhooks(ctx, r.cfg.Batch)
		if n > 0 {
			recheck = 5 * time.Millisecond
		}
		switch {
		case err != nil && ctx.Err() == nil:
			r.cfg.Logger.Warn("dispatch webhooks", "err", err, "retry_in", backoff)
			select {
			case <-ctx.Done():
				return
			case <-time.After(backoff):
			}
			backoff = min(2*backoff, 5*time.Second)
			continue
		case n == r.cfg.Batch:
			continue // more to read
		case pending:
			// Committed events wait for older transactions to end: look
			// again shortly instead of at the next poll.
			select {
			case <-ctx.Done():
				return
			case <-time.After(recheck):
			}
			recheck = min(2*recheck, 50*time.Millisecond, r.cfg.Poll)
			continue
		}
		backoff = 50 * time.Millisecond
		select {
		case <-ctx.Done():
			return
		case <-r.wake:
		case <-t.C:
		}
	}
}

// prune deletes attempt records past the retention, hourly.
func (r *Runner) prune(ctx context.Context) {
	t := time.NewTicker(time.Hour)
	defer t.Stop()
	for {
		if n, err := r.svc.PruneDeliveries(ctx); err != nil && ctx.Err() == nil {
			r.cfg.Logger.Warn("prune webhook deliveries", "err", err)
		} else if n > 0 {
			r.cfg.Logger.Info("pruned webhook deliveries", "count", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// worker sends one event to one endpoint per job.
type worker struct {
	river.WorkerDefaults[webhook.DeliveryJob]
	r *Runner
}

func (w *worker) Work(ctx context.Context, job *river.Job[webhook.DeliveryJob]) error {
	r := w.r
	t, err := r.svc.DeliveryTarget(ctx, job.Args.WebhookID, job.Args.EventID)
	if failure.CodeOf(err) == failure.NotFound {
		return nil // the endpoint was deleted: nothing left to do
	}
	if err != nil {
		return err
	}
	if !t.Active {
		return river.JobCancel(errors.New("endpoint is inactive"))
	}
	if !r.slots.acquire(t.WebhookID) {
		// The endpoint has its share in flight: come back soon, without
		// spending an attempt, and leave this worker to other endpoints.
		return river.JobSnooze(time.Duration(20+rand.IntN(80)) * time.Millisecond)
	}
	a := r.sender.Send(ctx, t.URL, t.Secrets, t.Message)
	r.slots.release(t.WebhookID)
	inactive, err := r.svc.RecordAttempt(context.WithoutCancel(ctx), t.WebhookID, t.Message, a)
	if err != nil {
		return err
	}
	switch {
	case a.Success():
		return nil
	case inactive:
		return river.JobCancel(errors.New(a.Err))
	}
	if a.RetryAfter > 0 && job.Attempt < job.MaxAttempts {
		// River asks NextRetry (which takes the entry) only when an attempt remains.
		r.retryAfter.Store(job.ID, a.RetryAfter)
	}
	return errors.New(a.Err)
}

// NextRetry follows the retry schedule (with jitter and Retry-After).
func (w *worker) NextRetry(job *river.Job[webhook.DeliveryJob]) time.Time {
	var ra time.Duration
	if v, ok := w.r.retryAfter.LoadAndDelete(job.ID); ok {
		ra = v.(time.Duration)
	}
	return time.Now().Add(w.r.svc.Config().Schedule.Delay(job.Attempt, ra))
}

func (w *worker) Timeout(*river.Job[webhook.DeliveryJob]) time.Duration { return w.r.cfg.JobTimeout }

// slots counts in-flight deliveries per endpoint in this process.
type slots struct {
	mu    sync.Mutex
	limit int
	n     map[string]int
}

func newSlots(limit int) *slots { return &slots{limit: limit, n: map[string]int{}} }

func (s *slots) acquire(key string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.n[key] >= s.limit {
		return false
	}
	s.n[key]++
	return true
}

func (s *slots) release(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.n[key]--; s.n[key] <= 0 {
		delete(s.n, key)
	}
}
