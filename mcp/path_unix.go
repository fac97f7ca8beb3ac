//go:build unix

package mcp

import (
	"os"
	"syscall"
)

// openRegular opens the file at path, which was a regular file, for
// reading without following a symbolic link and without blocking, should
// it have been replaced by a FIFO since.
func openRegular(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOFOLLOW, 0)
}
