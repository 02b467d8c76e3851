package webhook

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// SecretPrefix starts every endpoint secret.
const SecretPrefix = "whsec_"

// NewSecret returns a new endpoint secret: whsec_ and base64 of 32 random bytes.
func NewSecret() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // never fails on supported platforms
	return SecretPrefix + base64.StdEncoding.EncodeToString(b)
}

// ErrBadSecret means a stored secret is not whsec_<base64>.
var ErrBadSecret = errors.New("webhook: secret is not whsec_<base64>")

func secretKey(secret string) ([]byte, error) {
	raw, ok := strings.CutPrefix(secret, SecretPrefix)
	if !ok {
		return nil, ErrBadSecret
	}
	k, err := base64.StdEncoding.DecodeString(raw)
	if err != nil || len(k) == 0 {
		return nil, ErrBadSecret
	}
	return k, nil
}

// Signature returns the webhook-signature header value for a message under
// each secret, space-separated, per Standard Webhooks v1: "v1,<base64
// HMAC-SHA256(key, id.timestamp.body)>". Errors: ErrBadSecret.
func Signature(secrets []string, msgID string, at time.Time, body []byte) (string, error) {
	ts := strconv.FormatInt(at.Unix(), 10)
	sigs := make([]string, 0, len(secrets))
	for _, s := range secrets {
		k, err := secretKey(s)
		if err != nil {
			return "", err
		}
		m := hmac.New(sha256.New, k)
		m.Write([]byte(msgID))
		m.Write([]byte{'.'})
		m.Write([]byte(ts))
		m.Write([]byte{'.'})
		m.Write(body)
		sigs = append(sigs, "v1,"+base64.StdEncoding.EncodeToString(m.Sum(nil)))
	}
	return strings.Join(sigs, " "), nil
}

// SetHeaders sets the Standard Webhooks headers and the content type of a
// delivery signed at at. Errors: ErrBadSecret.
func SetHeaders(h http.Header, secrets []string, msgID string, at time.Time, body []byte) error {
	sig, err := Signature(secrets, msgID, at, body)
	if err != nil {
		return err
	}
	h.Set("Content-Type", "application/json")
	h.Set("User-Agent", "agenttrust-webhooks/1")
	h.Set("webhook-id", msgID)
	h.Set("webhook-timestamp", strconv.FormatInt(at.Unix(), 10))
	h.Set("webhook-signature", sig)
	return nil
}
