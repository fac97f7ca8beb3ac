//go:build !unix

package native

import (
	"context"
	"os"
	"os/exec"
)

// lockFile does nothing where there is no flock: the cache then never
// removes an entry by itself (tryLockFile says every entry is in use).
func lockFile(f *os.File, exclusive bool) error { return nil }

// tryLockFile reports false: without flock no entry is known to be unused.
func tryLockFile(f *os.File) (bool, error) { return false, nil }

// checkPrivate does nothing where files have no Unix owner and mode.
func checkPrivate(path string, follow bool) error { return nil }

// lockFileContext does nothing, as lockFile.
func lockFileContext(ctx context.Context, f *os.File, exclusive bool) error { return ctx.Err() }

// ownGroup leaves c as it is: the end of its context kills the process.
func ownGroup(c *exec.Cmd) {}
