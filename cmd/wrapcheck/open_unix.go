//go:build unix

package main

import (
	"os"
	"syscall"
)

// openSpecFile opens the spec file at path for reading without waiting:
// a named pipe (FIFO) opens at once even when no process writes to it,
// where a plain open waits for a writer, forever if none comes. Its reads
// then wait for data under a deadline (readSpecContext).
func openSpecFile(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}
