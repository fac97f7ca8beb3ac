//go:build !(linux && (amd64 || arm64 || ppc64le || riscv64 || s390x || loong64))

package vmem

import "errors"

// reserve reserves nothing here: arrays grow on the Go heap.
func reserve(uintptr) ([]byte, error) { return nil, errors.ErrUnsupported }

// release is never called here.
func release([]byte) {}
