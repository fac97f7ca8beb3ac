// Package page holds the playground's page as `wrapcheck ui` serves it:
// the files that web/build.mjs --page writes (the HTML, the bundled
// JavaScript and its chunks, the style sheet, the lessons), without the
// WebAssembly checker, which ui does not need (its checker is the
// program's own). They are committed as page.zip, generated, and embedded,
// so that an installed binary serves the playground with no clone and no
// Node.js; TestPageCurrent rebuilds the page and fails when page.zip
// differs (WRAPCHECK_UPDATE=1 rewrites it). The measurements behind the
// choice are in docs/design/playground.md.
package page

import (
	"archive/zip"
	"bytes"
	_ "embed"
	"io/fs"
)

//go:embed page.zip
var zipped []byte

// FS returns the page's files, at the root of the file system (index.html,
// app.js, ...). Each call returns a new, read-only file system, safe for
// concurrent use.
func FS() (fs.FS, error) {
	return zip.NewReader(bytes.NewReader(zipped), int64(len(zipped)))
}
