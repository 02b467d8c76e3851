// Package delivery runs webhook delivery on River: the dispatcher that turns
// the event log into durable delivery jobs (each a batch of events for one
// endpoint), the workers that send them, and the pruning of old attempt
// records. Every replica runs one; River shares the jobs among them and each
// job is worked by one replica at a time.
package delivery

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/agenttrust/service/db"
	"github.com/agenttrust/service/eventlog"
	"github.com/agenttrust/service/webhook"
)

// Runner is one process's share of webhook delivery.
type Runner struct {
	cfg    Config
	log    *slog.Logger
	db     *db.DB
	pool   *pgxpool.Pool // the process's one pool, River's too
	svc    *db.WebhookService
	post   webhook.Sender
	client *river.Client[pgx.Tx]
	loop   *eventlog.Loop
	shares *shares
	// requests go to the Workers senders (send.go).
	requests chan request
	// retryAfter carries an endpoint's Retry-After from Work to NextRetry.
	retryAfter sync.Map // job id -> time.Duration
}

// New builds a runner on d's pool; Run starts it. Errors: an inconsistent
// cfg (every bad setting named), or River refusing its configuration.
func New(ctx context.Context, d *db.DB, svc *db.WebhookService, sender webhook.Sender, cfg Config) (*Runner, error) {
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	r := &Runner{cfg: cfg, log: cfg.Logger, db: d, pool: d.Pool(), svc: svc, post: sender,
		shares: newShares(cfg.PerEndpoint, cfg.PerOrganization), requests: make(chan request)}
	r.loop = eventlog.NewLoop(r.log)
	// Unlike the live hub, the dispatcher knows when committed events are
	// held back (DispatchWebhooks' pending): it looks again often until
	// they are readable, as a commit's first delivery waits on it.
	r.loop.Poll, r.loop.Batch, r.loop.Recheck = cfg.Poll, cfg.Batch, min(dispatchRecheck, cfg.Poll)
	workers := river.NewWorkers()
	if err := river.AddWorkerSafely(workers, &worker{r: r}); err != nil {
		return nil, fmt.Errorf("webhook delivery worker: %w", err)
	}
	var err error
	r.client, err = river.NewClient(riverpgxv5.New(r.pool), &river.Config{
		Queues:                      map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: cfg.Workers}},
		Workers:                     workers,
		JobTimeout:                  cfg.JobTimeout,
		RescueStuckJobsAfter:        cfg.RescueAfter,
		FetchCooldown:               min(cfg.FetchPoll, 20*time.Millisecond),
		FetchPollInterval:           cfg.FetchPoll,
		CompletedJobRetentionPeriod: time.Hour,
		Logger:                      slog.New(newOutageHandler(r.log.With("component", "river").Handler(), r.pool.Ping)),
	})
	if err != nil {
		return nil, fmt.Errorf("webhook delivery client: %w", err)
	}
	return r, nil
}

// dispatchRecheck is the longest wait between the dispatcher's re-reads
// while committed events are held back.
const dispatchRecheck = 50 * time.Millisecond

// Run delivers until ctx ends, then stops taking jobs and lets running
// attempts finish (a job cut short is retried, by this or another replica).
func (r *Runner) Run(ctx context.Context) error {
	var senders sync.WaitGroup
	for range r.cfg.Workers {
		senders.Go(func() { r.sender(r.requests) })
	}
	// Once River has stopped, no job hands a request over.
	defer func() { close(r.requests); senders.Wait() }()
	if err := r.client.Start(ctx); err != nil {
		return fmt.Errorf("start webhook delivery: %w", err)
	}
	var wg sync.WaitGroup
	wg.Go(func() { r.db.ListenEvents(ctx, r.Wake) })
	wg.Go(func() { r.dispatch(ctx) })
	wg.Go(func() { r.prune(ctx) })
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
func (r *Runner) Wake() { r.loop.Wake() }

// prune deletes attempt records past the retention, hourly.
func (r *Runner) prune(ctx context.Context) {
	t := time.NewTicker(time.Hour)
	defer t.Stop()
	for {
		if n, err := r.svc.PruneDeliveries(ctx); err != nil && ctx.Err() == nil {
			r.log.Warn("prune webhook deliveries", "err", err)
		} else if n > 0 {
			r.log.Info("pruned webhook deliveries", "count", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
