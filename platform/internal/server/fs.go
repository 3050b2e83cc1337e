package server

import (
	"io/fs"
	"net/http"
)

// httpFS adapts an fs.FS for Fiber's filesystem middleware.
func httpFS(f fs.FS) http.FileSystem { return http.FS(f) }
