//go:build !unix

package cluster

// openNoBlock is 0 where an open does not wait for a FIFO's writer.
const openNoBlock = 0
