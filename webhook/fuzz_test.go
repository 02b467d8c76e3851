package webhook_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/url"
	"slices"
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

// FuzzSeqs checks the compact form of a job's events: decoding never
// panics, and whatever it accepts is ascending, positive, at most
// MaxJobEvents long, and encodes back to numbers that decode alike; and
// any list of numbers encodes to a form that decodes to them, sorted and
// without repeats.
func FuzzSeqs(f *testing.F) {
	for _, s := range []string{"", "1", "lflt.2r", "7,2.2", "0", "-1", "1,0", "1.0", "1.", ".1", ",", "1,,2", "zzzzzzzzzzzzz",
		"1.7pn", "1,7pm", "+1", "1.-1", "1sg..1"} {
		f.Add(s, int64(1), uint8(3))
	}
	f.Fuzz(func(t *testing.T, form string, start int64, gaps uint8) {
		got, err := webhook.DecodeSeqs(form)
		if err == nil {
			if len(got) > webhook.MaxJobEvents {
				t.Fatalf("DecodeSeqs(%q) named %d numbers", form, len(got))
			}
			for i, s := range got {
				if s < 1 || i > 0 && s <= got[i-1] {
					t.Fatalf("DecodeSeqs(%q) = %v: not positive and ascending", form, got)
				}
			}
			again, err := webhook.DecodeSeqs(webhook.EncodeSeqs(got))
			if err != nil || !slices.Equal(again, got) {
				t.Fatalf("re-encoding %q: %v, %v", form, again, err)
			}
		} else if !errors.Is(err, webhook.ErrBadSeqs) {
			t.Fatalf("DecodeSeqs(%q): %v", form, err)
		}
		// Numbers built from the inputs, out of order and with repeats.
		if start < 1 || start > 1<<62 {
			return
		}
		var seqs []int64
		for i, c := range []byte(form) {
			if len(seqs) == webhook.JobEvents {
				break
			}
			seqs = append(seqs, start+int64(c)%max(int64(gaps), 1)+int64(i%7))
		}
		want := slices.Compact(slices.Sorted(slices.Values(seqs)))
		back, err := webhook.DecodeSeqs(webhook.EncodeSeqs(seqs))
		if err != nil || !slices.Equal(back, want) && len(want) > 0 {
			t.Fatalf("EncodeSeqs(%v) decodes to %v, %v", seqs, back, err)
		}
	})
}

// The compact form of consecutive numbers is one item, and of scattered
// ones the distances between them.
func TestEncodeSeqs(t *testing.T) {
	hundred := make([]int64, 100)
	for i := range hundred {
		hundred[i] = 1000001 + int64(i)
	}
	for _, c := range []struct {
		seqs []int64
		want string
	}{
		{hundred, "lflt.2r"},
		{[]int64{11, 9, 7, 10, 9}, "7,2.2"},
		{[]int64{5}, "5"},
		{nil, ""},
	} {
		if got := webhook.EncodeSeqs(c.seqs); got != c.want {
			t.Errorf("EncodeSeqs(%v) = %q, want %q", c.seqs, got, c.want)
		}
	}
	for _, bad := range []string{"0", "1,0", "1.0", "-3", "a,", "2.7ps", "1," + strings.Repeat("1,", webhook.MaxJobEvents)} {
		if _, err := webhook.DecodeSeqs(bad); !errors.Is(err, webhook.ErrBadSeqs) {
			t.Errorf("DecodeSeqs(%q) = %v, want ErrBadSeqs", bad, err)
		}
	}
}

// FuzzBody: for any valid JSON data (as the log's jsonb gives it, with
// spaces after colons and commas) and any id, Body is byte for byte what
// json.Marshal makes of the Message.
func FuzzBody(f *testing.F) {
	for _, seed := range []string{`{"a": 1, "b": [true, null, "x y"]}`, `{"note": "<b> & \u2028"}`, "{\n \"a\" :\t\"x  y \\\\\" }", `"é✓ \" \\ /"`, `[]`} {
		f.Add("evt_1", seed)
	}
	f.Fuzz(func(t *testing.T, id, data string) {
		if !json.Valid([]byte(data)) {
			return
		}
		at := time.Date(2026, 11, 21, 19, 51, 27, 123e6, time.UTC)
		want, err := json.Marshal(webhook.Message{ID: id, Type: "agent.registered", Timestamp: "2026-11-21T19:51:27.123Z", Data: json.RawMessage(data)})
		if err != nil {
			return // data that json.Marshal refuses (none is valid and refused)
		}
		if got := webhook.Body(id, "agent.registered", at, json.RawMessage(data)); string(got) != string(want) {
			t.Fatalf("Body(%q, %q)\n got %s\nwant %s", id, data, got, want)
		}
	})
}
