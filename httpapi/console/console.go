// Package console serves the operator's console, a React and Relay app on
// the public GraphQL API, from assets embedded in the binary: the bundle is
// built from console/ (TypeScript source, package-lock.json) by `make
// console` and committed, so serving it needs no Node and no network.
package console

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"html/template"
	"io/fs"
	"net/http"
	"regexp"

	"github.com/agenttrust/service/httpapi/asset"
)

//go:embed index.html dist
var files embed.FS

// Path is where the console's page is served; its assets are under Path + "/".
const Path = "/console"

// ContentSecurityPolicy keeps the page to its own origin: its script, its
// style sheet, its GraphQL requests and its websocket ('self' covers ws: and
// wss: to the same host), and no inline script.
const ContentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; " +
	"connect-src 'self'; font-src 'self'; object-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"

// Handler serves the page at Path and Path + "/" and the assets under Path + "/".
func Handler() http.Handler {
	dist, err := fs.Sub(files, "dist")
	if err != nil {
		panic(err) // the embedded tree is fixed at build time
	}
	var html bytes.Buffer
	page := template.Must(template.ParseFS(files, "index.html"))
	if err := page.Execute(&html, map[string]any{"Base": Path + "/", "Version": contentVersion(dist), "Preload": staticImports(dist)}); err != nil {
		panic(err)
	}
	servePage := func(w http.ResponseWriter, _ *http.Request) {
		h := w.Header()
		h.Set("Content-Type", "text/html; charset=utf-8")
		h.Set("Cache-Control", "no-cache")
		h.Set("Content-Security-Policy", ContentSecurityPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		_, _ = w.Write(html.Bytes())
	}
	assets := http.FileServerFS(dist)
	var zipped asset.GzipCache
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+Path, servePage)
	mux.HandleFunc("GET "+Path+"/{$}", servePage)
	mux.Handle("GET "+Path+"/{file}", http.StripPrefix(Path+"/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Names carry ?v=<content hash>, so a browser may keep them.
		w.Header().Set("Cache-Control", "public, max-age=86400")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("Content-Security-Policy", ContentSecurityPolicy)
		if zipped.Serve(w, r, dist, r.URL.Path) {
			return
		}
		assets.ServeHTTP(w, r)
	})))
	return mux
}

// staticImports names the chunks console.js imports before it runs, so the
// page can ask for them at once (modulepreload) instead of after parsing it.
func staticImports(dist fs.FS) []string {
	js, err := fs.ReadFile(dist, "console.js")
	if err != nil {
		panic(err) // the embedded tree is fixed at build time
	}
	var names []string
	for _, m := range leadingImport.FindAllSubmatch(js, -1) {
		names = append(names, string(m[1]))
	}
	return names
}

// leadingImport matches one of the import statements esbuild writes at the
// top of an entry point.
var leadingImport = regexp.MustCompile(`(?:^|;)import\{[^}]*\}from"\./(chunk-[A-Z0-9]+\.js)"`)

// contentVersion is a short hash of the embedded assets, used to bust caches.
func contentVersion(dist fs.FS) string {
	h := sha256.New()
	_ = fs.WalkDir(dist, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(dist, p)
		h.Write([]byte(p))
		h.Write(b)
		return err
	})
	return hex.EncodeToString(h.Sum(nil))[:12]
}
