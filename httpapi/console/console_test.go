package console_test

import (
	"bufio"
	"compress/gzip"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agenttrust/service/httpapi"
	"github.com/agenttrust/service/httpapi/console"
	"github.com/agenttrust/service/internal/testkit"
	"github.com/agenttrust/service/internal/webhooktest"
	"github.com/agenttrust/service/webhook/delivery"
	"github.com/agenttrust/service/wire"
)

// The console is served from the binary: the page, under a policy that
// allows only its own origin and no inline script, and every asset it names.
func TestConsoleIsServedWithItsPolicy(t *testing.T) {
	t.Parallel()
	b := testkit.New(t)
	for _, p := range []string{"/console", "/console/"} {
		page := b.Get("", p)
		if page.Status != http.StatusOK || page.Header.Get("Content-Security-Policy") != console.ContentSecurityPolicy {
			t.Fatalf("%s: %d, CSP %q", p, page.Status, page.Header.Get("Content-Security-Policy"))
		}
		if strings.Contains(page.Body, "http://") || strings.Contains(page.Body, "https://") || strings.Contains(page.Body, "<script>") {
			t.Fatalf("%s names an absolute URL or holds an inline script:\n%s", p, page.Body)
		}
	}
	csp := console.ContentSecurityPolicy
	for _, want := range []string{"default-src 'self'", "script-src 'self'", "connect-src 'self'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("CSP lacks %q", want)
		}
	}
	if strings.Contains(csp, "unsafe-inline") || strings.Contains(csp, "unsafe-eval") || strings.Contains(csp, "http") {
		t.Errorf("CSP allows more than its origin: %s", csp)
	}
	page := b.Get("", "/console")
	assets := 0
	for _, part := range strings.Split(page.Body, `"`)[1:] {
		if !strings.HasPrefix(part, "/console/") {
			continue
		}
		assets++
		r := b.Get("", part)
		if r.Status != http.StatusOK || len(r.Body) == 0 || r.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s: %d (%d bytes)", part, r.Status, len(r.Body))
		}
	}
	if assets < 4 || !strings.Contains(page.Body, `rel="modulepreload"`) {
		t.Errorf("the page names %d assets, want the script, the chunks it imports (preloaded), the style sheet and the icon:\n%s", assets, page.Body)
	}
	if r := b.Get("", "/console/nope.js"); r.Status != http.StatusNotFound {
		t.Errorf("unknown asset: %d", r.Status)
	}
	plain := b.Get("", "/console/console.js")
	zipped := b.Serve(testkit.Request(http.MethodGet, "/console/console.js", nil, "Accept-Encoding", "gzip"))
	if zipped.Header.Get("Content-Encoding") != "gzip" || len(zipped.Body) >= len(plain.Body) {
		t.Fatalf("console.js: Content-Encoding %q, %d bytes gzipped vs %d", zipped.Header.Get("Content-Encoding"), len(zipped.Body), len(plain.Body))
	}
	zr, err := gzip.NewReader(strings.NewReader(zipped.Body))
	if err != nil {
		t.Fatal(err)
	}
	if unpacked, err := io.ReadAll(zr); err != nil || string(unpacked) != plain.Body {
		t.Fatalf("gzipped console.js differs from the plain one (%v)", err)
	}
}

// repoRoot is the repository's top directory, from this package's.
func repoRoot(t testing.TB) string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// needNode skips unless node and the console's node_modules are present.
func needNode(t testing.TB) (node, dir string) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("SKIPPED: the console's build and browser checks need Node.js (node on PATH) and `cd console && npm ci`")
	}
	dir = filepath.Join(repoRoot(t), "console")
	if _, err := os.Stat(filepath.Join(dir, "node_modules", ".bin", "relay-compiler")); err != nil {
		t.Skip("SKIPPED: the console's build and browser checks need its packages: `cd console && npm ci` (or `make console`)")
	}
	return node, dir
}

// The committed bundle is what the source builds to, byte for byte, and the
// committed Relay artifacts are what relay-compiler makes from the source
// and schema.graphqls (relay-compiler --validate), and the source type-checks
// against them: a schema change that breaks the console fails here.
func TestConsoleBundleMatchesItsSource(t *testing.T) {
	t.Parallel()
	node, dir := needNode(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "build.mjs", "--check")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node build.mjs --check: %v\n%s", err, out)
	}
}

// chromium finds the browser, or skips saying how to get one.
func chromium(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("SKIPPED: the console's browser tests need Chromium: apt-get install chromium, or set CHROMIUM=/path/to/chrome")
	return ""
}

// liveService runs the whole service (live hub, webhook deliveries to local
// TLS receivers) behind a loopback HTTP server and returns its URL, the
// admin key and a receiver's URL.
func liveService(t testing.TB) (url, key, hook string) {
	t.Helper()
	e := webhooktest.NewEnv(t, webhooktest.Options{})
	s := wire.NewServer(wire.Options{DB: e.DB, Webhooks: e.Webhooks,
		Config: httpapi.Config{RateLimitRPS: 1e6, RateLimitBurst: 1e6},
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = s.Run(ctx); close(done) }()
	ts := httptest.NewServer(s)
	t.Cleanup(func() { ts.Close(); cancel(); <-done })
	e.Start(delivery.Config{})
	return ts.URL, e.Key, webhooktest.New(t).URL()
}

// runScript runs console/e2e/console.e2e.mjs with env and returns its result
// lines: "PASS flow", "FAIL flow: why", "METRIC name value".
func runScript(t testing.TB, ctx context.Context, node, dir string, env ...string) []string {
	t.Helper()
	cmd := exec.CommandContext(ctx, node, "e2e/console.e2e.mjs")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = testkit.Writer{T: t}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var lines []string
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if err := cmd.Wait(); err != nil {
		t.Logf("console.e2e.mjs: %v", err)
	}
	return lines
}

// TestConsoleInChromium signs in to the console in headless Chromium and
// walks each page's flows against the real service on loopback: each flow
// is a subtest. Every page is checked with axe-core (no serious or critical
// violation), makes no request outside its origin and breaks no
// Content-Security-Policy rule. Screenshots go to $CONSOLE_SCREENSHOTS
// (make console-screenshots writes docs/console/), else a temporary directory.
func TestConsoleInChromium(t *testing.T) {
	browser := chromium(t)
	node, dir := needNode(t)
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "playwright-core")); err != nil {
		t.Skip("SKIPPED: the console's browser tests need playwright-core: cd console && npm ci")
	}
	shots := os.Getenv("CONSOLE_SCREENSHOTS")
	if shots == "" {
		shots = t.TempDir()
	}
	url, key, hook := liveService(t)
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	lines := runScript(t, ctx, node, dir, "CONSOLE_URL="+url, "ADMIN_KEY="+key, "WEBHOOK_URL="+hook,
		"SCREENSHOTS="+shots, "CHROMIUM="+browser, "FLOWS="+os.Getenv("CONSOLE_FLOWS"))
	flows := 0
	for _, l := range lines {
		name, rest, _ := strings.Cut(l, " ")
		switch name {
		case "PASS", "FAIL":
			flow, why, _ := strings.Cut(rest, ": ")
			flows++
			t.Run(flow, func(t *testing.T) {
				if name == "FAIL" {
					t.Error(why)
				}
			})
		}
	}
	if flows == 0 {
		t.Fatalf("the browser script reported no flow:\n%s", strings.Join(lines, "\n"))
	}
}
