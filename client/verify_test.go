package client_test

import (
	"encoding/base64"
	"errors"
	"net/http"
	"strconv"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/agenttrust/service/client"
)

const (
	secretNew = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	secretOld = "whsec_dGhlIG9sZCBzZWNyZXQgb2YgdGhlIGVuZHBvaW50"
)

// signed signs body as the Standard Webhooks library does, with each secret,
// at time at, into the delivery headers.
func signed(t *testing.T, id string, at time.Time, body []byte, secrets ...string) http.Header {
	t.Helper()
	h := http.Header{}
	h.Set("webhook-id", id)
	h.Set("webhook-timestamp", strconv.FormatInt(at.Unix(), 10))
	var sigs string
	for _, s := range secrets {
		wh, err := standardwebhooks.NewWebhook(s)
		if err != nil {
			t.Fatal(err)
		}
		sig, err := wh.Sign(id, at, body)
		if err != nil {
			t.Fatal(err)
		}
		if sigs != "" {
			sigs += " "
		}
		sigs += sig
	}
	h.Set("webhook-signature", sigs)
	return h
}

func TestVerifyWebhook(t *testing.T) {
	t.Parallel()
	body := []byte(`{"id":"evt_1","type":"transaction.completed","timestamp":"2026-11-21T19:51:27.123Z","data":{"transaction_id":"tx_1","amount":100.5}}`)
	now := time.Now()
	cases := []struct {
		name   string
		secret string
		header http.Header
		body   []byte
		want   error // nil: verified
	}{
		{"valid", secretNew, signed(t, "evt_1", now, body, secretNew), body, nil},
		{"valid 4 minutes old", secretNew, signed(t, "evt_1", now.Add(-4*time.Minute), body, secretNew), body, nil},
		{"rotation: new and old, verified with the new", secretNew, signed(t, "evt_1", now, body, secretNew, secretOld), body, nil},
		{"rotation: new and old, verified with the old", secretOld, signed(t, "evt_1", now, body, secretNew, secretOld), body, nil},
		{"tampered body", secretNew, signed(t, "evt_1", now, body, secretNew), []byte(string(body[:len(body)-3]) + `1}}`), client.ErrInvalidSignature},
		{"other secret", secretOld, signed(t, "evt_1", now, body, secretNew), body, client.ErrInvalidSignature},
		{"other id", secretNew, func() http.Header {
			h := signed(t, "evt_1", now, body, secretNew)
			h.Set("webhook-id", "evt_2")
			return h
		}(), body, client.ErrInvalidSignature},
		{"timestamp changed", secretNew, func() http.Header {
			h := signed(t, "evt_1", now, body, secretNew)
			h.Set("webhook-timestamp", strconv.FormatInt(now.Unix()+1, 10))
			return h
		}(), body, client.ErrInvalidSignature},
		{"v2 signature only", secretNew, func() http.Header {
			h := signed(t, "evt_1", now, body, secretNew)
			h.Set("webhook-signature", "v2,"+h.Get("webhook-signature")[3:])
			return h
		}(), body, client.ErrInvalidSignature},
		{"missing signature", secretNew, func() http.Header {
			h := signed(t, "evt_1", now, body, secretNew)
			h.Del("webhook-signature")
			return h
		}(), body, client.ErrInvalidSignature},
		{"expired", secretNew, signed(t, "evt_1", now.Add(-6*time.Minute), body, secretNew), body, client.ErrStaleTimestamp},
		{"from the future", secretNew, signed(t, "evt_1", now.Add(6*time.Minute), body, secretNew), body, client.ErrStaleTimestamp},
		{"expired and tampered", secretNew, signed(t, "evt_1", now.Add(-time.Hour), body, secretOld), body, client.ErrInvalidSignature},
	}
	// The cases run at once, not in parallel: they are signed at now, and a
	// parallel subtest may wait for minutes behind the package's other tests.
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ev, err := client.VerifyWebhook(tc.secret, tc.header, tc.body)
			if tc.want == nil {
				if err != nil || ev.ID != "evt_1" || ev.Type != "transaction.completed" || string(ev.Data) != `{"transaction_id":"tx_1","amount":100.5}` ||
					!ev.CreatedAt.Equal(time.Date(2026, 11, 21, 19, 51, 27, 123e6, time.UTC)) {
					t.Fatalf("%+v %v", ev, err)
				}
				// The reference library agrees.
				wh, _ := standardwebhooks.NewWebhook(tc.secret)
				if err := wh.Verify(tc.body, tc.header); err != nil {
					t.Fatalf("the reference library refuses it: %v", err)
				}
				return
			}
			if ev != nil || !errors.Is(err, tc.want) {
				t.Fatalf("got %+v, %v; want %v", ev, err, tc.want)
			}
			var se *client.SignatureError
			var te *client.TimestampError
			if (tc.want == client.ErrInvalidSignature) != errors.As(err, &se) || (tc.want == client.ErrStaleTimestamp) != errors.As(err, &te) {
				t.Fatalf("error type %T", err)
			}
		})
	}

	if _, err := client.VerifyWebhook("whsec_%%%", signed(t, "evt_1", now, body, secretNew), body); err == nil || errors.Is(err, client.ErrInvalidSignature) {
		t.Fatalf("malformed secret: %v", err)
	}
	raw := base64.StdEncoding.EncodeToString([]byte("raw key without prefix"))
	if _, err := client.VerifyWebhook(raw, signed(t, "evt_1", now, body, "whsec_"+raw), body); err != nil {
		t.Fatalf("secret without the whsec_ prefix: %v", err)
	}
}
