package receiver

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The receiver's certificate is made once and kept: a second start reuses
// it, so a service started with WEBHOOK_CA_FILE keeps trusting it.
func TestReceiverCertificateIsKept(t *testing.T) {
	t.Parallel()
	ca := filepath.Join(t.TempDir(), "receiver-ca.pem")
	first, err := receiverCert(ca)
	if err != nil {
		t.Fatal(err)
	}
	if info, err := os.Stat(keyFileOf(ca)); err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("key file: %v, %v", info, err)
	}
	again, err := receiverCert(ca)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(first.Leaf.Raw, again.Leaf.Raw) {
		t.Fatal("a second start made a new certificate")
	}
	if err := first.Leaf.VerifyHostname("127.0.0.1"); err != nil {
		t.Fatal(err)
	}
	var notLoopback *NotLoopbackError
	if _, err := loopbackURL(&net.TCPAddr{IP: net.IPv4(192, 0, 2, 1), Port: 1}); !errors.As(err, &notLoopback) {
		t.Fatalf("a non-loopback address: %v", err)
	}
}

// A delivery that arrives before the registration's answer (the service's
// verification request) is answered 2xx and verified once the secret is
// known; afterwards a bad signature is refused and reported.
func TestReceiverVerifiesWhatItPrints(t *testing.T) {
	t.Parallel()
	var out, log bytes.Buffer
	r := &receiver{Options: Options{Out: &out, Log: &log}}
	secret := "whsec_" + base64.StdEncoding.EncodeToString([]byte("0123456789abcdef0123456789abcdef"))
	deliver := func(id, typ, key string) int {
		body := `{"id":"` + id + `","type":"` + typ + `","timestamp":"2026-11-21T19:51:27.123Z","data":{"n": 1}}`
		ts := strconv.FormatInt(time.Now().Unix(), 10)
		raw, _ := base64.StdEncoding.DecodeString(strings.TrimPrefix(key, "whsec_"))
		mac := hmac.New(sha256.New, raw)
		mac.Write([]byte(id + "." + ts + "." + body))
		req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
		req.Header.Set("webhook-id", id)
		req.Header.Set("webhook-timestamp", ts)
		req.Header.Set("webhook-signature", "v1,"+base64.StdEncoding.EncodeToString(mac.Sum(nil)))
		w := httptest.NewRecorder()
		r.ServeHTTP(w, req)
		return w.Code
	}
	if code := deliver("evt_1", "webhook.verification", secret); code != http.StatusNoContent || out.Len() != 0 {
		t.Fatalf("before the secret: %d, printed %q", code, out.String())
	}
	r.unlock(secret)
	if code := deliver("evt_2", "agent.registered", secret); code != http.StatusNoContent {
		t.Fatalf("a good delivery: %d", code)
	}
	other := "whsec_" + base64.StdEncoding.EncodeToString([]byte("another secret of thirty-two b!!"))
	if code := deliver("evt_3", "agent.updated", other); code != http.StatusBadRequest {
		t.Fatalf("a bad signature: %d", code)
	}
	want := "verified webhook.verification evt_1 {\"n\":1}\nverified agent.registered evt_2 {\"n\":1}\n"
	if out.String() != want || !strings.Contains(log.String(), `refused a delivery (webhook-id "evt_3")`) {
		t.Fatalf("printed:\n%s\nlogged:\n%s", out.String(), log.String())
	}
}
