package outbound

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/agenttrust/service/webhook"
)

var _ webhook.Sender = (*Client)(nil)

// Send signs msg under secrets per Standard Webhooks and posts it to url.
func (c *Client) Send(ctx context.Context, url string, secrets []string, msg webhook.Outgoing) webhook.Attempt {
	start := time.Now()
	body := webhook.AppendBody(nil, msg.ID, msg.Type, msg.At, msg.Data)
	h := make(http.Header, 5)
	if err := webhook.SetHeaders(h, secrets, msg.ID, time.Now(), body); err != nil {
		return webhook.Attempt{Err: "cannot sign: " + err.Error(), Latency: time.Since(start)}
	}
	resp, err := c.Post(ctx, url, h, body)
	if err != nil {
		return webhook.Attempt{Err: err.Error(), Latency: time.Since(start)}
	}
	a := webhook.Attempt{StatusCode: resp.StatusCode, Latency: resp.Latency, Body: truncate(resp.Body, webhook.ResponseBodyLimit)}
	if !a.Success() {
		a.Err = "endpoint answered HTTP " + strconv.Itoa(resp.StatusCode)
		if resp.StatusCode >= 300 && resp.StatusCode < 400 {
			a.Err += " (redirects are not followed)"
		}
	}
	if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable {
		a.RetryAfter = retryAfter(resp.Header.Get("Retry-After"), time.Now())
	}
	return a
}

// retryAfter reads a Retry-After header: whole seconds or an HTTP date.
func retryAfter(v string, now time.Time) time.Duration {
	if v == "" {
		return 0
	}
	if secs, err := strconv.Atoi(v); err == nil && secs > 0 {
		return time.Duration(secs) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// truncate cuts b to at most n bytes of valid UTF-8 without NULs, so it
// can be stored as text whatever the endpoint answered.
func truncate(b []byte, n int) string {
	if len(b) > n {
		b = b[:n]
	}
	return strings.ReplaceAll(strings.ToValidUTF8(string(b), ""), "\x00", "")
}
