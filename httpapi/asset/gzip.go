// Package asset serves embedded browser assets (the playground's, the
// console's) gzipped to clients that accept it.
package asset

import (
	"bytes"
	"compress/gzip"
	"io/fs"
	"net/http"
	"path"
	"strconv"
	"strings"
	"sync"
)

// GzipCache holds each script and style sheet gzipped, made on its first
// request (not at start-up: every test builds a handler). Its zero value is
// ready to use.
type GzipCache struct{ m sync.Map } // name -> *gzipped

type gzipped struct {
	once sync.Once
	body []byte
}

// Serve answers r with name from fsys gzipped if the client accepts gzip
// and name is a script or style sheet; it reports whether it answered (a
// name it cannot read is left to the caller's file server, which answers
// 404).
func (c *GzipCache) Serve(w http.ResponseWriter, r *http.Request, fsys fs.FS, name string) bool {
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
			return
		}
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
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
