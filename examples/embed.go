// Package examples bundles the example specs, so that the tools built into
// wrapcheck (the MCP server) can list and serve them. Its tests check that
// every example gives its expected verdict.
package examples

import (
	"embed"
	"io/fs"
)

//go:embed README.md */*.wrap
var files embed.FS

// FS returns the example specs, as "dir/name.wrap" paths, and README.md.
// It is read-only and safe for concurrent use.
func FS() fs.FS { return files }
