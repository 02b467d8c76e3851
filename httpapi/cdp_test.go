package httpapi_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"
)

// browser is a headless Chromium driven over the DevTools protocol on a pipe
// (--remote-debugging-pipe: requests on fd 3, answers and events on fd 4).
type browser struct {
	t       *testing.T
	w       io.Writer
	session string // the page's flattened session

	mu      sync.Mutex
	next    int
	pending map[int]chan cdpMessage
	events  []cdpMessage
}

type cdpMessage struct {
	ID        int             `json:"id,omitempty"`
	Method    string          `json:"method,omitempty"`
	Params    json.RawMessage `json:"params,omitempty"`
	Result    json.RawMessage `json:"result,omitempty"`
	SessionID string          `json:"sessionId,omitempty"`
	Error     *struct {
		Message string `json:"message"`
	} `json:"error,omitempty"`
}

// chromiumPath finds the browser, or skips the test saying how to get one.
func chromiumPath(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("SKIPPED: headless-browser playground test needs Chromium: apt-get install chromium, or set CHROMIUM=/path/to/chrome")
	return ""
}

// launchBrowser starts Chromium with the flags and attaches to its first page.
func launchBrowser(t *testing.T, ctx context.Context) *browser {
	t.Helper()
	path := chromiumPath(t)
	toChrome, ourEnd, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	theirEnd, fromChrome, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(path, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--remote-debugging-pipe", "--user-data-dir="+t.TempDir(), "--no-first-run", "--no-default-browser-check",
		"--disable-extensions", "--disable-component-update", "--disable-sync", "--mute-audio",
		"--hide-scrollbars", "--window-size=1280,800", "about:blank")
	cmd.ExtraFiles = []*os.File{toChrome, fromChrome} // fd 3, fd 4
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", path, err)
	}
	toChrome.Close()
	fromChrome.Close()
	b := &browser{t: t, w: ourEnd, pending: map[int]chan cdpMessage{}}
	done := make(chan struct{})
	go b.read(theirEnd, done)
	t.Cleanup(func() {
		ourEnd.Close() // Chromium exits when its pipe closes
		exited := make(chan struct{})
		go func() { _ = cmd.Wait(); close(exited) }()
		select {
		case <-exited:
		case <-time.After(5 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
		<-done
	})

	var targets struct {
		TargetInfos []struct {
			TargetID string `json:"targetId"`
			Type     string `json:"type"`
		} `json:"targetInfos"`
	}
	deadline := time.Now().Add(10 * time.Second)
	pageID := ""
	for pageID == "" {
		b.call(ctx, "", "Target.getTargets", nil, &targets)
		for _, ti := range targets.TargetInfos {
			if ti.Type == "page" {
				pageID = ti.TargetID
			}
		}
		if pageID == "" {
			if time.Now().After(deadline) {
				t.Fatal("Chromium opened no page")
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	var att struct {
		SessionID string `json:"sessionId"`
	}
	b.call(ctx, "", "Target.attachToTarget", map[string]any{"targetId": pageID, "flatten": true}, &att)
	b.session = att.SessionID
	for _, domain := range []string{"Network.enable", "Page.enable", "Runtime.enable", "Log.enable"} {
		b.call(ctx, b.session, domain, nil, nil)
	}
	b.call(ctx, b.session, "Emulation.setDeviceMetricsOverride",
		map[string]any{"width": 1280, "height": 800, "deviceScaleFactor": 1, "mobile": false}, nil)
	return b
}

func (b *browser) read(r io.Reader, done chan struct{}) {
	defer close(done)
	br := bufio.NewReader(r)
	for {
		raw, err := br.ReadBytes(0)
		if err != nil {
			return
		}
		var m cdpMessage
		if json.Unmarshal(raw[:len(raw)-1], &m) != nil {
			continue
		}
		b.mu.Lock()
		if m.ID != 0 {
			if ch := b.pending[m.ID]; ch != nil {
				ch <- m
				delete(b.pending, m.ID)
			}
		} else {
			b.events = append(b.events, m)
		}
		b.mu.Unlock()
	}
}

// call sends one command and decodes its result into out (if not nil); a
// protocol error fails the test.
func (b *browser) call(ctx context.Context, session, method string, params, out any) {
	b.t.Helper()
	if err := b.try(ctx, session, method, params, out); err != nil {
		b.t.Fatal(err)
	}
}

func (b *browser) try(ctx context.Context, session, method string, params, out any) error {
	b.mu.Lock()
	b.next++
	id := b.next
	ch := make(chan cdpMessage, 1)
	b.pending[id] = ch
	b.mu.Unlock()
	msg := map[string]any{"id": id, "method": method}
	if params != nil {
		msg["params"] = params
	}
	if session != "" {
		msg["sessionId"] = session
	}
	raw, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	if _, err := b.w.Write(append(raw, 0)); err != nil {
		return fmt.Errorf("%s: write to Chromium: %w", method, err)
	}
	select {
	case m := <-ch:
		if m.Error != nil {
			return fmt.Errorf("%s: %s", method, m.Error.Message)
		}
		if out != nil {
			return json.Unmarshal(m.Result, out)
		}
		return nil
	case <-ctx.Done():
		return fmt.Errorf("%s: %w", method, ctx.Err())
	}
}

// eval runs a JavaScript expression in the page (awaiting a promise) and decodes its value.
func (b *browser) eval(ctx context.Context, expr string, out any) error {
	var res struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails *struct {
			Text      string `json:"text"`
			Exception struct {
				Description string `json:"description"`
			} `json:"exception"`
		} `json:"exceptionDetails"`
	}
	if err := b.try(ctx, b.session, "Runtime.evaluate",
		map[string]any{"expression": expr, "returnByValue": true, "awaitPromise": true}, &res); err != nil {
		return err
	}
	if e := res.ExceptionDetails; e != nil {
		return fmt.Errorf("%s: %s %s", expr, e.Text, e.Exception.Description)
	}
	if out == nil || len(res.Result.Value) == 0 {
		return nil
	}
	return json.Unmarshal(res.Result.Value, out)
}

// waitFor polls a JavaScript condition until it is true, failing the test
// with what after the timeout.
func (b *browser) waitFor(ctx context.Context, what, cond string, timeout time.Duration) {
	b.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		var ok bool
		err := b.eval(ctx, "Boolean("+cond+")", &ok)
		if err == nil && ok {
			return
		}
		if time.Now().After(deadline) {
			var text string
			_ = b.eval(ctx, "document.body.innerText.slice(0, 2000)", &text)
			b.t.Logf("page text at timeout:\n%s", text)
			b.t.Fatalf("timed out after %v waiting for %s (last error: %v)", timeout, what, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// eventsNamed returns the params of every event with that method so far.
func (b *browser) eventsNamed(method string) []json.RawMessage {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []json.RawMessage
	for _, e := range b.events {
		if e.Method == method {
			out = append(out, e.Params)
		}
	}
	return out
}
