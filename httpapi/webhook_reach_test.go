package httpapi_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"io"
	"log"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/agenttrust/service/internal/webhooktest"
)

// A refused registration says how far the verification request got, and
// nothing of this server's network: no resolver address, no dial error, no
// certificate detail, so that registering cannot probe hosts and ports.
func TestWebhookRegistrationSaysOnlyHowFarItGot(t *testing.T) {
	t.Parallel()
	e := webhooktest.NewEnv(t, webhooktest.Options{Timeout: 2 * time.Second}) // private networks allowed
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedURL := "https://" + closed.Addr().String() + "/hook"
	closed.Close()
	untrusted := untrustedTLS(t)
	failing := webhooktest.New(t)
	failing.Answer(func(webhooktest.Request) webhooktest.Answer { return webhooktest.Answer{Status: 503} })

	for _, tc := range []struct{ url, want string }{
		{"https://no-such-host.invalid/hook", "the signed webhook.verification request failed: not reachable"},
		{closedURL, "the signed webhook.verification request failed: not reachable"},
		{untrusted.URL + "/hook", "the signed webhook.verification request failed: TLS failed"},
		{failing.URL(), "the endpoint did not answer 2xx to the signed webhook.verification request: it answered HTTP 503"},
	} {
		r := e.Do(e.Key, http.MethodPost, "/graphql", map[string]any{
			"query":     `mutation($in: RegisterWebhookInput!) { registerWebhook(input: $in) { id } }`,
			"variables": map[string]any{"in": map[string]any{"url": tc.url, "events": []string{"*"}}},
		})
		var out struct {
			Errors []struct {
				Message    string
				Extensions struct {
					Code        string
					FieldErrors []struct{ Field, Message string }
				}
			}
		}
		if err := json.Unmarshal(r.Body, &out); err != nil || len(out.Errors) != 1 {
			t.Fatalf("%s: %s", tc.url, r.Body)
		}
		got := out.Errors[0]
		if got.Extensions.Code != "VALIDATION_FAILED" || len(got.Extensions.FieldErrors) != 1 ||
			got.Extensions.FieldErrors[0].Field != "input.url" || got.Extensions.FieldErrors[0].Message != tc.want {
			t.Errorf("%s: %s, want the field error %q and nothing more", tc.url, r.Body, tc.want)
		}
	}
	if n := len(failing.Requests()); n != 1 {
		t.Fatalf("the failing endpoint got %d verification requests, want 1", n)
	}
}

// untrustedTLS is an https server whose certificate no one trusts: its own,
// made here, not the one every httptest server shares.
func untrustedTLS(t *testing.T) *httptest.Server {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "untrusted"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		t.Error("the untrusted server was answered past its handshake")
	}))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}}
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // its refused handshakes
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv
}
