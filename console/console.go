// Package console is Hub's web console: the static files of console/static
// (index.html, the stylesheet and the JavaScript tsc builds from
// console/web/src), embedded in the binary and served at the site's root.
//
// The console is a client of the api like any other: it exchanges the
// person's token for the browser's session cookie (POST /api/session) and
// calls /api with it, and opens the event streams with their stream URLs.
// It has no server-side logic of its own, so this package imports
// nothing of Hub's (docs/architecture.md, "Layers and imports").
package console

import (
	"embed"
	"io/fs"
	"net/http"
	"strings"
)

//go:embed static
var files embed.FS

// Files are the console's files, index.html at the root.
func Files() fs.FS {
	sub, err := fs.Sub(files, "static")
	if err != nil {
		panic(err) // the embed pattern above names the directory
	}
	return sub
}

// Handler serves the console's files for GET and HEAD, `/` as index.html,
// and hands every other request to next (the api): /api/*, /healthz,
// /metrics, and any path that names no file of the console, so an unknown
// path still gets the api's JSON 404.
func Handler(next http.Handler) http.Handler {
	static := Files()
	fileServer := http.FileServerFS(static)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !isConsolePath(static, r) {
			next.ServeHTTP(w, r)
			return
		}
		h := w.Header()
		// The page is small and changes with the binary: revalidate it
		// every time (the file server answers 304 by its modification time
		// otherwise, which embedded files do not have).
		h.Set("Cache-Control", "no-cache")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		// Scripts and styles of our own only; the api on this origin only.
		h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'")
		fileServer.ServeHTTP(w, r)
	})
}

// isConsolePath says whether r asks for one of the console's files.
func isConsolePath(static fs.FS, r *http.Request) bool {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return false
	}
	p := r.URL.Path
	if p == "/" {
		return true
	}
	if strings.HasPrefix(p, "/api/") || p == "/api" || strings.HasSuffix(p, "/") {
		return false
	}
	name := strings.TrimPrefix(p, "/")
	if !fs.ValidPath(name) {
		return false
	}
	st, err := fs.Stat(static, name)
	return err == nil && !st.IsDir()
}
