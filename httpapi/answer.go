package httpapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/errcode"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/agenttrust/service/failure"
	"github.com/agenttrust/service/jsontext"
)

// graphqlResponseJSON is the media type of GraphQL over HTTP's own answers,
// which a client asks for with Accept.
const graphqlResponseJSON = "application/graphql-response+json"

// answers writes GraphQL answers over HTTP: it decides each answer's status
// from its errors (status) and writes it once.
type answers struct {
	// unavailable reports whether an error means the database is unreachable.
	unavailable func(error) bool
}

// status is the HTTP status of a GraphQL answer with errs, sent as
// contentType, and the seconds of its Retry-After (0: none). A RATE_LIMITED
// error that says when to retry makes it 429, with the longest of their
// retryAfter; document errors (gqlgen's protocol kind) make it 400 when the
// client accepts application/graphql-response+json (GraphQL over HTTP); an
// INTERNAL error caused by the database being unreachable makes it 503; any
// other answer, one with failed fields included, is 200.
func (a answers) status(errs gqlerror.List, contentType string) (int, int) {
	retry, outage := 0, false
	for _, e := range errs {
		switch e.Extensions["code"] {
		case string(failure.RateLimited):
			if secs, _ := e.Extensions["retryAfter"].(int); secs > retry {
				retry = secs
			}
		case string(failure.Internal):
			outage = outage || a.outage(e.Unwrap())
		}
	}
	switch {
	case retry > 0:
		return http.StatusTooManyRequests, retry
	case contentType == graphqlResponseJSON && errcode.GetErrorKind(errs) == errcode.KindProtocol:
		return http.StatusBadRequest, 0
	case outage:
		return http.StatusServiceUnavailable, 0
	}
	return http.StatusOK, 0
}

// outage reports whether cause, the cause the error presenter kept of an
// INTERNAL error, is the database being unreachable; the service's own
// INTERNAL errors (failure.Error) are not.
func (a answers) outage(cause error) bool {
	return cause != nil && failure.As(cause) == nil && a.unavailable != nil && a.unavailable(cause)
}

// write sends resp with its status (status). An answer that is only
// compact data with nothing encoding/json would escape (jsontext.Plain) is
// written as {"data":…} as it is, with its length: byte for byte what
// encoding/json writes, without re-validating the data. A nil resp (the
// request ended first) is null, as gqlgen writes it.
func (a answers) write(w http.ResponseWriter, contentType string, resp *graphql.Response) {
	plain := plainAnswer(resp)
	var body []byte
	var errs gqlerror.List
	if plain {
		// net/http would chunk an answer over its buffer without the length.
		w.Header().Set("Content-Length", strconv.Itoa(len(dataOpen)+len(resp.Data)+len(dataClose)))
	} else {
		var err error
		if body, err = json.Marshal(resp); err != nil {
			panic(fmt.Errorf("encode a GraphQL answer: %w", err))
		}
		if resp != nil {
			errs = resp.Errors
		}
	}
	status, retry := a.status(errs, contentType)
	if retry > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(retry))
	}
	w.WriteHeader(status)
	if !plain {
		_, _ = w.Write(body)
		return
	}
	_, _ = w.Write(dataOpen)
	_, _ = w.Write(resp.Data)
	_, _ = w.Write(dataClose)
}

// dataOpen and dataClose are written around a plain answer's data.
var dataOpen, dataClose = []byte(`{"data":`), []byte("}")

// plainAnswer reports whether resp is data alone, compact and plain.
func plainAnswer(resp *graphql.Response) bool {
	return resp != nil && len(resp.Errors) == 0 && resp.Label == "" && resp.Path == nil && resp.HasNext == nil &&
		len(resp.Extensions) == 0 && jsontext.Plain(resp.Data)
}
