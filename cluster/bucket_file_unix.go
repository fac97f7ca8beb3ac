//go:build unix

package cluster

import "syscall"

// openNoBlock opens a FIFO without waiting for a writer.
const openNoBlock = syscall.O_NONBLOCK
