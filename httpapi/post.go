package httpapi

import (
	"context"
	"net/http"
	"strconv"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler/transport"

	"github.com/agenttrust/service/jsontext"
)

// postOnce is gqlgen's POST transport, except that a successful answer is
// written once: gqlgen encodes the response with encoding/json, which
// re-validates and re-compacts the already written data. When the data is
// compact and has nothing encoding/json would escape (jsontext.Plain),
// {"data":…} is written as is, byte for byte what gqlgen's encoding writes;
// anything else (errors, extensions, deferred parts) goes through gqlgen's
// own encoding.
type postOnce struct{ transport.POST }

var _ graphql.Transport = postOnce{}

func (t postOnce) Do(w http.ResponseWriter, r *http.Request, exec graphql.GraphExecutor) {
	ow := &onceWriter{ResponseWriter: w}
	t.POST.Do(ow, r, onceExecutor{GraphExecutor: exec, w: ow})
}

// onceExecutor writes plain answers itself, and marks the writer so that
// gqlgen's own encoding of the emptied response is discarded.
type onceExecutor struct {
	graphql.GraphExecutor
	w *onceWriter
}

func (e onceExecutor) DispatchOperation(ctx context.Context, rc *graphql.OperationContext) (graphql.ResponseHandler, context.Context) {
	next, ctx := e.GraphExecutor.DispatchOperation(ctx, rc)
	return func(ctx context.Context) *graphql.Response {
		resp := next(ctx)
		if resp == nil || len(resp.Errors) > 0 || resp.Label != "" || resp.Path != nil || resp.HasNext != nil ||
			len(resp.Extensions) > 0 || !jsontext.Plain(resp.Data) {
			return resp
		}
		body := append(append(make([]byte, 0, len(resp.Data)+9), `{"data":`...), resp.Data...)
		body = append(body, '}')
		// The length up front: net/http would chunk an answer over 2 KB,
		// one more write and syscall per answer.
		e.w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		_, _ = e.w.ResponseWriter.Write(body)
		e.w.done = true
		return &graphql.Response{}
	}, ctx
}

// onceWriter drops what gqlgen writes after the answer was written.
type onceWriter struct {
	http.ResponseWriter
	done bool
}

func (w *onceWriter) Write(b []byte) (int, error) {
	if w.done {
		return len(b), nil
	}
	return w.ResponseWriter.Write(b)
}
