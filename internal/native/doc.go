// Package native builds and caches the binaries of check --compile: the
// command's source embedded in package wrapcheck, with the Go code that
// machine.GenerateNative writes for a set of specs, built by go build
// into a binary kept in the user's cache directory under the hash of
// that source and of the generated code ([EntryName]).
//
// The cache ([Cache]): each entry is a directory
// <root>/<source hash>/<key of the specs' code>/ holding the binary
// ([BinName]), a lock file and, while a build runs, its temporary
// directory. A process that uses an entry (to build its binary or to run
// it) holds a shared flock on the entry's lock file for as long as it
// does; whoever removes an entry takes an exclusive one without waiting,
// so an entry in use is skipped, renames the directory to a trash name
// (atomic: no process ever sees half an entry), releases the lock and
// deletes the trash. A user checks, once it holds its lock, that the lock
// file it holds is still the one at the entry's path, and starts again
// when it is not (the entry was renamed away while it waited). A binary
// is built in a temporary directory and renamed into place, so a binary
// at its path is always whole; builds of one entry wait for each other
// (an exclusive lock on buildLockName), so two processes do not build
// the same binary twice.
//
// A binary is run only when it is what a build here made: when the build
// renames it into place, the SHA-256 of its content is recorded in
// <root>/.sums/<source hash>-<key>, outside the entry, and each run
// checks the binary against that record before it runs it; a binary
// without a matching record is built again. Every directory of the cache
// is made 0700; a cache directory, an entry or a binary that another user
// owns or can write is refused ([Cache.Verify] returns an error; check --compile exits 2), as a binary that is not a
// regular file is.
//
// Nothing here prints a report or knows the command line: cmd/wrapcheck
// runs the binary and passes its output and exit code through.
package native
