//go:build unix

package bench

import "syscall"

// mmapAnon maps n bytes of fresh anonymous memory.
func mmapAnon(n int) ([]byte, error) {
	return syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
}

func munmap(b []byte) error { return syscall.Munmap(b) }
