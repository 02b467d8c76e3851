package httpapi

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/agenttrust/service/auth"
	"github.com/agenttrust/service/failure"
	"github.com/agenttrust/service/live"
)

// liveConns tracks the open live connections of one edge: it closes those
// of a key as soon as the process hears of its revocation (revoked), and,
// in case a notification was lost, re-checks their keys in one statement
// every interval; it closes them all at shutdown.
type liveConns struct {
	keys    auth.KeyChecker
	every   time.Duration
	log     *slog.Logger
	metrics *live.Metrics

	mu       sync.Mutex
	conns    map[*liveConn]struct{}
	checking bool
	stopHook func() // ends the OnRevoke calls, while checking
	closing  bool
	wg       sync.WaitGroup
}

// add registers lc; false once shutdown has begun.
func (l *liveConns) add(lc *liveConn) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closing {
		return false
	}
	l.conns[lc] = struct{}{}
	l.wg.Add(1)
	l.metrics.Connections.WithLabelValues(lc.transport).Inc()
	if !l.checking && l.keys != nil {
		l.checking = true
		l.stopHook = l.keys.OnRevoke(l.revoked)
		go l.checkKeys()
	}
	return true
}

func (l *liveConns) remove(lc *liveConn) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.conns, lc)
	l.metrics.Connections.WithLabelValues(lc.transport).Dec()
	l.wg.Done()
}

// checkKeys closes connections whose key was revoked, on every replica,
// within one interval, should the revocation's notification not have
// closed them already. It runs while connections are open.
func (l *liveConns) checkKeys() {
	t := time.NewTicker(l.every)
	defer t.Stop()
	for range t.C {
		l.mu.Lock()
		byKey := map[string][]*liveConn{}
		for lc := range l.conns {
			lc.mu.Lock()
			if lc.keyID != "" {
				byKey[lc.keyID] = append(byKey[lc.keyID], lc)
			}
			lc.mu.Unlock()
		}
		if len(l.conns) == 0 {
			l.checking = false
			l.stopHook()
			l.mu.Unlock()
			return
		}
		l.mu.Unlock()
		if len(byKey) == 0 {
			continue
		}
		ids := make([]string, 0, len(byKey))
		for id := range byKey {
			ids = append(ids, id)
		}
		ctx, cancel := context.WithTimeout(context.Background(), l.every)
		revoked, err := l.keys.RevokedKeys(ctx, ids)
		cancel()
		if err != nil {
			l.log.Warn("live connections: check revoked keys", "err", err)
			continue
		}
		for _, id := range revoked {
			l.log.Info("live events: closing the connections of a revoked key", "key_id", id, "connections", len(byKey[id]))
			for _, lc := range byKey[id] {
				lc.close(closeUnauthorized, failure.Unauthenticated, "API key revoked", nil)
			}
		}
	}
}

// shutdown closes every connection normally and waits for their handlers.
func (l *liveConns) shutdown(ctx context.Context) error {
	l.mu.Lock()
	l.closing = true
	conns := make([]*liveConn, 0, len(l.conns))
	for lc := range l.conns {
		conns = append(conns, lc)
	}
	l.mu.Unlock()
	for _, lc := range conns {
		if lc.transport == "websocket" {
			lc.closeWhenIdle(closeNormal, "server shutting down")
		}
	}
	done := make(chan struct{})
	go func() { l.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		for _, lc := range conns {
			lc.close(closeNormal, "", "server shutting down", nil)
		}
		return ctx.Err()
	}
}
