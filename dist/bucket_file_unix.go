//go:build unix

package dist

import "syscall"

// openNoBlock opens a FIFO without waiting for a writer.
const openNoBlock = syscall.O_NONBLOCK
