//go:build linux && (amd64 || arm64 || ppc64le || riscv64 || s390x || loong64)

package vmem

import "syscall"

// reserve maps size bytes of address space, readable and writable,
// without reserving swap for them (MAP_NORESERVE): the kernel supplies a
// zeroed page at each page's first touch.
func reserve(size uintptr) ([]byte, error) {
	return syscall.Mmap(-1, 0, int(size), syscall.PROT_READ|syscall.PROT_WRITE,
		syscall.MAP_PRIVATE|syscall.MAP_ANON|syscall.MAP_NORESERVE)
}

// release unmaps a reservation.
func release(mem []byte) { _ = syscall.Munmap(mem) }
