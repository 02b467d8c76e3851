package wire

import (
	"context"
	"log/slog"
	"time"

	"github.com/agenttrust/service/db"
)

// expirySweep marks transactions expired once their approval time has
// passed. Every replica runs one: ExpireApprovals expires each transaction
// exactly once however many run at the same time.
type expirySweep struct {
	svc   *db.TransactionService
	every time.Duration
	log   *slog.Logger
}

// run sweeps every s.every until ctx ends.
func (s expirySweep) run(ctx context.Context) {
	t := time.NewTicker(s.every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if n, err := s.svc.ExpireApprovals(ctx); err != nil && ctx.Err() == nil {
			s.log.Warn("expire pending transactions", "err", err)
		} else if n > 0 {
			s.log.Info("expired pending transactions", "count", n)
		}
	}
}
