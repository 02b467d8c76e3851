package testkit

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"github.com/agenttrust/service/httpapi"
)

// RESTResponse is an answer of the REST edge: the raw answer, and its
// {"error":{...}} body when it is one.
type RESTResponse struct {
	Status int
	Header http.Header
	Body   string
	Error  *httpapi.RESTErrorDetail
}

// Into decodes the whole body into v, failing unless status is want.
func (r *RESTResponse) Into(t testing.TB, want int, v any) {
	t.Helper()
	if r.Status != want {
		t.Fatalf("want HTTP %d, got %d: %s", want, r.Status, r.Body)
	}
	if err := json.Unmarshal([]byte(r.Body), v); err != nil {
		t.Fatalf("decode %s: %v", r.Body, err)
	}
}

// Refused fails unless r is HTTP status with an error body of code and a message.
func (r *RESTResponse) Refused(t testing.TB, status int, code string) {
	t.Helper()
	if r.Status != status || r.Error == nil || string(r.Error.Code) != code || r.Error.Message == "" {
		t.Fatalf("want HTTP %d with a %s error body, got %d: %s", status, code, r.Status, r.Body)
	}
}

// ServeREST sends req to h and decodes an error body (any 4xx or 5xx must
// be one).
func ServeREST(t testing.TB, h http.Handler, req *http.Request) *RESTResponse {
	t.Helper()
	r := &RESTResponse{}
	res := Serve(t, h, req)
	r.Status, r.Header, r.Body = res.Status, res.Header, res.Body
	if r.Status >= 400 {
		var body httpapi.RESTError
		if err := json.Unmarshal([]byte(r.Body), &body); err != nil || body.Error.Code == "" {
			t.Fatalf("HTTP %d without an error body: %s", r.Status, r.Body)
		}
		r.Error = &body.Error
	}
	return r
}

// REST calls the kit's REST edge as the holder of key ("" sends none) with
// body encoded as JSON (nil sends none).
func (k *Kit) REST(key, method, target string, body any) *RESTResponse {
	k.T.Helper()
	var rd io.Reader
	if body != nil {
		raw, err := json.Marshal(body)
		if err != nil {
			k.T.Fatal(err)
		}
		rd = bytes.NewReader(raw)
	}
	req := Request(method, target, rd, "Content-Type", "application/json")
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	return ServeREST(k.T, k.Handler, req)
}
