package client

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// gqlError is one entry of a GraphQL answer's errors.
type gqlError struct {
	Message    string `json:"message"`
	Path       []any  `json:"path"`
	Extensions struct {
		Code        string       `json:"code"`
		FieldErrors []FieldError `json:"fieldErrors"`
		ReasonCode  string       `json:"reasonCode"`
		Reason      string       `json:"reason"`
		RetryAfter  float64      `json:"retryAfter"`
	} `json:"extensions"`
}

// gqlAnswer is a GraphQL answer over HTTP.
type gqlAnswer struct {
	Data   map[string]json.RawMessage `json:"data"`
	Errors []gqlError                 `json:"errors"`
}

// gqlErr is the typed error of a GraphQL error entry.
func gqlErr(status int, header http.Header, e gqlError) error {
	if field, ok := variableField(e.Path); ok {
		// A variable GraphQL could not coerce to its type (a null in a
		// list of non-null strings, a string for an Int): the input is
		// invalid, as much as a value the service's own checks refuse.
		return typedError(status, header, errorDetail{
			code:        CodeValidationFailed,
			message:     "invalid input: " + field + ": " + e.Message,
			fieldErrors: []FieldError{{Field: field, Message: e.Message}},
		})
	}
	return typedError(status, header, errorDetail{
		code:        e.Extensions.Code,
		message:     e.Message,
		fieldErrors: e.Extensions.FieldErrors,
		reasonCode:  e.Extensions.ReasonCode,
		reason:      e.Extensions.Reason,
		retryAfter:  time.Duration(e.Extensions.RetryAfter * float64(time.Second)),
	})
}

// decodeGraphQL parses a GraphQL answer into *out and returns its first
// error as a typed error.
func decodeGraphQL(out *gqlAnswer) decodeFunc {
	return func(a *answer) error {
		*out = gqlAnswer{}
		err := json.Unmarshal(a.body, out)
		if err == nil && len(out.Errors) > 0 {
			return gqlErr(a.status, a.header, out.Errors[0])
		}
		if err != nil && a.status < 300 {
			return fmt.Errorf("decode GraphQL answer (HTTP %d): %w", a.status, err)
		}
		if a.status >= 300 {
			return typedError(a.status, a.header, errorDetail{message: http.StatusText(a.status)})
		}
		return nil
	}
}

// graphql runs one operation whose answer is data[field], decoded into out.
func (c *Client) graphql(ctx context.Context, op string, policy retryPolicy, query string, vars map[string]any, field string, out any) error {
	body, err := json.Marshal(map[string]any{"query": query, "variables": vars})
	if err != nil {
		return fmt.Errorf("agenttrust %s: encode request: %w", op, err)
	}
	h := http.Header{}
	h.Set("Accept", "application/graphql-response+json, application/json")
	var ga gqlAnswer
	if _, err := c.do(ctx, call{method: http.MethodPost, path: "/graphql", body: body, header: h, policy: policy, op: op}, decodeGraphQL(&ga)); err != nil {
		return err
	}
	raw, ok := ga.Data[field]
	if !ok || string(raw) == "null" {
		return fmt.Errorf("agenttrust %s: answer has no %s", op, field)
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("agenttrust %s: decode %s: %w", op, field, err)
	}
	return nil
}

// variableField names the input field of a variable-coercion error, whose
// path is ["variable", name, field…, index…]: ["variable","input",
// "authorizedActions",1] is input.authorizedActions[1], the form of the
// service's own fieldErrors.
func variableField(path []any) (string, bool) {
	if len(path) < 2 || path[0] != "variable" {
		return "", false
	}
	var b strings.Builder
	for i, p := range path[1:] {
		switch p := p.(type) {
		case string:
			if i > 0 {
				b.WriteByte('.')
			}
			b.WriteString(p)
		case float64: // a list index, as encoding/json decodes numbers
			fmt.Fprintf(&b, "[%d]", int(p))
		default:
			return "", false
		}
	}
	return b.String(), true
}
