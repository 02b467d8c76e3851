package httpapi

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/agenttrust/service/auth"
	"github.com/agenttrust/service/failure"
	"github.com/agenttrust/service/paging"
	"github.com/agenttrust/service/transaction"
)

// exportWriteTimeout bounds how long one batch of an export may take to
// reach the client: a reader that stops reading ends the export instead of
// holding its goroutine for ever.
const exportWriteTimeout = 30 * time.Second

// exportRoute is the export's route pattern and its entry in auth.Operations.
const exportRoute = "GET /transactions/export"

// exportRoutes routes GET /transactions/export; the caller authenticates first.
func exportRoutes(d Deps, meter func(context.Context, int) error) http.Handler {
	mux := http.NewServeMux()
	e := &exportEdge{restEdge: restEdge{d: d}, meter: meter}
	route(mux, exportRoute, e.serve)
	return mux
}

// exportEdge streams exports: each batch read from the database is encoded,
// written and flushed before the next is read, so an export holds one batch
// in memory whatever its range, and is charged to the organization's rate limit as
// it reads (paging.Tokens per batch, waiting for the tokens).
type exportEdge struct {
	restEdge
	meter func(context.Context, int) error
}

func (e *exportEdge) serve(w http.ResponseWriter, r *http.Request, p auth.Principal) {
	format, rng, fe := exportQuery(r)
	if fe != nil {
		writeRESTError(w, fe.Code.HTTPStatus(), fe)
		return
	}
	if err := rng.Validate(); err != nil {
		e.fail(w, r, err)
		return
	}
	out := &exportStream{w: w, rc: http.NewResponseController(w), format: format}
	err := e.stream(r.Context(), p, out, format, rng)
	switch {
	case err == nil:
		return
	case !out.started:
		e.fail(w, r, err)
		return
	}
	// The status is sent: ending the response without its last chunk tells
	// the client the export is incomplete.
	if r.Context().Err() == nil {
		e.d.Logger.WarnContext(r.Context(), "export ended early", "err", err.Error())
	}
	panic(http.ErrAbortHandler)
}

// stream encodes the export of what p sees into out batch by batch, each
// charged before it is written, and finishes it.
func (e *exportEdge) stream(ctx context.Context, p auth.Principal, out *exportStream, format transaction.Format, rng transaction.ExportRange) error {
	enc, err := transaction.NewEncoder(out, format)
	if err != nil {
		return err
	}
	err = e.d.Services.Transactions.Export(ctx, p, rng, func(batch []*transaction.Transaction) error {
		if err := e.meter(ctx, paging.Tokens(len(batch))); err != nil {
			return err
		}
		if !out.started { // the first batch is read and paid for: the answer is 200
			out.start()
		}
		for _, t := range batch {
			if err := enc.Write(t); err != nil {
				return err
			}
		}
		return out.flush(enc)
	})
	if err != nil {
		return err
	}
	if err := enc.Close(); err != nil {
		return err
	}
	if !out.started { // an empty export: the header, or [], in one write
		return out.flush(enc)
	}
	return nil
}

// exportQuery reads format, since and until; a bad one is ValidationFailed
// naming it.
func exportQuery(r *http.Request) (transaction.Format, transaction.ExportRange, *failure.Error) {
	q := r.URL.Query()
	var f failure.Fields
	format := transaction.Format(q.Get("format"))
	if format != transaction.CSV && format != transaction.JSON {
		f.Add("format", "must be csv or json")
	}
	var rng transaction.ExportRange
	for _, p := range []struct {
		name string
		dst  **time.Time
	}{{"since", &rng.Since}, {"until", &rng.Until}} {
		v := q.Get(p.name)
		if v == "" {
			continue
		}
		t, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			f.Add(p.name, "must be an RFC 3339 time such as 2026-11-21T00:00:00Z")
			continue
		}
		*p.dst = &t
	}
	if err := f.Err(); err != nil {
		return "", rng, failure.As(err)
	}
	return format, rng, nil
}

// exportStream is the response an export is encoded into. Its status and
// headers go out once the first batch is read and charged, so that an error
// before any row (a database outage, the rate limit) is still answered with
// its status; until then it keeps what the encoder hands it (the header row).
type exportStream struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	format  transaction.Format
	pending [][]byte // the encoder's output before the first flush
	started bool
}

// Write keeps the encoder's output until the first flush, then writes through.
func (s *exportStream) Write(p []byte) (int, error) {
	if !s.started {
		s.pending = append(s.pending, append([]byte(nil), p...))
		return len(p), nil
	}
	return s.w.Write(p)
}

// flush sends what enc holds to the client within exportWriteTimeout,
// starting the answer if it has not started.
func (s *exportStream) flush(enc *transaction.Encoder) error {
	if !s.started {
		s.start()
	}
	_ = s.rc.SetWriteDeadline(time.Now().Add(exportWriteTimeout))
	if err := enc.Flush(); err != nil {
		return err
	}
	if err := s.rc.Flush(); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return err
	}
	return nil
}

// start sends the status, the headers and what was kept.
func (s *exportStream) start() {
	s.started = true
	h := s.w.Header()
	switch s.format {
	case transaction.CSV:
		h.Set("Content-Type", "text/csv; charset=utf-8")
		h.Set("Content-Disposition", `attachment; filename="transactions.csv"`)
	default:
		h.Set("Content-Type", "application/json")
		h.Set("Content-Disposition", `attachment; filename="transactions.json"`)
	}
	h.Set("Cache-Control", "no-store")
	s.w.WriteHeader(http.StatusOK)
	for _, p := range s.pending {
		_, _ = s.w.Write(p)
	}
	s.pending = nil
}

// meterWait bounds how long a GraphQL operation waits for the tokens of
// the rows it reads: an answer built in memory or a replay not yet started
// is refused RATE_LIMITED instead of holding its request.
const meterWait = 10 * time.Second

// meter charges the key in ctx tokens of its rate for a GraphQL operation's
// rows (resolvers.Meter), waiting at most meterWait. Its RATE_LIMITED
// refusal makes the answer over HTTP 429 with Retry-After (answers.status),
// as the root fields' charge does.
func (e *Edge) meter(ctx context.Context, tokens int) error {
	return e.charge(ctx, tokens, meterWait)
}

// streamMeter charges an export stream's rows, waiting as long as the
// client stays: the stream slows to the organization's rate.
func (e *Edge) streamMeter(ctx context.Context, tokens int) error {
	return e.charge(ctx, tokens, 0)
}

func (e *Edge) charge(ctx context.Context, tokens int, maxWait time.Duration) error {
	p, err := auth.FromContext(ctx)
	if err != nil {
		return err
	}
	return e.limiter.take(ctx, p.OrgID, tokens, maxWait)
}
