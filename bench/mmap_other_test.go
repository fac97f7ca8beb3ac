//go:build !unix

package bench

import "errors"

func mmapAnon(int) ([]byte, error) { return nil, errors.New("no anonymous mmap here") }

func munmap([]byte) error { return nil }
