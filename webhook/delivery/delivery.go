// Package delivery runs webhook delivery on River: the dispatcher that turns
// the event log into durable delivery jobs (each a batch of events for one
// endpoint), the workers that send them, and the pruning of old attempt
// records. Every replica runs one; River shares
// the jobs among them and each job is worked by one replica at a time.
package delivery

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
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
	// Workers is how many deliveries a process sends at once, and how many
	// delivery jobs (batches of events for one endpoint) it works at once
	// (default DefaultWorkers).
	Workers int
	// PerEndpoint is how many of them may go to one endpoint, and how many
	// of its jobs may run here at once (default 10), so a slow or hung
	// endpoint holds a bounded share of the capacity.
	PerEndpoint int
	// JobTimeout bounds one job: its sends, which start only in its first
	// half (so keep it over twice the outbound client's timeout), and its
	// record (default 1 minute).
	JobTimeout time.Duration
	// RescueAfter is when a job whose process died mid-attempt is retried
	// (default 2 × JobTimeout).
	RescueAfter time.Duration
	// Poll is the dispatcher's safety poll of the log (default 1s) and
	// River's fetch poll (default 200ms), beside their notifications.
	Poll      time.Duration
	FetchPoll time.Duration
	// Batch is how many events one dispatch transaction reads (default
	// 2000): a backlog is dispatched in fewer passes, each of which costs a
	// transaction, a River insert and the fetches it wakes.
	Batch  int
	Logger *slog.Logger
}

func (c *Config) defaults() {
	if c.Workers <= 0 {
		c.Workers = DefaultWorkers
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
		c.Batch = 2000
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
}

// DefaultWorkers is Config.Workers' default: at most that many deliveries
// are in flight from one process, so its outbound client never needs more
// connections than that to one host.
const DefaultWorkers = 100

// Runner is one process's share of webhook delivery.
type Runner struct {
	cfg    Config
	db     *db.DB
	svc    *db.WebhookService
	sender webhook.Sender
	pool   *pgxpool.Pool
	client *river.Client[pgx.Tx]
	lanes  *lanes
	// senders hands messages to the Workers goroutines that post them;
	// a job takes one of the idle slots first (after one of its
	// endpoint's), so jobs are served oldest first here too.
	senders chan sendRequest
	idle    *slots
	// dbTurn lets one job at a time load or record a batch of turnRows
	// or more on the pool: Postgres spends less CPU per row on them one
	// after the other than at once (COPYs of 100 records measured 22 µs
	// of CPU per row one at a time, 52 ten at once), and they finish no
	// later. Smaller batches do not wait for it: they cost little per
	// job, and their commits, many at once, share Postgres' WAL flushes.
	dbTurn chan struct{}
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
	r := &Runner{cfg: cfg, db: d, svc: svc, sender: sender, pool: pool, lanes: newLanes(cfg.PerEndpoint), senders: make(chan sendRequest), idle: &slots{free: cfg.Workers}, dbTurn: make(chan struct{}, 1), wake: make(chan struct{}, 1)}
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
	stopSenders := make(chan struct{})
	var senders sync.WaitGroup
	for range r.cfg.Workers {
		senders.Go(func() { r.sendLoop(stopSenders) })
	}
	defer func() { close(stopSenders); senders.Wait() }()
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
//
// While no organization has an active endpoint, a pass would read the
// events only to route them to no one, in a transaction of six round trips:
// the dispatcher then passes on the poll only (which keeps its cursor at
// most a poll's worth of events behind the log), and a commit's
// notification costs nothing. Each poll looks again, so the first endpoint
// registered gets its events within a poll.
func (r *Runner) dispatch(ctx context.Context) {
	t := time.NewTicker(r.cfg.Poll)
	defer t.Stop()
	backoff := 50 * time.Millisecond
	recheck := 5 * time.Millisecond
	var last time.Time // when the last pass started
	idle := false      // no active endpoint at the last poll
	woken := false     // this pass was asked for by a notification
	for {
		if woken && idle {
			woken = r.waitDispatch(ctx, t)
			if ctx.Err() != nil {
				return
			}
			continue
		}
		if !woken {
			active, err := r.svc.AnyActive(ctx)
			idle = err == nil && !active
		}
		// Every commit wakes the dispatcher: under load, passes start at
		// most dispatchGap apart, so that one pass takes the events of
		// many commits instead of one transaction per commit.
		if wait := dispatchGap - time.Since(last); wait > 0 {
			select {
			case <-ctx.Done():
				return
			case <-time.After(wait):
			}
		}
		last = time.Now()
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
			last = time.Time{}
			continue // more to read, at once
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
		woken = r.waitDispatch(ctx, t)
		if ctx.Err() != nil {
			return
		}
	}
}

// waitDispatch waits for a notification (true) or the poll (false), or for
// ctx to end.
func (r *Runner) waitDispatch(ctx context.Context, poll *time.Ticker) bool {
	select {
	case <-ctx.Done():
		return false
	case <-r.wake:
		return true
	case <-poll.C:
		return false
	}
}

// dispatchGap is the least time between two dispatch passes woken by
// commits (a lone commit is dispatched at once; a burst waits this long at
// most).
const dispatchGap = 20 * time.Millisecond

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

// worker delivers one job: a batch of events to one endpoint.
type worker struct {
	river.WorkerDefaults[webhook.DeliveryJob]
	r *Runner
}

// Work sends the job's events still to deliver, up to PerEndpoint at once,
// records the attempts while the sends go on (recordChunk at a time) and
// leaves what failed to River's retry, after the schedule's delay (or the
// endpoint's Retry-After).
func (w *worker) Work(ctx context.Context, job *river.Job[webhook.DeliveryJob]) error {
	r := w.r
	endpoint, started, wait, ok := r.lanes.admit(job.Args.WebhookID, job.ID)
	if !ok {
		// The endpoint has its share of jobs here: come back about when a
		// place may be this job's (give or take a quarter, so that its
		// waiting jobs do not all come back at once), or sooner if a place
		// frees while it is the oldest waiting, without spending an
		// attempt, and leave this worker to other endpoints.
		return river.JobSnooze(wait*3/4 + rand.N(wait/2))
	}
	defer func() {
		if next := r.lanes.leave(job.Args.WebhookID, started); next != 0 {
			go func() {
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				defer cancel()
				if err := wakeJob(ctx, r.pool, next); err != nil {
					r.cfg.Logger.Debug("wake a waiting delivery job", "job", next, "err", err)
				}
			}()
		}
	}()
	// River adds this process to AttemptedBy at every fetch, snoozes
	// included: one entry means no earlier run can have recorded attempts.
	firstRun := len(job.AttemptedBy) == 1
	seqs, err := job.Args.EventSeqs()
	if err != nil {
		return river.JobCancel(err) // no attempt can mend it
	}
	ids := job.Args.Events() // a job queued by an earlier version
	release, ok := r.turn(ctx, len(seqs)+len(ids))
	if !ok {
		return ctx.Err()
	}
	b, err := r.svc.DeliveryBatch(ctx, job.Args.WebhookID, seqs, ids, job.ID, firstRun)
	release()
	switch {
	case failure.CodeOf(err) == failure.NotFound:
		return nil // the endpoint was deleted: nothing left to do
	case err != nil:
		return err
	case !b.Active:
		return river.JobCancel(errors.New("endpoint is inactive"))
	}
	sent, unsent, rec := r.send(ctx, endpoint, b, webhook.JobRun{ID: job.ID, Attempt: job.Attempt})
	if rec.err != nil {
		return rec.err
	}
	var failed int
	var last string
	var retryAfter time.Duration
	for _, a := range sent {
		if !a.Success() {
			failed, last, retryAfter = failed+1, a.Err, max(retryAfter, a.RetryAfter)
		}
	}
	switch {
	case rec.inactive:
		return river.JobCancel(errors.New("endpoint disabled or deleted"))
	case failed > 0:
		if retryAfter > 0 && job.Attempt < job.MaxAttempts {
			// River asks NextRetry (which takes the entry) only when an attempt remains.
			r.retryAfter.Store(job.ID, retryAfter)
		}
		return fmt.Errorf("%d of %d attempts failed, the last: %s", failed, len(sent), last)
	case unsent > 0:
		// Out of time (or stopping) before every event was tried: the rest
		// go again now, without spending an attempt.
		return river.JobSnooze(0)
	}
	return nil
}

// send posts b's messages, at most PerEndpoint at once (endpoint) through the
// Workers senders, records the attempts as they end (a recorder, chunk by
// chunk), and returns the attempts in the order they ended, how many
// messages it did not try, and what recording found. It starts no new send
// once half the job's timeout has passed, once ctx ends, once the endpoint
// is sure to be disabled (a 410, or WEBHOOK_DISABLE_AFTER failures in a
// row), or once a record found it inactive or failed.
func (r *Runner) send(ctx context.Context, endpoint *slots, b *webhook.Batch, job webhook.JobRun) (sent []webhook.Sent, unsent int, rec recorded) {
	startBy := time.Now().Add(r.cfg.JobTimeout / 2)
	disableAfter := r.svc.Config().DisableAfter
	done := make(chan webhook.Sent, len(b.Messages))
	rc := r.newRecorder(ctx, b.WebhookID, job)
	sent = make([]webhook.Sent, 0, len(b.Messages))
	var pending []webhook.Sent // ended, not yet handed to rc
	var since time.Time        // when the oldest of them ended
	failures, stop, inflight := b.ConsecutiveFailures, false, 0
	took := func(s webhook.Sent) {
		inflight--
		sent = append(sent, s)
		if len(pending) == 0 {
			since = s.Done
		}
		if pending == nil {
			pending = make([]webhook.Sent, 0, min(len(b.Messages), 2*recordChunk))
		}
		pending = append(pending, s)
		failures++
		if s.Success() {
			failures = 0
		}
		stop = stop || s.Gone() || failures >= disableAfter
	}
	// offer hands the pending attempts to rc when there are enough of them
	// or the oldest has waited long enough, unless rc is still recording.
	offer := func() {
		if len(pending) >= recordChunk || len(pending) > 0 && time.Since(since) >= recordWait {
			if rc.offer(pending) {
				pending = nil
			}
		}
	}
	// The ticker wakes a job that waits (for a slot, or for its last
	// answers) with attempts pending, so they are recorded within about
	// recordWait even while a hung endpoint holds every slot.
	tick := time.NewTicker(recordWait / 2)
	defer tick.Stop()
	// slot waits for one of the endpoint's slots, then for an idle sender,
	// taking what ends meanwhile; false once the job must start no more
	// sends.
	stages := [...]*slots{endpoint, r.idle}
	places := [...]*slotWait{newSlotWait(job.ID), newSlotWait(job.ID)}
	held := 0       // stages whose slot the job holds for its next send
	var w *slotWait // its place in the queue of stages[held], while it has one
	slot := func() bool {
		for {
			for len(done) > 0 { // what ended meanwhile decides whether to go on
				took(<-done)
			}
			offer()
			if stop || rc.halted() || ctx.Err() != nil || time.Now().After(startBy) {
				return false
			}
			if w == nil {
				w = places[held]
				stages[held].wait(w)
			}
			select {
			case <-w.granted:
				if w, held = nil, held+1; held == len(stages) {
					held = 0
					return true
				}
			case s := <-done:
				took(s)
			case <-tick.C:
			case <-ctx.Done():
				return false
			}
		}
	}
	release := func() {
		r.idle.release()
		endpoint.release()
	}
	next := 0
	for next < len(b.Messages) && slot() {
		msg := b.Messages[next]
		q := sendRequest{ctx: ctx, url: b.URL, secrets: b.Secrets, msg: msg, done: func(a webhook.Attempt) {
			release()
			done <- webhook.Sent{Message: msg, Attempt: a, Done: time.Now()}
		}}
		// A sender is idle for each idle slot: this waits only for it to
		// come back to its loop.
		select {
		case r.senders <- q:
			next++
			inflight++
		case <-ctx.Done():
			release()
		}
	}
	// What the job holds or waits for goes to the next job.
	if w != nil {
		stages[held].cancel(w)
	}
	for _, s := range stages[:held] {
		s.release()
	}
	for inflight > 0 {
		select {
		case s := <-done:
			took(s)
		case <-tick.C:
		}
		offer()
	}
	return sent, len(b.Messages) - next, rc.finish(pending)
}

// recordChunk is how many ended attempts a job hands to its recorder at
// once, and recordWait how long the oldest of fewer waits: records keep up
// with the sends instead of all coming at the job's end (when a burst's
// jobs, sharing the senders, ended together, and their records, one after
// the other under dbTurn, took a fifth of the benchmark's run after its
// last request).
const (
	recordChunk = 100
	recordWait  = time.Second
)

// recorder records one job's attempts, a chunk at a time in the order they
// ended, while the job's sends go on.
type recorder struct {
	r      *Runner
	ctx    context.Context // the job's, for its values: records outlive its end
	whID   string
	job    webhook.JobRun
	chunks chan []webhook.Sent
	done   chan struct{}
	halt   atomic.Bool
	result recorded // written by run, read after done
}

// recorded is what recording a job's attempts found: the endpoint inactive
// or gone (the job stops), or an error (the job is retried).
type recorded struct {
	inactive bool
	err      error
}

func (r *Runner) newRecorder(ctx context.Context, whID string, job webhook.JobRun) *recorder {
	rc := &recorder{r: r, ctx: context.WithoutCancel(ctx), whID: whID, job: job,
		chunks: make(chan []webhook.Sent), done: make(chan struct{})}
	go rc.run()
	return rc
}

func (rc *recorder) run() {
	defer close(rc.done)
	for chunk := range rc.chunks {
		if rc.result.err != nil {
			continue // attempts after a failed record are left to the retry
		}
		// Once the endpoint is found inactive, the attempts still in
		// flight then are recorded too (a deleted endpoint's are not).
		inactive, err := rc.record(chunk)
		switch {
		case err != nil:
			rc.result.err = err
			rc.halt.Store(true)
		case inactive:
			rc.result.inactive = true
			rc.halt.Store(true)
		}
	}
}

// record stores one chunk. It outlives the job's context (the attempts were
// made), not the statement timeout the service's own pool has.
func (rc *recorder) record(chunk []webhook.Sent) (inactive bool, err error) {
	ctx, cancel := context.WithTimeout(rc.ctx, db.StatementTimeout)
	defer cancel()
	release, ok := rc.r.turn(ctx, len(chunk))
	if !ok {
		return false, fmt.Errorf("record attempts: %w", ctx.Err())
	}
	defer release()
	return rc.r.svc.RecordAttempts(ctx, rc.whID, rc.job, chunk)
}

// offer hands chunk to the recorder if it is idle, and reports whether it
// took it.
func (rc *recorder) offer(chunk []webhook.Sent) bool {
	select {
	case rc.chunks <- chunk:
		return true
	default:
		return false
	}
}

// halted reports whether a record found the endpoint inactive or failed:
// the job starts no more sends.
func (rc *recorder) halted() bool { return rc.halt.Load() }

// finish records the last attempts and returns what recording found.
func (rc *recorder) finish(last []webhook.Sent) recorded {
	if len(last) > 0 {
		rc.chunks <- last
	}
	close(rc.chunks)
	<-rc.done
	return rc.result
}

// sendRequest is one message for the senders to post.
type sendRequest struct {
	ctx     context.Context
	url     string
	secrets []string
	msg     webhook.Outgoing
	done    func(webhook.Attempt)
}

// sendLoop is one of the Workers senders every job shares, so a process
// sends at most Workers messages at once.
func (r *Runner) sendLoop(stop <-chan struct{}) {
	for {
		select {
		case q := <-r.senders:
			q.done(r.sender.Send(q.ctx, q.url, q.secrets, q.msg))
		case <-stop:
			return
		}
	}
}

// turnRows is the batch size from which loading or recording waits for
// dbTurn.
const turnRows = 10

// turn waits for dbTurn when a statement handles rows rows or more, and
// returns what gives it back; false once ctx ends first.
func (r *Runner) turn(ctx context.Context, rows int) (release func(), ok bool) {
	if rows < turnRows {
		return func() {}, true
	}
	if !acquire(ctx, r.dbTurn) {
		return func() {}, false
	}
	return func() { <-r.dbTurn }, true
}

// acquire takes a slot of sem, or reports false once ctx ends.
func acquire(ctx context.Context, sem chan struct{}) bool {
	select {
	case sem <- struct{}{}:
		return true
	case <-ctx.Done():
		return false
	}
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

// wakeJob makes job id, waiting for a place at its endpoint, fetchable now
// instead of at the end of its wait (a place has just freed here). It moves
// only a job still waiting in River's fetchable queue (available, due
// later): not one that started, ended or was cancelled meanwhile. River has
// no call for this (JobRetry would also run again a job completed by
// another replica), so it updates River's table directly.
func wakeJob(ctx context.Context, pool *pgxpool.Pool, id int64) error {
	_, err := pool.Exec(ctx, `UPDATE river_job SET scheduled_at = now() WHERE id = $1 AND state = 'available' AND scheduled_at > now()`, id)
	return err
}

// lanes admits at most limit jobs per endpoint at once in this process and
// gives them a shared set of limit send slots: a slow or hung endpoint
// holds at most limit workers and limit sends. A job turned away is told
// how long to wait before it asks again: about the time in which one of the
// endpoint's running jobs can be expected to end here (how long its jobs
// have been taking, or the oldest has been running, shared among its limit
// places); the limit oldest of its waiting jobs are told that, the others
// longer by their place in line (so that about limit of them come back each
// time a place may free, the oldest first), and a place that frees wakes
// the oldest at once (wakeJob). A slow or hung endpoint's waiting jobs then
// come back every second or two rather than many times a second (each
// return is a fetch and an update of the shared queue), and a healthy
// endpoint's as soon as a place frees.
type lanes struct {
	mu    sync.Mutex
	limit int
	m     map[string]*lane
	now   func() time.Time
}

type lane struct {
	jobs    int
	slots   *slots
	started []time.Time   // the running jobs' start times
	took    time.Duration // how long its jobs took here, a moving average (0: none ended yet)
	// waiting are the jobs turned away lately, by when; those not back
	// within twice maxLaneWait (taken by another process, or gone) are
	// dropped at most once per maxLaneWait.
	waiting map[int64]time.Time
	swept   time.Time
}

func newLanes(limit int) *lanes {
	return &lanes{limit: limit, m: map[string]*lane{}, now: time.Now}
}

// The bounds of the wait a turned-away job is told. Both stay under River's
// scheduler interval (5 s), so that River keeps the snoozed job in the
// fetchable queue; at the upper one a hung endpoint's waiting jobs each come
// back every 1.5–2.5 s.
const (
	minLaneWait = 20 * time.Millisecond
	maxLaneWait = 2 * time.Second
)

// admit takes one of the endpoint's places for job: its send slots and the
// time the job started (for leave), or, when all are taken, how long to
// wait.
func (l *lanes) admit(key string, job int64) (sl *slots, started time.Time, wait time.Duration, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	ln := l.m[key]
	if ln == nil {
		ln = &lane{slots: &slots{free: l.limit}, waiting: map[int64]time.Time{}}
		l.m[key] = ln
	}
	if ln.jobs >= l.limit {
		ln.waiting[job] = now
		if now.Sub(ln.swept) >= maxLaneWait {
			ln.swept = now
			maps.DeleteFunc(ln.waiting, func(_ int64, at time.Time) bool { return now.Sub(at) > 2*maxLaneWait })
		}
		d := ln.took
		for _, t := range ln.started {
			d = max(d, now.Sub(t))
		}
		d /= time.Duration(l.limit) // one of the places may free within d
		// The limit oldest waiting jobs come back then, the others later
		// by their place in line, counted only as far as it can lengthen
		// the wait (an endpoint down for long may have thousands waiting).
		if len(ln.waiting) > l.limit+1 {
			ahead, enough := 0, l.limit*int(maxLaneWait/max(d, time.Millisecond))
			for j := range ln.waiting {
				if j < job {
					if ahead++; ahead > enough {
						break
					}
				}
			}
			if ahead > l.limit {
				d = d * time.Duration(ahead) / time.Duration(l.limit)
			}
		}
		return nil, time.Time{}, min(max(d, minLaneWait), maxLaneWait), false
	}
	delete(ln.waiting, job)
	ln.jobs++
	ln.started = append(ln.started, now)
	return ln.slots, now, 0, true
}

// leave gives back the place of the job admitted at started, and returns
// the oldest job waiting for one (0 if none), which the caller wakes.
func (l *lanes) leave(key string, started time.Time) (next int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	ln := l.m[key]
	if ln == nil {
		return 0
	}
	for j := range ln.waiting {
		if next == 0 || j < next {
			next = j
		}
	}
	delete(ln.waiting, next)
	if ln.jobs--; ln.jobs <= 0 {
		delete(l.m, key)
		return next
	}
	if i := slices.Index(ln.started, started); i >= 0 {
		ln.started = slices.Delete(ln.started, i, i+1)
	}
	took := l.now().Sub(started)
	if ln.took == 0 {
		ln.took = took
	} else {
		ln.took += (took - ln.took) / 4
	}
	return next
}

// slots are a set of send slots (an endpoint's, or the process's idle
// senders), handed to the jobs waiting for one oldest job first (by River's
// job id), not in turns: a backlog split into many jobs is sent about in log
// order, and its jobs end (and record their last attempts) one after the
// other instead of all together at its end.
type slots struct {
	mu      sync.Mutex
	free    int
	waiting []*slotWait // by job id; only while no slot is free
}

// slotWait is a job's place in the queue for one slot: granted receives
// once the slot is the job's.
type slotWait struct {
	job     int64
	granted chan struct{}
}

// newSlotWait returns a place in the queue for job, to wait with as often
// as it needs, one wait at a time.
func newSlotWait(job int64) *slotWait {
	return &slotWait{job: job, granted: make(chan struct{}, 1)}
}

// wait queues w for a slot; the slot is w's job's once w.granted receives
// (at once when one is free), or, if the job stops waiting first, until
// cancel gives it back.
func (s *slots) wait(w *slotWait) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.free > 0 {
		s.free--
		w.granted <- struct{}{}
		return
	}
	i, _ := slices.BinarySearchFunc(s.waiting, w.job, func(x *slotWait, job int64) int { return cmp.Compare(x.job, job+1) })
	s.waiting = slices.Insert(s.waiting, i, w)
}

// cancel takes w out of the queue, and gives its slot back if it had been
// granted and not taken.
func (s *slots) cancel(w *slotWait) {
	s.mu.Lock()
	if i := slices.Index(s.waiting, w); i >= 0 {
		s.waiting = slices.Delete(s.waiting, i, i+1)
		s.mu.Unlock()
		return
	}
	s.mu.Unlock()
	select {
	case <-w.granted:
		s.release()
	default:
	}
}

// release gives a slot back: to the oldest waiting job, or to the free ones.
func (s *slots) release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.waiting) == 0 {
		s.free++
		return
	}
	w := s.waiting[0]
	s.waiting = slices.Delete(s.waiting, 0, 1)
	w.granted <- struct{}{}
}
