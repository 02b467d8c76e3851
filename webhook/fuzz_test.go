package webhook_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agenttrust/service/failure"
	"github.com/agenttrust/service/webhook"
)

// FuzzValidateURL checks the endpoint URL rule: an accepted URL is at most
// MaxURLLength bytes, parses, is https with a host, no credentials and no
// fragment; every refusal names the field.
func FuzzValidateURL(f *testing.F) {
	for _, s := range []string{"https://example.com/hook", "http://example.com", "https://user:pw@example.com", "https://example.com/#x",
		"https://", "https:///path", "ftp://example.com", "https://[::1]:443/x", "https://example.com:99999", "javascript:alert(1)",
		"https://exa mple.com", "https://example.com/" + strings.Repeat("a", 2100), "", "\x00", "https://%zz"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		var fs failure.Fields
		webhook.ValidateURL(&fs, "input.url", raw)
		if err := fs.Err(); err != nil {
			if fe := failure.As(err); fe == nil || fe.Code != failure.ValidationFailed || fe.FieldErrors[0].Field != "input.url" {
				t.Fatalf("ValidateURL(%q) = %#v", raw, err)
			}
			return
		}
		u, err := url.Parse(raw)
		if err != nil || len(raw) > webhook.MaxURLLength || u.Scheme != "https" || u.Hostname() == "" || u.User != nil || u.Fragment != "" {
			t.Fatalf("ValidateURL accepted %q", raw)
		}
	})
}

// FuzzSignature checks Standard Webhooks v1 signing against an independent
// HMAC: every well-formed secret gives "v1,<base64 HMAC-SHA256(key,
// id.timestamp.body)>", one per secret, space-separated; a malformed secret
// is ErrBadSecret.
func FuzzSignature(f *testing.F) {
	f.Add("whsec_"+base64.StdEncoding.EncodeToString([]byte("0123456789abcdef0123456789abcdef")), "evt_abc", int64(1763754687), []byte(`{"id":"evt_abc"}`))
	f.Add("whsec_", "evt_x", int64(0), []byte{})
	f.Add("whsec_not base64!", "evt_x", int64(-1), []byte("x"))
	f.Add("sk_live_abc", "", int64(1<<40), []byte("\x00"))
	f.Fuzz(func(t *testing.T, secret, msgID string, unix int64, body []byte) {
		at := time.Unix(unix%(1<<40), 0)
		sig, err := webhook.Signature([]string{secret, secret}, msgID, at, body)
		raw, ok := strings.CutPrefix(secret, webhook.SecretPrefix)
		key, kerr := base64.StdEncoding.DecodeString(raw)
		if !ok || kerr != nil || len(key) == 0 {
			if !errors.Is(err, webhook.ErrBadSecret) {
				t.Fatalf("Signature with secret %q: %v, want ErrBadSecret", secret, err)
			}
			return
		}
		if err != nil {
			t.Fatalf("Signature with secret %q: %v", secret, err)
		}
		m := hmac.New(sha256.New, key)
		m.Write([]byte(msgID + "." + strconv.FormatInt(at.Unix(), 10) + "."))
		m.Write(body)
		want := "v1," + base64.StdEncoding.EncodeToString(m.Sum(nil))
		if sig != want+" "+want {
			t.Fatalf("Signature = %q, want %q twice", sig, want)
		}
	})
}
