// Package playground serves GraphiQL from assets embedded in the binary, so
// the playground works without internet access. The bundles are pinned in
// playground/package-lock.json and refreshed with `make playground`.
package playground

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"html/template"
	"io/fs"
	"net/http"
	"path"

	"github.com/agenttrust/service/httpapi/asset"
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
	var zipped asset.GzipCache
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
		if zipped.Serve(w, r, fsys, name) {
			return
		}
		fileServer.ServeHTTP(w, r)
	})))
	return mux
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
