package httpapi

import (
	"bufio"
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"time"

	"github.com/agenttrust/service/id"
)

type requestInfoKey struct{}

// requestInfo is filled in as a request passes through the edge and logged at the end.
type requestInfo struct {
	id     string
	orgID  string
	client string // the client's address (clientAddress)
}

var requestIDPattern = regexp.MustCompile(`^[A-Za-z0-9._:-]{1,128}$`)

func setOrg(ctx context.Context, orgID string) {
	if ri, ok := ctx.Value(requestInfoKey{}).(*requestInfo); ok {
		ri.orgID = orgID
	}
}

// LogHandler wraps h so that every record logged with a request's context
// (slog's *Context methods) carries that request's request_id, and its
// org_id once the caller is authenticated: a line logged deep in a resolver
// can be matched to the request line and to the X-Request-Id the caller saw.
func LogHandler(h slog.Handler) slog.Handler {
	if _, ok := h.(contextHandler); ok {
		return h
	}
	return contextHandler{h}
}

type contextHandler struct{ slog.Handler }

func (h contextHandler) Handle(ctx context.Context, r slog.Record) error {
	if ri, ok := ctx.Value(requestInfoKey{}).(*requestInfo); ok {
		r = r.Clone()
		r.AddAttrs(slog.String("request_id", ri.id))
		if ri.orgID != "" {
			r.AddAttrs(slog.String("org_id", ri.orgID))
		}
	}
	return h.Handler.Handle(ctx, r)
}

func (h contextHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return contextHandler{h.Handler.WithAttrs(attrs)}
}

func (h contextHandler) WithGroup(name string) slog.Handler {
	return contextHandler{h.Handler.WithGroup(name)}
}

// requestLog gives each request an id (X-Request-Id, echoed back), recovers
// panics as 500, counts it and logs one structured line. log must be built
// on LogHandler: the id and organization come from the context.
func requestLog(log *slog.Logger, m *metrics, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		ri := &requestInfo{id: r.Header.Get("X-Request-Id")}
		if !requestIDPattern.MatchString(ri.id) {
			ri.id = "req_" + id.Random(10)
		}
		w.Header().Set("X-Request-Id", ri.id)
		ctx := context.WithValue(r.Context(), requestInfoKey{}, ri)
		sw := &statusWriter{ResponseWriter: w}
		defer func() {
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p)
				}
				log.ErrorContext(ctx, "panic", "panic", p)
				if !sw.wrote {
					writeGraphQLErrorStatus(sw, http.StatusInternalServerError, internalError())
				}
			}
			route := r.URL.Path
			if r.Pattern == "" && route != "/graphql" {
				route = "other"
			}
			m.httpRequests.WithLabelValues(route, strconv.Itoa(sw.status())).Inc()
			log.InfoContext(ctx, "request", "method", r.Method, "path", r.URL.Path,
				"status", sw.status(), "duration_ms", time.Since(start).Milliseconds(), "client", ri.client)
		}()
		next.ServeHTTP(sw, r.WithContext(ctx))
	})
}

// statusWriter records the status; before the first write it lets the edge
// still change it (rewrite).
type statusWriter struct {
	http.ResponseWriter
	code    int
	wrote   bool
	rewrite func(code int) int
	// discard drops what the wrapped handler writes: the edge answers instead.
	discard bool
}

func (w *statusWriter) WriteHeader(code int) {
	if w.wrote {
		return
	}
	if w.rewrite != nil {
		code = w.rewrite(code)
	}
	w.code, w.wrote = code, true
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	if w.discard {
		return len(b), nil
	}
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) status() int {
	if w.code == 0 {
		return http.StatusOK
	}
	return w.code
}

// Flush supports streaming transports.
func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Hijack supports websocket upgrades.
func (w *statusWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	h, ok := w.ResponseWriter.(http.Hijacker)
	if !ok {
		return nil, nil, errors.New("hijack not supported")
	}
	w.wrote = true
	w.code = http.StatusSwitchingProtocols
	return h.Hijack()
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
