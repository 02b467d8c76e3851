package testkit

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// GQLError is one GraphQL error of an answer.
type GQLError struct {
	Message    string         `json:"message"`
	Path       []any          `json:"path"`
	Extensions map[string]any `json:"extensions"`
}

// FieldError is one element of a VALIDATION_FAILED error's fieldErrors.
type FieldError struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

// Response is a raw HTTP answer, decoded as a GraphQL response when it is JSON.
type Response struct {
	Status int
	Header http.Header
	Body   string
	Data   map[string]json.RawMessage `json:"data"`
	Errors []GQLError                 `json:"errors"`
}

// Code is the first error's extensions.code, or "" when there is none.
func (r *Response) Code() string {
	if len(r.Errors) == 0 {
		return ""
	}
	c, _ := r.Errors[0].Extensions["code"].(string)
	return c
}

// ReasonCode is the first error's extensions.reasonCode (a POLICY_DENIED
// refusal's code), or "" when there is none.
func (r *Response) ReasonCode() string {
	if len(r.Errors) == 0 {
		return ""
	}
	c, _ := r.Errors[0].Extensions["reasonCode"].(string)
	return c
}

// Into decodes data.field into v, failing on any error or a non-200 status.
func (r *Response) Into(t testing.TB, field string, v any) {
	t.Helper()
	if len(r.Errors) > 0 || r.Status != http.StatusOK {
		t.Fatalf("unexpected answer %d: %s", r.Status, r.Body)
	}
	if err := json.Unmarshal(r.Data[field], v); err != nil {
		t.Fatalf("decode %s: %v (%s)", field, err, r.Data[field])
	}
}

// Refused fails unless r is exactly one error with code, a message and no data.
func (r *Response) Refused(t testing.TB, code string) {
	t.Helper()
	if len(r.Errors) != 1 || r.Code() != code {
		t.Fatalf("want one %s error, got %d (HTTP %d): %s", code, len(r.Errors), r.Status, r.Body)
	}
	if r.Errors[0].Message == "" {
		t.Fatalf("%s error without a message", code)
	}
	for k, v := range r.Data {
		if string(v) != "null" {
			t.Fatalf("refused request returned data %s: %s", k, v)
		}
	}
}

// RefusedHTTP is Refused that also requires HTTP status.
func (r *Response) RefusedHTTP(t testing.TB, status int, code string) {
	t.Helper()
	if r.Status != status {
		t.Fatalf("want HTTP %d with one %s error, got %d: %s", status, code, r.Status, r.Body)
	}
	r.Refused(t, code)
}

// Fields fails unless r is one VALIDATION_FAILED error, and returns the
// sorted paths its fieldErrors name (each with a message).
func (r *Response) Fields(t testing.TB) []string {
	t.Helper()
	r.Refused(t, "VALIDATION_FAILED")
	raw, _ := json.Marshal(r.Errors[0].Extensions["fieldErrors"])
	var fes []FieldError
	if err := json.Unmarshal(raw, &fes); err != nil || len(fes) == 0 {
		t.Fatalf("fieldErrors missing or malformed (%v): %s", err, raw)
	}
	out := make([]string, len(fes))
	for i, fe := range fes {
		if fe.Message == "" {
			t.Fatalf("fieldError %q has no message", fe.Field)
		}
		out[i] = fe.Field
	}
	slices.Sort(out)
	return out
}

// Serve sends req to h and records the answer, decoding JSON bodies.
func Serve(t testing.TB, h http.Handler, req *http.Request) *Response {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	r := &Response{Status: rec.Code, Header: rec.Header(), Body: rec.Body.String()}
	// A real connection would cut a longer body, or wait for a shorter one.
	if cl := r.Header.Get("Content-Length"); cl != "" && cl != strconv.Itoa(rec.Body.Len()) {
		t.Fatalf("HTTP %d answer says Content-Length %s, has %d bytes: %s", rec.Code, cl, rec.Body.Len(), r.Body)
	}
	if strings.Contains(r.Header.Get("Content-Type"), "json") {
		if !json.Valid(rec.Body.Bytes()) {
			t.Fatalf("HTTP %d answer is not JSON: %s", rec.Code, r.Body)
		}
		_ = json.Unmarshal(rec.Body.Bytes(), r) // a non-GraphQL shape (REST) leaves Data and Errors empty
	}
	return r
}

// Request builds a request; header name/value pairs follow the body.
func Request(method, target string, body io.Reader, header ...string) *http.Request {
	req := httptest.NewRequest(method, target, body)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	return req
}

// Serve sends req to the kit's handler.
func (k *Kit) Serve(req *http.Request) *Response {
	k.T.Helper()
	return Serve(k.T, k.Handler, req)
}

// Post sends body as JSON to POST /graphql with key ("" sends no
// Authorization); header pairs are added.
func (k *Kit) Post(key string, body any, header ...string) *Response {
	k.T.Helper()
	raw, err := json.Marshal(body)
	if err != nil {
		k.T.Fatal(err)
	}
	header = append([]string{"Content-Type", "application/json"}, header...)
	if key != "" {
		header = append(header, "Authorization", "Bearer "+key)
	}
	return k.Serve(Request(http.MethodPost, "/graphql", bytes.NewReader(raw), header...))
}

// Get sends GET target with key ("" sends no Authorization).
func (k *Kit) Get(key, target string) *Response {
	k.T.Helper()
	req := Request(http.MethodGet, target, nil)
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	return k.Serve(req)
}

// Do runs a GraphQL document with vars as the holder of key.
func (k *Kit) Do(key, query string, vars map[string]any) *Response {
	k.T.Helper()
	return k.Post(key, map[string]any{"query": query, "variables": vars})
}

// Query runs a document as the kit's organization and fails on any error.
func (k *Kit) Query(query string, vars map[string]any) *Response {
	k.T.Helper()
	r := k.Do(k.Key, query, vars)
	if len(r.Errors) > 0 {
		k.T.Fatalf("query failed: %s", r.Body)
	}
	return r
}
