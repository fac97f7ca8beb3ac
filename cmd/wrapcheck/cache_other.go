//go:build !unix

package main

import "os"

// lockFile does nothing where there is no flock: the cache then never
// removes an entry by itself (tryLockFile says every entry is in use).
func lockFile(f *os.File, exclusive bool) error { return nil }

// tryLockFile reports false: without flock no entry is known to be unused.
func tryLockFile(f *os.File) (bool, error) { return false, nil }
