package delivery

import (
	"context"
	"time"

	"github.com/agenttrust/service/db"
)

// A run records its attempts recordChunk at a time, or once the oldest
// unrecorded one has waited recordWait: records keep up with the sends
// instead of all coming at the job's end, so they show while an endpoint
// that stopped answering holds the rest of the job.
const (
	recordChunk = 100
	recordWait  = time.Second
)

// flush records the pending attempts when there are enough of them, the
// oldest has waited long enough, or final (the run's last record). Once the
// endpoint is found inactive, the attempts still in flight then are recorded
// too (a deleted endpoint's are not); after a record failed, the rest are
// left to the job's retry.
func (s *sends) flush(final bool) {
	if len(s.pending) == 0 || s.recordErr != nil {
		return
	}
	if !final && len(s.pending) < recordChunk && time.Since(s.since) < recordWait {
		return
	}
	// The attempts were made: their record outlives the job's context,
	// though not the statement timeout.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(s.ctx), db.StatementTimeout)
	defer cancel()
	inactive, err := s.r.svc.RecordAttempts(ctx, s.b.WebhookID, s.run, s.pending)
	s.pending = nil
	s.inactive = s.inactive || inactive
	s.recordErr = err
}
