package client

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"syscall"
	"time"
)

// retryPolicy says when a request may be sent again after a failure.
type retryPolicy int

const (
	// safe requests change nothing, or change it to the same end state however
	// often they run (queries, GETs, absolute updates, an execute with its
	// idempotency key): retried on network errors, 429 and 5xx.
	safe retryPolicy = iota
	// once requests must not run twice: retried on 429 (refused before it
	// ran) and on errors that prove the request never reached the server.
	once
)

// maxResponseBytes bounds what one answer may hold (exportTransactions'
// default bound fits many times over; ExportTo streams and is not bounded).
const maxResponseBytes = 256 << 20

// call is one logical request, sent as one or more attempts.
type call struct {
	method string
	path   string
	body   []byte // nil: no body
	header http.Header
	policy retryPolicy
	op     string // for logs: the operation's library name
}

// answer is a complete HTTP answer.
type answer struct {
	status int
	header http.Header
	body   []byte
}

// decodeFunc turns an answer into the operation's error, or nil on success.
type decodeFunc func(*answer) error

// do sends cl until it succeeds, fails for good, runs out of retries or ctx
// ends, and returns the successful answer or the last error.
func (c *Client) do(ctx context.Context, cl call, decode decodeFunc) (*answer, error) {
	for attempt := 0; ; attempt++ {
		ans, err := c.attempt(ctx, cl)
		var retry bool
		var wait time.Duration
		if err != nil {
			if ctx.Err() != nil {
				return nil, fmt.Errorf("agenttrust %s: %w", cl.op, errors.Join(ctx.Err(), err))
			}
			retry = cl.policy == safe || neverSent(err)
			err = fmt.Errorf("agenttrust %s: %w", cl.op, err)
		} else if err = decode(ans); err != nil {
			var rl *RateLimitError
			switch {
			case errors.As(err, &rl):
				retry, wait = true, rl.RetryAfter
			case ans.status >= 500:
				retry = cl.policy == safe
			}
		} else {
			return ans, nil
		}
		if !retry || attempt >= c.maxRetries {
			return nil, err
		}
		if wait == 0 {
			wait = c.backoff(attempt)
		}
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < wait {
			return nil, err // the context would end before the next attempt
		}
		c.log.WarnContext(ctx, "agenttrust: retrying", "op", cl.op, "attempt", attempt+1, "wait", wait, "err", err)
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, fmt.Errorf("%w (%w)", err, ctx.Err())
		case <-t.C:
		}
	}
}

// attempt sends cl once, bounded by the per-request timeout, and reads the
// whole answer.
func (c *Client) attempt(ctx context.Context, cl call) (*answer, error) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	var body io.Reader
	if cl.body != nil {
		body = bytes.NewReader(cl.body)
	}
	req, err := http.NewRequestWithContext(ctx, cl.method, c.endpoint(cl.path), body)
	if err != nil {
		return nil, err
	}
	for k, v := range cl.header {
		req.Header[k] = v
	}
	c.identify(req.Header)
	if cl.body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read answer: %w", err)
	}
	if len(raw) > maxResponseBytes {
		return nil, fmt.Errorf("answer larger than %d bytes", maxResponseBytes)
	}
	return &answer{status: resp.StatusCode, header: resp.Header, body: raw}, nil
}

// backoff is the wait before retry number attempt+1: exponential from
// waitMin, capped at waitMax, with full jitter.
func (c *Client) backoff(attempt int) time.Duration {
	ceiling := c.waitMax
	if attempt < 30 {
		if d := c.waitMin << attempt; d > 0 && d < ceiling {
			ceiling = d
		}
	}
	return rand.N(ceiling) + 1
}

// neverSent reports whether err proves the request never reached the server:
// the connection could not be opened.
func neverSent(err error) bool {
	if errors.Is(err, syscall.ECONNREFUSED) {
		return true
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return true
	}
	var dns *net.DNSError
	return errors.As(err, &dns)
}
