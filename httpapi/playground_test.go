package httpapi_test

import (
	"compress/gzip"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agenttrust/service/internal/testkit"
)

// The playground is served from the binary: the page and every asset it
// names answer from this origin, with a policy that forbids any other.
func TestPlaygroundAssetsAreEmbedded(t *testing.T) {
	t.Parallel()
	b := testkit.New(t)
	page := b.Get("", "/")
	if page.Status != http.StatusOK || !strings.Contains(page.Header.Get("Content-Security-Policy"), "default-src 'self'") {
		t.Fatalf("/: %d, CSP %q", page.Status, page.Header.Get("Content-Security-Policy"))
	}
	for _, want := range []string{"graphiql.min.js", "plugin-explorer.umd.js", "graphql-ws.min.js", "react-dom.production.min.js", "Bearer att_sk_", "org create --name"} {
		if !strings.Contains(page.Body, want) {
			t.Errorf("page does not mention %q", want)
		}
	}
	if strings.Contains(page.Body, "https://") || strings.Contains(page.Body, "http://") {
		t.Errorf("page names an absolute URL:\n%s", page.Body)
	}
	srcs := 0
	for _, part := range strings.Split(page.Body, `"`)[1:] {
		if !strings.HasPrefix(part, "/playground/") {
			continue
		}
		srcs++
		r := b.Get("", part)
		if r.Status != http.StatusOK || len(r.Body) == 0 {
			t.Errorf("%s: %d (%d bytes)", part, r.Status, len(r.Body))
		}
	}
	if srcs != 10 {
		t.Errorf("page references %d assets, want 10", srcs)
	}
	if !strings.Contains(page.Body, `<link rel="icon" type="image/svg+xml" href="/playground/favicon.svg`) {
		t.Errorf("page names no favicon:\n%s", page.Body)
	}
	if icon := b.Get("", "/playground/favicon.svg"); icon.Status != http.StatusOK ||
		icon.Header.Get("Content-Type") != "image/svg+xml" || !strings.HasPrefix(icon.Body, "<svg") {
		t.Errorf("favicon: %d %q", icon.Status, icon.Header.Get("Content-Type"))
	}
	if r := b.Get("", "/playground/nope.js"); r.Status != http.StatusNotFound {
		t.Errorf("unknown asset: %d", r.Status)
	}
	// Scripts and styles go gzipped to clients that accept it, the same bytes once unpacked.
	for _, asset := range []string{"/playground/graphiql.min.js", "/playground/playground.css"} {
		plain := b.Get("", asset)
		zipped := b.Serve(testkit.Request(http.MethodGet, asset, nil, "Accept-Encoding", "gzip, br"))
		if zipped.Header.Get("Content-Encoding") != "gzip" || len(zipped.Body) >= len(plain.Body) {
			t.Fatalf("%s: Content-Encoding %q, %d bytes gzipped vs %d", asset, zipped.Header.Get("Content-Encoding"), len(zipped.Body), len(plain.Body))
		}
		zr, err := gzip.NewReader(strings.NewReader(zipped.Body))
		if err != nil {
			t.Fatal(err)
		}
		unpacked, err := io.ReadAll(zr)
		if err != nil || string(unpacked) != plain.Body || zipped.Header.Get("Content-Type") != plain.Header.Get("Content-Type") {
			t.Fatalf("%s: gzipped answer differs from the plain one (%v)", asset, err)
		}
	}
}

// TestPlaygroundInChromium opens the playground in headless Chromium with no
// route to the internet needed: it checks that the page makes no request
// outside its origin, that the explorer is there, that a query with a pasted
// key runs, and that a subscription opens a graphql-transport-ws websocket to
// /graphql. The screenshot goes to $PLAYGROUND_SCREENSHOT (make screenshot),
// else to the test's temporary directory.
func TestPlaygroundInChromium(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	br := launchBrowser(t, ctx)
	b := testkit.New(t)
	srv := httptest.NewServer(b.Handler)
	defer srv.Close()
	origin, _ := url.Parse(srv.URL)

	agentID := register(b, "shopper")

	br.call(ctx, br.session, "Page.navigate", map[string]any{"url": srv.URL + "/"}, nil)
	br.waitFor(ctx, "GraphiQL to render", `document.querySelector('.graphiql-execute-button')`, 60*time.Second)

	// The headers editor is open and pre-filled with the placeholder; paste the key as a user would.
	headersEditor := `[...document.querySelectorAll('.graphiql-editor-tool .CodeMirror')].map(e => e.CodeMirror)
		.find(cm => cm.getValue().includes('Authorization'))`
	var prefilled string
	if err := br.eval(ctx, `(`+headersEditor+`).getValue()`, &prefilled); err != nil {
		t.Fatalf("no headers editor holding Authorization: %v", err)
	}
	if !strings.Contains(prefilled, `"Authorization": "Bearer att_sk_…"`) {
		t.Fatalf("headers editor holds %q", prefilled)
	}
	// With the placeholder still there, the page says what to do and sends nothing.
	br.waitFor(ctx, "the placeholder hint in the result pane", `document.querySelector('.result-window') &&
		document.querySelector('.result-window').innerText.includes('Replace att_sk_')`, 20*time.Second)
	var hint string
	if err := br.eval(ctx, `document.getElementById('hint').innerText`, &hint); err != nil || !strings.Contains(hint, "org create --name") {
		t.Fatalf("hint %q (%v)", hint, err)
	}
	keyJSON, _ := json.Marshal(`{"Authorization": "Bearer ` + b.Key + `"}`)
	if err := br.eval(ctx, `(`+headersEditor+`).setValue(`+string(keyJSON)+`)`, nil); err != nil {
		t.Fatal(err)
	}

	// The explorer plugin is loaded: open it.
	br.waitFor(ctx, "the explorer's button", `document.querySelector('[aria-label="Show GraphiQL Explorer"]')`, 20*time.Second)
	if err := br.eval(ctx, `document.querySelector('[aria-label="Show GraphiQL Explorer"]').click()`, nil); err != nil {
		t.Fatal(err)
	}
	br.waitFor(ctx, "the explorer to list root fields", `document.querySelector('.graphiql-plugin') &&
		document.querySelector('.graphiql-plugin').innerText.includes('agentAuditChain')`, 30*time.Second)

	// Every left-bar button has a label under its icon.
	var labels []string
	if err := br.eval(ctx, `[...document.querySelectorAll('.graphiql-sidebar button')]
		.map(b => getComputedStyle(b, '::after').content.replace(/"/g, ''))`, &labels); err != nil {
		t.Fatal(err)
	}
	if want := []string{"Docs", "History", "Explorer", "Schema", "Keys", "Settings"}; strings.Join(labels, ",") != strings.Join(want, ",") {
		t.Errorf("left-bar labels %q, want %q", labels, want)
	}

	// Run the default query (agents) with the key.
	if err := br.eval(ctx, `document.querySelector('.graphiql-execute-button').click()`, nil); err != nil {
		t.Fatal(err)
	}
	resultText := `document.querySelector('.result-window .CodeMirror').CodeMirror.getValue()`
	br.waitFor(ctx, "the query's result", resultText+`.includes('"totalCount": 1')`, 30*time.Second)
	var result string
	_ = br.eval(ctx, resultText, &result)
	if !strings.Contains(result, agentID) || !strings.Contains(result, `"assessment": "Moderate"`) {
		t.Fatalf("result does not show the agent %s:\n%s", agentID, result)
	}

	shot := os.Getenv("PLAYGROUND_SCREENSHOT")
	if shot == "" {
		shot = filepath.Join(t.TempDir(), "playground.png")
	}
	var png struct {
		Data string `json:"data"`
	}
	br.call(ctx, br.session, "Page.captureScreenshot", map[string]any{"format": "png"}, &png)
	raw, err := base64.StdEncoding.DecodeString(png.Data)
	if err != nil || len(raw) < 10000 {
		t.Fatalf("screenshot: %d bytes, %v", len(raw), err)
	}
	if err := os.WriteFile(shot, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot saved to %s (%d bytes)", shot, len(raw))

	// A subscription goes over graphql-transport-ws to the same /graphql.
	sub, _ := json.Marshal("subscription { events { id type } }")
	if err := br.eval(ctx, `document.querySelector('.graphiql-query-editor .CodeMirror').CodeMirror.setValue(`+string(sub)+`)`, nil); err != nil {
		t.Fatal(err)
	}
	if err := br.eval(ctx, `document.querySelector('.graphiql-execute-button').click()`, nil); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for len(br.eventsNamed("Network.webSocketWillSendHandshakeRequest")) == 0 {
		if time.Now().After(deadline) {
			var text string
			_ = br.eval(ctx, "document.querySelector('.result-window').innerText", &text)
			for _, m := range []string{"Log.entryAdded", "Runtime.consoleAPICalled", "Network.webSocketCreated"} {
				for _, e := range br.eventsNamed(m) {
					t.Logf("%s %s", m, e)
				}
			}
			t.Fatalf("the subscription opened no websocket; result: %s", text)
		}
		time.Sleep(50 * time.Millisecond)
	}
	var hs struct {
		Request struct {
			Headers map[string]string `json:"headers"`
		} `json:"request"`
	}
	_ = json.Unmarshal(br.eventsNamed("Network.webSocketWillSendHandshakeRequest")[0], &hs)
	var wsURL string
	for _, raw := range br.eventsNamed("Network.webSocketCreated") {
		var c struct{ URL string }
		_ = json.Unmarshal(raw, &c)
		wsURL = c.URL
	}
	if wsURL != "ws://"+origin.Host+"/graphql" || !strings.Contains(headerValue(hs.Request.Headers, "Sec-WebSocket-Protocol"), "graphql-transport-ws") {
		t.Fatalf("websocket %q with headers %v", wsURL, hs.Request.Headers)
	}
	// Once the server speaks the protocol, connection_init carries the pasted key.
	for _, raw := range br.eventsNamed("Network.webSocketFrameSent") {
		if s := string(raw); strings.Contains(s, "connection_init") && !strings.Contains(s, b.Key) {
			t.Errorf("connection_init without the key: %s", s)
		}
	}

	// A returning user's saved key loads the schema at once: the explorer lists fields after a reload.
	if err := br.eval(ctx, `document.querySelector('.graphiql-query-editor .CodeMirror').CodeMirror.setValue('{ agents { totalCount } }');
		window.beforeReload = true`, nil); err != nil {
		t.Fatal(err)
	}
	br.waitFor(ctx, "GraphiQL to save the query", `(localStorage.getItem('graphiql:tabState') || '').includes('agents { totalCount }')`, 20*time.Second)
	br.call(ctx, br.session, "Page.reload", map[string]any{}, nil)
	br.waitFor(ctx, "GraphiQL after a reload", `!window.beforeReload && document.querySelector('[aria-label="Show GraphiQL Explorer"], [aria-label="Hide GraphiQL Explorer"]')`, 60*time.Second)
	if err := br.eval(ctx, `(() => { const show = document.querySelector('[aria-label="Show GraphiQL Explorer"]'); if (show) show.click(); })()`, nil); err != nil {
		t.Fatal(err)
	}
	br.waitFor(ctx, "the explorer to list root fields after a reload", `document.querySelector('.graphiql-plugin') &&
		document.querySelector('.graphiql-plugin').innerText.includes('agentAuditChain')`, 30*time.Second)

	// Nothing left the origin, nothing failed, nothing broke the content policy.
	for _, raw := range br.eventsNamed("Network.requestWillBeSent") {
		var r struct {
			Request struct{ URL string } `json:"request"`
		}
		_ = json.Unmarshal(raw, &r)
		u, err := url.Parse(r.Request.URL)
		if err != nil || (u.Scheme != "data" && u.Host != origin.Host) {
			t.Errorf("request outside the origin: %s", r.Request.URL)
		}
	}
	for _, raw := range br.eventsNamed("Network.responseReceived") {
		var r struct {
			Response struct {
				URL    string
				Status int
			} `json:"response"`
		}
		_ = json.Unmarshal(raw, &r)
		if r.Response.Status >= 400 {
			t.Errorf("%s answered %d", r.Response.URL, r.Response.Status)
		}
	}
	for _, raw := range br.eventsNamed("Runtime.exceptionThrown") {
		t.Errorf("uncaught exception in the page: %s", raw)
	}
	for _, raw := range br.eventsNamed("Log.entryAdded") {
		if s := string(raw); strings.Contains(s, "Content Security Policy") {
			t.Errorf("content security policy violation: %s", s)
		}
	}
}

func headerValue(h map[string]string, name string) string {
	for k, v := range h {
		if strings.EqualFold(k, name) {
			return v
		}
	}
	return ""
}
