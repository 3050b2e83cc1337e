// Package webui holds the browser side of Banmen: html/template pages, plain
// ES modules, CSS and SVG, embedded into the host binary. There is no build
// step. It must never know a game rule: the board draws what a variant's
// Description and View say, and sends back one of the legal moves the View
// listed.
package webui

import (
	"embed"
	"io/fs"
)

//go:embed templates static
var files embed.FS

// Templates are the page templates (*.html).
func Templates() fs.FS { return sub("templates") }

// Static are the files served under /static/.
func Static() fs.FS { return sub("static") }

func sub(dir string) fs.FS {
	f, err := fs.Sub(files, dir)
	if err != nil {
		panic(err) // the directories are embedded above
	}
	return f
}
