// Package docs bundles the user documentation that the tools built into
// wrapcheck (the MCP server) serve, and holds the test that keeps the
// documentation true (see docs_test.go).
package docs

import (
	"embed"
	"io/fs"
)

//go:embed language.md patterns.md agents.md
var files embed.FS

// FS returns the language reference (language.md), the patterns page
// (patterns.md) and the guide for AI agents (agents.md). It is read-only
// and safe for concurrent use.
func FS() fs.FS { return files }
