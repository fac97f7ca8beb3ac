//go:build !unix

package main

import "os"

// openSpecFile opens the spec file at path for reading.
func openSpecFile(path string) (*os.File, error) { return os.Open(path) }
