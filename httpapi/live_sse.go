package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/99designs/gqlgen/graphql/handler/transport"

	"github.com/agenttrust/service/auth"
	"github.com/agenttrust/service/failure"
	"github.com/agenttrust/service/live"
)

// serveSSE runs a graphql-sse ("distinct connections") request as a live
// connection: tracked, and ended with an error event when its key is
// revoked or it falls behind.
func (e *Edge) serveSSE(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !(transport.SSE{}).Supports(r) {
			next.ServeHTTP(w, r)
			return
		}
		p, _ := auth.FromContext(r.Context())
		if fe := e.caps.take(r.Context(), capConnections, p.OrgID); fe != nil {
			writeGraphQLErrorStatus(w, fe.Code.HTTPStatus(), fe)
			return
		}
		defer e.caps.release(capConnections, p.OrgID)
		ctx, cancel := context.WithCancel(r.Context())
		defer cancel()
		sw := &sseWriter{ResponseWriter: w, rc: http.NewResponseController(w), timeout: e.cfg.LiveWriteTimeout, broken: cancel}
		lc := &liveConn{transport: "sse", cancel: cancel, keyID: p.KeyID, sse: sw}
		if !e.conns.add(lc) {
			writeGraphQLErrorStatus(w, http.StatusServiceUnavailable, failure.Errorf(failure.Internal, "the server is shutting down: reconnect"))
			return
		}
		defer e.conns.remove(lc)
		defer sw.end()
		ctx = live.WithConn(ctx, lc)
		next.ServeHTTP(sw, r.WithContext(ctx))
	})
}

// sseWriter lets the edge put an error event before gqlgen's final
// "complete" when it ends a stream early, and gives every write the live
// write deadline: a stream whose peer does not read ends when a write or
// flush cannot finish in time, as a websocket does, instead of holding its
// subscription, goroutine and unsent events.
type sseWriter struct {
	http.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration
	broken  context.CancelFunc // ends the stream's operation: gqlgen ignores write errors

	mu     sync.Mutex
	failed []byte

	// wmu serialises writes with end: gqlgen's keep-alive goroutine may
	// still write after its handler returned, when the response is gone.
	wmu   sync.Mutex
	ended bool
}

func (s *sseWriter) fail(code failure.Code, msg string, closeCode int, ext map[string]any) {
	x := map[string]any{"code": string(code), "closeCode": closeCode}
	for k, v := range ext {
		x[k] = v
	}
	b, _ := json.Marshal(map[string]any{"errors": []map[string]any{{"message": msg, "extensions": x}}})
	s.mu.Lock()
	s.failed = fmt.Appendf(nil, "event: next\ndata: %s\n\n", b)
	s.mu.Unlock()
}

func (s *sseWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	failed := s.failed
	if failed != nil && strings.HasPrefix(string(p), "event: complete") {
		s.failed = nil
	} else {
		failed = nil
	}
	s.mu.Unlock()
	if failed != nil {
		if err := s.write(failed); err != nil {
			return 0, err
		}
	}
	if err := s.write(p); err != nil {
		return 0, err
	}
	return len(p), nil
}

// errStreamEnded refuses a write to an SSE stream whose handler returned.
var errStreamEnded = errors.New("the event stream has ended")

// write writes p within the deadline; a failure ends the stream.
func (s *sseWriter) write(p []byte) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if s.ended {
		return errStreamEnded
	}
	_ = s.rc.SetWriteDeadline(time.Now().Add(s.timeout))
	if _, err := s.ResponseWriter.Write(p); err != nil {
		s.broken()
		return err
	}
	return nil
}

// Flush supports streaming; a flush that cannot finish within the deadline
// ends the stream.
func (s *sseWriter) Flush() {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if s.ended {
		return
	}
	_ = s.rc.SetWriteDeadline(time.Now().Add(s.timeout))
	if err := s.rc.Flush(); err != nil {
		s.broken()
	}
}

// end makes later writes fail: the handler has returned.
func (s *sseWriter) end() {
	s.wmu.Lock()
	s.ended = true
	s.wmu.Unlock()
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (s *sseWriter) Unwrap() http.ResponseWriter { return s.ResponseWriter }
