//go:build !unix

package mcp

import "os"

// openRegular opens the file at path, which was a regular file, for
// reading.
func openRegular(path string) (*os.File, error) { return os.Open(path) }
