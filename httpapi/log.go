package httpapi

import (
	"bufio"
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"regexp"
	"strconv"
	"time"

	"github.com/agenttrust/service/auth"
	"github.com/agenttrust/service/id"
)

type requestInfoKey struct{}

// requestInfo is what the edge knows of a request as it arrives, for every
// line logged with its context.
type requestInfo struct {
	id     string
	client string // the client's address (clientAddress)
}

var requestIDPattern = regexp.MustCompile(`^[A-Za-z0-9._:-]{1,128}$`)

// LogHandler wraps h so that every record logged with a request's context
// (slog's *Context methods) carries that request's request_id, and the
// org_id of its principal once the caller is authenticated: a line logged
// deep in a resolver can be matched to the request line and to the
// X-Request-Id the caller saw.
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
		if p, err := auth.FromContext(ctx); err == nil {
			r.AddAttrs(slog.String("org_id", p.OrgID))
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

// requestLog gives each request an id (X-Request-Id, echoed back) and its
// client's address (clientAddress), recovers panics as 500, counts it and
// logs one structured line. log must be built on LogHandler: the id and
// organization come from the context, the organization from the principal
// the API-key step produced (authenticated).
func requestLog(log *slog.Logger, m *metrics, trusted []netip.Prefix, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		ri := &requestInfo{id: r.Header.Get("X-Request-Id"), client: clientAddress(r, trusted)}
		if !requestIDPattern.MatchString(ri.id) {
			ri.id = "req_" + id.Random(10)
		}
		w.Header().Set("X-Request-Id", ri.id)
		ctx := context.WithValue(r.Context(), requestInfoKey{}, ri)
		sw := &statusWriter{ResponseWriter: w}
		defer func() {
			logCtx := ctx
			if sw.principal != nil {
				logCtx = auth.WithPrincipal(ctx, *sw.principal)
			}
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p)
				}
				log.ErrorContext(logCtx, "panic", "panic", p)
				if !sw.wrote {
					writeGraphQLErrorStatus(sw, http.StatusInternalServerError, internalError())
				}
			}
			route := r.URL.Path
			if r.Pattern == "" && route != "/graphql" {
				route = "other"
			}
			m.httpRequests.WithLabelValues(route, strconv.Itoa(sw.status())).Inc()
			log.InfoContext(logCtx, "request", "method", r.Method, "path", r.URL.Path,
				"status", sw.status(), "duration_ms", time.Since(start).Milliseconds(), "client", ri.client)
		}()
		next.ServeHTTP(sw, r.WithContext(ctx))
	})
}

// statusWriter records, for the request line, the status written and the
// principal the request was authenticated as.
type statusWriter struct {
	http.ResponseWriter
	code      int
	wrote     bool
	principal *auth.Principal
}

// authenticated tells the request line of the request w answers which
// principal the API-key step produced for it.
func authenticated(w http.ResponseWriter, p auth.Principal) {
	if sw, ok := w.(*statusWriter); ok {
		sw.principal = &p
	}
}

func (w *statusWriter) WriteHeader(code int) {
	if w.wrote {
		return
	}
	w.code, w.wrote = code, true
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
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
