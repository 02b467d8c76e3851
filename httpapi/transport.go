package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/agenttrust/service/failure"
)

// postTransport runs GraphQL over HTTP POST as gqlgen's POST transport does
// (which also decides the requests it takes), except that each answer goes
// out through answers: its status decided from it, written once.
type postTransport struct {
	transport.POST
	answers answers
}

func (t postTransport) Do(w http.ResponseWriter, r *http.Request, exec graphql.GraphExecutor) {
	ctype := responseType(r)
	w.Header().Set("Content-Type", ctype)
	start := graphql.Now()
	params := &graphql.RawParams{Headers: r.Header}
	body, err := io.ReadAll(r.Body)
	if err == nil {
		err = decodeJSON(bytes.NewReader(body), params)
	}
	if err != nil { // readBody checked every body but an empty one
		w.WriteHeader(http.StatusBadRequest)
		writeResponse(w, exec.DispatchError(r.Context(), gqlerror.List{
			gqlerror.Errorf("json request body could not be decoded: %+v body:%s", err, body)}))
		return
	}
	params.ReadTime = graphql.TraceTiming{Start: start, End: graphql.Now()}
	t.answers.run(r.Context(), w, exec, params, ctype, false)
}

// getTransport runs GraphQL over HTTP GET as gqlgen's GET transport does,
// answering through answers; it runs queries only (answers.run).
type getTransport struct {
	transport.GET
	answers answers
}

func (t getTransport) Do(w http.ResponseWriter, r *http.Request, exec graphql.GraphExecutor) {
	query, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		w.WriteHeader(http.StatusBadRequest)
		writeResponse(w, &graphql.Response{Errors: gqlerror.List{{Message: err.Error()}}})
		return
	}
	ctype := responseType(r)
	w.Header().Set("Content-Type", ctype)
	params := &graphql.RawParams{Query: query.Get("query"), OperationName: query.Get("operationName"), Headers: r.Header}
	params.ReadTime.Start = graphql.Now()
	for _, m := range [...]struct {
		name string
		into *map[string]any
	}{{"variables", &params.Variables}, {"extensions", &params.Extensions}} {
		if v := query.Get(m.name); v != "" && decodeJSON(strings.NewReader(v), m.into) != nil {
			w.WriteHeader(http.StatusBadRequest)
			writeResponse(w, &graphql.Response{Errors: gqlerror.List{{Message: m.name + " could not be decoded"}}})
			return
		}
	}
	params.ReadTime.End = graphql.Now()
	t.answers.run(r.Context(), w, exec, params, ctype, true)
}

// run creates the operation params asks for, runs it and writes its answer
// as contentType. With queriesOnly (GET), an operation other than a query
// is refused 405 with Allow (GraphQL over HTTP), as VALIDATION_FAILED.
func (a answers) run(ctx context.Context, w http.ResponseWriter, exec graphql.GraphExecutor, params *graphql.RawParams,
	contentType string, queriesOnly bool) {
	oc, errs := exec.CreateOperationContext(ctx, params)
	if errs != nil {
		a.write(w, contentType, exec.DispatchError(graphql.WithOperationContext(ctx, oc), errs))
		return
	}
	if queriesOnly && oc.Operation.Operation != ast.Query {
		w.Header().Set("Allow", "GET, POST")
		w.WriteHeader(http.StatusMethodNotAllowed)
		encodeGraphQLError(w, failure.Invalid("query", "GET runs queries only: send mutations with POST"))
		return
	}
	responses, ctx := exec.DispatchOperation(ctx, oc)
	a.write(w, contentType, responses(ctx))
}

// sseTransport is gqlgen's SSE transport, except that a subscription
// refused before it starts is answered with the refusal's status and
// Retry-After (answers.status): the stream's first bytes go out before its
// error event.
type sseTransport struct {
	transport.SSE
	answers answers
}

func (t sseTransport) Do(w http.ResponseWriter, r *http.Request, exec graphql.GraphExecutor) {
	t.SSE.Do(w, r, &sseRefusal{GraphExecutor: exec, w: w, answers: t.answers})
}

// sseRefusal presents a refused operation's errors as soon as it is
// refused, writes their status, and gives the transport that answer.
type sseRefusal struct {
	graphql.GraphExecutor
	w       http.ResponseWriter
	answers answers
	refusal *graphql.Response
}

func (e *sseRefusal) CreateOperationContext(ctx context.Context, params *graphql.RawParams) (*graphql.OperationContext, gqlerror.List) {
	oc, errs := e.GraphExecutor.CreateOperationContext(ctx, params)
	if errs == nil {
		return oc, nil
	}
	e.refusal = e.GraphExecutor.DispatchError(graphql.WithOperationContext(ctx, oc), errs)
	if status, retry := e.answers.status(e.refusal.Errors, "text/event-stream"); status != http.StatusOK {
		if retry > 0 {
			e.w.Header().Set("Retry-After", strconv.Itoa(retry))
		}
		e.w.Header().Set("Content-Type", "text/event-stream")
		e.w.WriteHeader(status)
	}
	return oc, errs
}

func (e *sseRefusal) DispatchError(ctx context.Context, list gqlerror.List) *graphql.Response {
	if e.refusal != nil {
		return e.refusal
	}
	return e.GraphExecutor.DispatchError(ctx, list)
}

// responseType is the media type of an answer for the request's Accept, as
// gqlgen's HTTP transports choose it: the first accepted type it knows
// (application/json for a wildcard or no Accept), else
// application/graphql-response+json.
func responseType(r *http.Request) string {
	accept := r.Header.Get("Accept")
	if accept == "" {
		return "application/json"
	}
	for part := range strings.SplitSeq(accept, ",") {
		mt, _, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		switch mt {
		case "*/*", "application/*", "application/json":
			return "application/json"
		case graphqlResponseJSON:
			return graphqlResponseJSON
		}
	}
	return graphqlResponseJSON
}

// decodeJSON decodes as gqlgen's transports do, numbers kept as json.Number.
func decodeJSON(r io.Reader, v any) error {
	dec := json.NewDecoder(r)
	dec.UseNumber()
	return dec.Decode(v)
}

// writeResponse writes a transport's own refusal as gqlgen does.
func writeResponse(w io.Writer, resp *graphql.Response) {
	b, _ := json.Marshal(resp)
	_, _ = w.Write(b)
}
