package db

import (
	"context"
	"encoding/hex"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// KeyChannel is the LISTEN/NOTIFY channel that announces revoked API keys
// (RevokeKey notifies the key's id in the revoking transaction) and created
// ones (keyCreatedPrefix and the key's hash, in hex): every replica's
// listener forgets its cached keys on a revocation, and the keys it found
// unknown on a creation.
const KeyChannel = "att_keys"

// keyCreatedPrefix starts KeyChannel's payload for a created key (a key id
// starts "key_").
const keyCreatedPrefix = "created:"

// listenerName is the application_name of the listener's connection.
const listenerName = "att-listener"

// listenerHeartbeat is how long the listener waits for a notification before
// it pings the server; keyTrustWindow is how long after the server's last
// sign of life the key cache is still trusted (keyCache.trusted). Together
// they bound how long a replica whose listener silently lost the server
// keeps answering from its cache.
const (
	listenerHeartbeat = 100 * time.Millisecond
	keyTrustWindow    = 500 * time.Millisecond
)

// ListenEvents calls wake whenever a transaction that appended events
// commits, once when it starts, and once after the listener starts listening
// on EventChannel (within listenerHeartbeat) and after every reconnection,
// since notifications sent while it was away are lost. It returns when ctx
// ends. Notifications are only a wake-up: readers must still poll now and
// then. However many callers listen (the live hub, the webhook dispatcher),
// the process holds one LISTEN connection, from Open to Close.
func (d *DB) ListenEvents(ctx context.Context, wake func()) {
	l := &d.listener
	l.mu.Lock()
	if l.wakes == nil {
		l.wakes = map[*func()]bool{}
	}
	l.wakes[&wake] = true
	l.publish()
	l.mu.Unlock()
	wake()
	<-ctx.Done()
	l.mu.Lock()
	delete(l.wakes, &wake)
	l.publish()
	l.mu.Unlock()
}

// eventListener is who the process's listener wakes on EventChannel.
type eventListener struct {
	mu    sync.Mutex
	wakes map[*func()]bool
	list  atomic.Pointer[[]func()] // wakes' functions, replaced (not changed) under mu
}

// publish makes list hold wakes' functions; mu is held.
func (l *eventListener) publish() {
	list := make([]func(), 0, len(l.wakes))
	for w := range l.wakes {
		list = append(list, *w)
	}
	l.list.Store(&list)
}

// wanted reports whether anyone listens.
func (l *eventListener) wanted() bool {
	list := l.list.Load()
	return list != nil && len(*list) > 0
}

// wakeAll calls every listener's wake: once per commit, so it takes no lock.
func (l *eventListener) wakeAll() {
	if list := l.list.Load(); list != nil {
		for _, w := range *list {
			w()
		}
	}
}

// startListener runs the listener until Close, and waits (within ctx) for
// its first attempt to connect, so that the key cache is trusted from the
// start when the server lets it. The listener's connection is its own, not
// one of the pool's.
func (d *DB) startListener(ctx context.Context) {
	lctx, stop := context.WithCancel(context.Background())
	d.stop, d.done = stop, make(chan struct{})
	connected := make(chan struct{})
	var once sync.Once
	go func() {
		defer close(d.done)
		d.listen(lctx, func() { once.Do(func() { close(connected) }) })
	}()
	select {
	case <-connected:
	case <-ctx.Done():
	}
}

// listen holds the LISTEN connection until ctx ends, reconnecting with
// backoff; connected is called after every attempt to connect.
func (d *DB) listen(ctx context.Context, connected func()) {
	backoff := 100 * time.Millisecond
	for ctx.Err() == nil {
		start := time.Now()
		_ = d.listenOnce(ctx, connected) // the reason is the next attempt's to find out
		d.keyCache.setConnected(false)
		connected() // Open waits for the first attempt only, whatever its outcome
		if time.Since(start) > 10*time.Second {
			backoff = 100 * time.Millisecond
		}
		select {
		case <-ctx.Done():
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 5*time.Second)
	}
}

// listenOnce connects, listens on KeyChannel (and on EventChannel while
// ListenEvents has callers), and passes on notifications until the
// connection fails or ctx ends. Between notifications it pings the server,
// so that the key cache is trusted only while the server is known to answer.
func (d *DB) listenOnce(ctx context.Context, connected func()) error {
	cfg := d.pool.Config().ConnConfig.Copy()
	cfg.RuntimeParams["application_name"] = listenerName
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return err
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		conn.Close(cctx)
	}()
	if _, err := conn.Exec(ctx, "LISTEN "+KeyChannel); err != nil {
		return err
	}
	if err := d.loadLiveKeys(ctx, conn); err != nil {
		return err
	}
	d.keyCache.setConnected(true)
	connected()
	events := false // whether the connection listens on EventChannel
	for {
		if err := d.followEvents(ctx, conn, &events); err != nil {
			return err
		}
		wctx, cancel := context.WithTimeout(ctx, listenerHeartbeat)
		n, err := conn.WaitForNotification(wctx)
		cancel()
		switch {
		case err == nil && n.Channel == KeyChannel && strings.HasPrefix(n.Payload, keyCreatedPrefix):
			h, _ := hex.DecodeString(strings.TrimPrefix(n.Payload, keyCreatedPrefix))
			d.keyCache.created(h)
		case err == nil && n.Channel == KeyChannel:
			d.keyCache.revoked()
			d.revocations.tell(n.Payload)
		case err == nil:
			d.keyCache.heard()
			d.listener.wakeAll()
		case ctx.Err() != nil:
			return ctx.Err()
		case pgconn.Timeout(err) || errors.Is(err, context.DeadlineExceeded):
			pctx, cancel := context.WithTimeout(ctx, listenerHeartbeat)
			err = conn.Ping(pctx)
			cancel()
			if err != nil {
				return err
			}
			d.keyCache.heard()
		default:
			return err
		}
	}
}

// loadLiveKeys reads the hash of every live key into the key cache's hints,
// on the listener's connection once it listens, so that every key created
// later arrives by notification. Before the migrations have made api_keys
// there is no key.
func (d *DB) loadLiveKeys(ctx context.Context, conn *pgx.Conn) error {
	var hashes [][]byte
	rows, err := conn.Query(ctx, `SELECT hash FROM api_keys WHERE revoked_at IS NULL`)
	if err == nil {
		hashes, err = pgx.CollectRows(rows, pgx.RowTo[[]byte])
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "42P01" { // undefined_table
		hashes, err = nil, nil
	}
	if err != nil {
		return err
	}
	d.keyCache.loadLive(hashes)
	return nil
}

// followEvents makes conn listen on EventChannel while ListenEvents has
// callers and not otherwise (every commit that appends events notifies it,
// which costs the server and this process only when someone reads them);
// events says whether it does. Once it starts, it wakes the callers: what
// was committed before is theirs to read from the log.
func (d *DB) followEvents(ctx context.Context, conn *pgx.Conn, events *bool) error {
	want := d.listener.wanted()
	if want == *events {
		return nil
	}
	stmt := "UNLISTEN " + EventChannel
	if want {
		stmt = "LISTEN " + EventChannel
	}
	if _, err := conn.Exec(ctx, stmt); err != nil {
		return err
	}
	*events = want
	if want {
		d.listener.wakeAll()
	}
	return nil
}

// revocations are who the process tells of each revoked key it hears of
// (OnKeyRevoked).
type revocations struct {
	mu    sync.Mutex
	hooks map[*func(string)]struct{}
}

// OnKeyRevoked calls f with the id of every key revoked from now on, on
// any replica: at once for a revocation in this process, else when the
// listener hears its notification. f must not block. stop ends the calls.
func (d *DB) OnKeyRevoked(f func(keyID string)) (stop func()) {
	r := &d.revocations
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.hooks == nil {
		r.hooks = map[*func(string)]struct{}{}
	}
	r.hooks[&f] = struct{}{}
	return func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		delete(r.hooks, &f)
	}
}

// tell calls every hook with keyID.
func (r *revocations) tell(keyID string) {
	r.mu.Lock()
	hooks := make([]func(string), 0, len(r.hooks))
	for f := range r.hooks {
		hooks = append(hooks, *f)
	}
	r.mu.Unlock()
	for _, f := range hooks {
		f(keyID)
	}
}
