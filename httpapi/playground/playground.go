// Package playground serves GraphiQL from assets embedded in the binary, so
// the playground works without internet access. The bundles are pinned in
// playground/package-lock.json and refreshed with `make playground`.
package playground

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"html/template"
	"io/fs"
	"net/http"
	"path"
	"strconv"
	"strings"
	"sync"
)

//go:embed index.html playground.js playground.css favicon.svg assets
var files embed.FS

// AssetPrefix is the path under which the page's scripts and styles are served.
const AssetPrefix = "/playground/"

// DefaultHeaders pre-fills GraphiQL's headers editor; the user replaces the placeholder key.
const DefaultHeaders = "{\n  \"Authorization\": \"Bearer att_sk_…\"\n}"

const defaultQuery = `# 1. Put your key into Headers.
# 2. Run with ▶ or Ctrl-Enter.
# Explorer (left) builds queries;
# Docs shows the schema.
{
  agents(limit: 10) {
    totalCount
    nodes {
      id
      name
      status
      trust {
        score
        assessment
      }
    }
  }
}
`

var page = template.Must(template.ParseFS(files, "index.html"))

// Handler serves the playground page at "/" and its assets under AssetPrefix;
// endpoint is the same-origin GraphQL path for queries, mutations and
// subscriptions (graphql-transport-ws).
func Handler(endpoint string) http.Handler {
	assets, err := fs.Sub(files, "assets")
	if err != nil {
		panic(err) // the embedded tree is fixed at build time
	}
	version := contentVersion()
	cfg, err := json.Marshal(map[string]string{
		"endpoint":       endpoint,
		"defaultHeaders": DefaultHeaders,
		"defaultQuery":   defaultQuery,
		"placeholderHint": "Replace att_sk_… in Headers with your API key, then run again. " +
			"No key yet? `go run . org create --name NAME` prints one.",
	})
	if err != nil {
		panic(err)
	}
	var html bytes.Buffer
	err = page.Execute(&html, map[string]any{
		"Base":       AssetPrefix,
		"Version":    version,
		"ConfigJSON": template.JS(cfg), // JSON inside a JSON script block: already escaped for HTML
	})
	if err != nil {
		panic(err)
	}
	own := http.FileServerFS(files) // playground.js and playground.css
	lib := http.FileServerFS(assets)
	var zipped gzipCache
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-cache")
		w.Header().Set("Content-Security-Policy", contentSecurityPolicy)
		_, _ = w.Write(html.Bytes())
	})
	mux.Handle("GET "+AssetPrefix+"{file}", http.StripPrefix(AssetPrefix, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Names carry ?v=<content hash>, so a browser may keep them.
		w.Header().Set("Cache-Control", "public, max-age=86400")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		name, fsys, fileServer := path.Join("assets", r.URL.Path), fs.FS(files), lib
		if r.URL.Path == "playground.js" || r.URL.Path == "playground.css" || r.URL.Path == "favicon.svg" {
			name, fileServer = r.URL.Path, own
		}
		if zipped.serve(w, r, fsys, name) {
			return
		}
		fileServer.ServeHTTP(w, r)
	})))
	return mux
}

// gzipCache holds each script and style sheet gzipped, made on its first
// request (not at start-up: every test builds a handler), about a third of
// the embedded size on the wire.
type gzipCache struct{ m sync.Map } // name -> *gzipped

type gzipped struct {
	once sync.Once
	body []byte
}

// serve answers r with name gzipped if the client accepts gzip and name is a
// script or style sheet; it reports whether it answered.
func (c *gzipCache) serve(w http.ResponseWriter, r *http.Request, fsys fs.FS, name string) bool {
	ctype := map[string]string{".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8"}[path.Ext(name)]
	if ctype == "" {
		return false
	}
	w.Header().Add("Vary", "Accept-Encoding")
	if !strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
		return false
	}
	v, _ := c.m.LoadOrStore(name, &gzipped{})
	g := v.(*gzipped)
	g.once.Do(func() {
		raw, err := fs.ReadFile(fsys, name)
		if err != nil {
			return // not found: the file server answers 404
		}
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		_, _ = zw.Write(raw)
		_ = zw.Close()
		g.body = buf.Bytes()
	})
	if g.body == nil {
		return false
	}
	w.Header().Set("Content-Type", ctype)
	w.Header().Set("Content-Encoding", "gzip")
	w.Header().Set("Content-Length", strconv.Itoa(len(g.body)))
	if r.Method != http.MethodHead {
		_, _ = w.Write(g.body)
	}
	return true
}

// contentSecurityPolicy keeps the page to its own origin: scripts, styles,
// fetches and (same-origin) websockets. GraphiQL sets inline styles and inlines its fonts.
const contentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; " +
	"font-src 'self' data:; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'"

// contentVersion is a short hash of every embedded file, used to bust caches.
func contentVersion() string {
	h := sha256.New()
	_ = fs.WalkDir(files, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := files.ReadFile(path)
		h.Write([]byte(path))
		h.Write(b)
		return err
	})
	return hex.EncodeToString(h.Sum(nil))[:12]
}
