package main

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
)

// The cache of check --compile's binaries. Each entry is a directory
// <root>/<source hash>/<key of the specs' code>/ holding the binary
// (nativeBinName), a lock file and, while a build runs, its temporary
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
// owns or can write is refused (a usage error), as a binary that is not a
// regular file is.

const (
	// cacheDirEnv overrides wrapcheck's cache directory (default: the
	// user's cache directory's wrapcheck, e.g. ~/.cache/wrapcheck).
	cacheDirEnv = "WRAPCHECK_CACHE_DIR"
	// nativeBinName is the name of an entry's binary.
	nativeBinName = "wrapcheck-native"
	// lockName and buildLockName are an entry's lock files.
	lockName      = "lock"
	buildLockName = "build.lock"
	// evictStampName is the file whose modification time says when the
	// cache was last trimmed after a run that built nothing.
	evictStampName = ".last-evict"
	// trashPrefix starts the name of an entry being deleted.
	trashPrefix = ".trash-"
	// sumsDir holds the SHA-256 of each entry's binary.
	sumsDir = ".sums"
	// cacheMaxAge and cacheMaxBytes are the automatic eviction's limits:
	// an entry not used for cacheMaxAge is removed, and the least
	// recently used entries are removed while the cache holds more than
	// cacheMaxBytes (a binary is about 25 MB).
	cacheMaxAge   = 30 * 24 * time.Hour
	cacheMaxBytes = 1 << 30
	// evictEvery is how often a run that finds its binary trims the cache.
	evictEvery = 24 * time.Hour
)

// cacheLimits says which entries an eviction removes. Its zero value
// removes nothing but incomplete entries (a build that died).
type cacheLimits struct {
	maxAge   time.Duration // remove entries unused for longer (0: no limit)
	maxBytes int64         // remove the least recently used while the total is larger (0: no limit)
	all      bool          // remove every entry not in use
}

// defaultLimits are the automatic eviction's limits.
func defaultLimits() cacheLimits {
	return cacheLimits{maxAge: cacheMaxAge, maxBytes: cacheMaxBytes}
}

// nativeCache is the directory of check --compile's binaries.
type nativeCache struct {
	root string
}

// openNativeCache returns the cache at $WRAPCHECK_CACHE_DIR/native, or at
// the user's cache directory's wrapcheck/native.
func openNativeCache() (*nativeCache, error) {
	dir := os.Getenv(cacheDirEnv)
	if dir == "" {
		d, err := os.UserCacheDir()
		if err != nil {
			return nil, fmt.Errorf("no cache directory (set %s): %w", cacheDirEnv, err)
		}
		dir = filepath.Join(d, "wrapcheck")
	}
	return &nativeCache{root: filepath.Join(dir, "native")}, nil
}

// cacheEntry is one entry of a scan.
type cacheEntry struct {
	rel   string    // <source hash>/<key>, slash-separated
	bytes int64     // the sizes of its files
	used  time.Time // the directory's modification time, set on each use
	ready bool      // it holds a built binary
	inUse bool      // a process holds its lock (set by scan)
}

// cacheLock is a shared lock on an entry, held while the entry is used.
type cacheLock struct {
	f *os.File
}

// release releases the lock.
func (l *cacheLock) release() { l.f.Close() }

// acquire creates the entry rel when it does not exist, takes a shared
// lock on it and marks it used now.
func (c *nativeCache) acquire(rel string) (*cacheLock, error) {
	dir := filepath.Join(c.root, filepath.FromSlash(rel))
	lock := filepath.Join(dir, lockName)
	const tries = 20
	for try := 1; ; try++ {
		retry := func(err error) bool { return try < tries && errors.Is(err, fs.ErrNotExist) }
		if err := os.MkdirAll(dir, 0o700); err != nil {
			// A parent removed as it was made; or the entry made by
			// another process and removed by a third between MkdirAll's
			// mkdir (which then fails with "file exists") and its look
			// at what exists.
			if retry(err) || try < tries && errors.Is(err, fs.ErrExist) {
				continue
			}
			return nil, err
		}
		f, err := os.OpenFile(lock, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			if retry(err) {
				continue
			}
			return nil, err
		}
		if err := lockFile(f, false); err != nil {
			f.Close()
			return nil, fmt.Errorf("%s: %w", lock, err)
		}
		if sameFile(f, lock) {
			now := time.Now()
			os.Chtimes(dir, now, now) // the entry's last use, for eviction
			return &cacheLock{f: f}, nil
		}
		f.Close()
		if try >= tries {
			return nil, fmt.Errorf("%s: removed by other processes %d times while this one waited for it", dir, tries)
		}
	}
}

// sameFile reports whether f is the file at path.
func sameFile(f *os.File, path string) bool {
	a, err := f.Stat()
	if err != nil {
		return false
	}
	b, err := os.Stat(path)
	return err == nil && os.SameFile(a, b)
}

// scan lists the entries, least recently used first (then by name), with
// the paths of what is not an entry (a file where a directory should be).
// A cache directory that does not exist has no entries.
func (c *nativeCache) scan() (entries []cacheEntry, stray []string, err error) {
	hashes, err := os.ReadDir(c.root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	for _, h := range hashes {
		if strings.HasPrefix(h.Name(), ".") {
			continue
		}
		hdir := filepath.Join(c.root, h.Name())
		if !h.IsDir() {
			stray = append(stray, hdir)
			continue
		}
		keys, err := os.ReadDir(hdir)
		if errors.Is(err, fs.ErrNotExist) {
			continue // removed since
		}
		if err != nil {
			return nil, nil, err
		}
		for _, k := range keys {
			dir := filepath.Join(hdir, k.Name())
			if !k.IsDir() {
				stray = append(stray, dir)
				continue
			}
			e := cacheEntry{rel: h.Name() + "/" + k.Name()}
			fi, err := os.Stat(dir)
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				return nil, nil, err
			}
			e.used = fi.ModTime()
			if fi, err := os.Lstat(filepath.Join(dir, nativeBinName)); err == nil && fi.Mode().IsRegular() {
				e.ready = true
			}
			err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
				if errors.Is(err, fs.ErrNotExist) {
					return nil // a build's temporary files, removed since
				}
				if err != nil {
					return err
				}
				if d.Type().IsRegular() {
					if fi, err := d.Info(); err == nil {
						e.bytes += fi.Size()
					}
				}
				return nil
			})
			if err != nil {
				return nil, nil, err
			}
			e.inUse = c.inUse(dir)
			entries = append(entries, e)
		}
	}
	slices.SortFunc(entries, func(a, b cacheEntry) int {
		if c := a.used.Compare(b.used); c != 0 {
			return c
		}
		return strings.Compare(a.rel, b.rel)
	})
	return entries, stray, nil
}

// inUse reports whether a process holds the lock of the entry at dir.
func (c *nativeCache) inUse(dir string) bool {
	f, err := os.Open(filepath.Join(dir, lockName))
	if err != nil {
		return false
	}
	defer f.Close()
	ok, err := tryLockFile(f)
	return err != nil || !ok
}

// remove deletes the entry rel unless a process uses it, and reports
// whether it did.
func (c *nativeCache) remove(rel string) (bool, error) {
	dir := filepath.Join(c.root, filepath.FromSlash(rel))
	lock := filepath.Join(dir, lockName)
	f, err := os.OpenFile(lock, os.O_RDWR|os.O_CREATE, 0o644)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil // removed since
	}
	if err != nil {
		return false, err
	}
	defer f.Close()
	if ok, err := tryLockFile(f); err != nil || !ok {
		return false, err
	}
	if !sameFile(f, lock) {
		return false, nil // removed, or removed and made again, since
	}
	// The record first, while no process can use the entry: a binary
	// without one is built again, never run.
	if err := os.Remove(c.sumPath(rel)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, err
	}
	var b [8]byte
	rand.Read(b[:])
	trash := filepath.Join(c.root, trashPrefix+hex.EncodeToString(b[:]))
	if err := os.Rename(dir, trash); err != nil {
		return false, err
	}
	f.Close() // whoever waits for the lock finds the entry gone, and starts again
	err = os.RemoveAll(trash)
	os.Remove(filepath.Dir(dir)) // the source hash's directory, when it is empty now
	return true, err
}

// evict removes the entries that limits select and no process uses:
// those unused for longer than maxAge, then the least recently used while
// the total is over maxBytes, and incomplete ones (a build that died);
// it also deletes what a removal interrupted left in the trash. It
// returns what it removed, least recently used first.
func (c *nativeCache) evict(limits cacheLimits) ([]cacheEntry, error) {
	entries, _, err := c.scan()
	if err != nil {
		return nil, err
	}
	var errs []error
	if ds, err := os.ReadDir(c.root); err == nil {
		for _, d := range ds {
			if strings.HasPrefix(d.Name(), trashPrefix) {
				os.RemoveAll(filepath.Join(c.root, d.Name())) // nobody uses the trash
			}
		}
	}
	var total int64
	for _, e := range entries {
		total += e.bytes
	}
	now := time.Now()
	var removed []cacheEntry
	for _, e := range entries {
		old := limits.maxAge > 0 && now.Sub(e.used) > limits.maxAge
		big := limits.maxBytes > 0 && total > limits.maxBytes
		if e.inUse || !(limits.all || old || big || !e.ready) {
			continue
		}
		ok, err := c.remove(e.rel)
		if err != nil {
			errs = append(errs, err)
		}
		if ok {
			removed = append(removed, e)
			total -= e.bytes
		}
	}
	return removed, errors.Join(errs...)
}

// evictDue runs the automatic eviction when the last one is older than
// evictEvery (or when force is set: the cache just grew).
func (c *nativeCache) evictDue(force bool) error {
	stamp := filepath.Join(c.root, evictStampName)
	if fi, err := os.Stat(stamp); !force && err == nil && time.Since(fi.ModTime()) < evictEvery {
		return nil
	}
	if err := os.WriteFile(stamp, nil, 0o600); err != nil {
		return err
	}
	_, err := c.evict(defaultLimits())
	return err
}

// sumPath is the path of the record of the SHA-256 of the binary of the
// entry rel.
func (c *nativeCache) sumPath(rel string) string {
	return filepath.Join(c.root, sumsDir, strings.ReplaceAll(rel, "/", "-"))
}

// record records sum as the SHA-256 of the binary of the entry rel.
func (c *nativeCache) record(rel string, sum []byte) error {
	dir := filepath.Join(c.root, sumsDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	if err := checkPrivate(dir, false); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".tmp-")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	_, err = f.WriteString(hex.EncodeToString(sum) + "\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Rename(f.Name(), c.sumPath(rel))
}

// verify reports whether the binary of the entry rel is the one a build
// recorded: it exists and its SHA-256 is the recorded one. It returns an
// error, and the binary must not run, when the binary, the entry or a
// directory above it in the cache is not private to this user (see
// checkPrivate), or the binary is not a regular file.
func (c *nativeCache) verify(rel string) (bool, error) {
	dir := filepath.Join(c.root, filepath.FromSlash(rel))
	bin := filepath.Join(dir, nativeBinName)
	fi, err := os.Lstat(bin)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if !fi.Mode().IsRegular() {
		return false, fmt.Errorf("%s: not a regular file (%s): remove it", bin, fi.Mode().Type())
	}
	if err := checkPrivate(bin, false); err != nil {
		return false, err
	}
	// The directories from the entry up to the cache directory (which
	// may be a symbolic link).
	top := filepath.Dir(c.root)
	for d := dir; ; d = filepath.Dir(d) {
		if err := checkPrivate(d, d == top); err != nil {
			return false, err
		}
		if d == top || d == filepath.Dir(d) {
			break
		}
	}
	want, err := os.ReadFile(c.sumPath(rel))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if err := checkPrivate(filepath.Join(c.root, sumsDir), false); err != nil {
		return false, err
	}
	got, err := fileSum(bin)
	if err != nil {
		return false, err
	}
	return strings.TrimSpace(string(want)) == hex.EncodeToString(got), nil
}

// fileSum returns the SHA-256 of the content of the file at path.
func fileSum(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return nil, err
	}
	return h.Sum(nil), nil
}

// formatBytes writes n in binary units.
func formatBytes(n int64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	case n < 1<<30:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.2f GiB", float64(n)/(1<<30))
}

func newCacheCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "cache",
		Short: "list or clean the cache of check --compile's binaries",
		Long: `check --compile builds one binary (about 25 MB) for each set of specs and
version of wrapcheck, into the cache directory: $` + cacheDirEnv + `/native, or
by default the user's cache directory's wrapcheck/native (~/.cache/wrapcheck/native
on Linux, ~/Library/Caches/wrapcheck/native on macOS). A run that builds a
binary, and otherwise one a day, removes the binaries not used for 30 days, then
the least recently used while the cache holds more than 1 GiB. A binary that a
process runs, or builds, is never removed.`,
		Args: cobra.NoArgs,
	}
	cmd.AddCommand(newCacheListCmd(), newCacheCleanCmd())
	return cmd
}

func newCacheListCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "print the cache directory and its entries, least recently used first",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			c, entries, err := scanCache(cmd)
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "%s\n", c.root)
			var total int64
			for _, e := range entries {
				total += e.bytes
				fmt.Fprintf(w, "%s  %10s  %-10s  %s\n", e.used.UTC().Format("2006-01-02 15:04 UTC"), formatBytes(e.bytes), entryState(e), e.rel)
			}
			fmt.Fprintf(w, "%d entries, %s (limits: %s, %d days unused)\n", len(entries), formatBytes(total), formatBytes(cacheMaxBytes), int(cacheMaxAge/(24*time.Hour)))
			return nil
		},
	}
}

// entryState names the state of e.
func entryState(e cacheEntry) string {
	switch {
	case e.inUse && e.ready:
		return "in use"
	case e.inUse:
		return "building"
	case e.ready:
		return "ready"
	}
	return "incomplete"
}

func newCacheCleanCmd() *cobra.Command {
	var olderThan time.Duration
	cmd := &cobra.Command{
		Use:   "clean",
		Short: "remove the cached binaries that no process uses",
		Long: `clean removes every entry of the cache that no process uses (with
--older-than, only those not used for that long), and prints what it removed.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if olderThan < 0 {
				return &exitError{code: exitUsage, err: fmt.Errorf("--older-than %v: want a duration of 0 or more", olderThan)}
			}
			c, entries, err := scanCache(cmd)
			if err != nil {
				return err
			}
			limits := cacheLimits{all: true}
			if olderThan > 0 {
				limits = cacheLimits{maxAge: olderThan}
			}
			removed, err := c.evict(limits)
			w := cmd.OutOrStdout()
			var bytes int64
			for _, e := range removed {
				bytes += e.bytes
				fmt.Fprintf(w, "removed %s (%s)\n", e.rel, formatBytes(e.bytes))
			}
			inUse := 0
			for _, e := range entries {
				if e.inUse {
					inUse++
				}
			}
			fmt.Fprintf(w, "removed %d entries, %s; %d in use kept\n", len(removed), formatBytes(bytes), inUse)
			if err != nil {
				return &exitError{code: exitUsage, err: fmt.Errorf("cache clean: %w", err)}
			}
			return nil
		},
	}
	cmd.Flags().DurationVar(&olderThan, "older-than", 0, "remove only the entries not used for this long, e.g. 168h (0: every entry not in use)")
	return cmd
}

// scanCache opens the cache and scans it, warning on stderr about what is
// not an entry.
func scanCache(cmd *cobra.Command) (*nativeCache, []cacheEntry, error) {
	c, err := openNativeCache()
	if err != nil {
		return nil, nil, &exitError{code: exitUsage, err: fmt.Errorf("cache: %w", err)}
	}
	entries, stray, err := c.scan()
	if err != nil {
		return nil, nil, &exitError{code: exitUsage, err: fmt.Errorf("cache: %w", err)}
	}
	warnStray(cmd.ErrOrStderr(), stray)
	return c, entries, nil
}

// warnStray warns about each path of stray.
func warnStray(w io.Writer, stray []string) {
	for _, p := range stray {
		fmt.Fprintf(w, "wrapcheck: cache: %s: not a cache entry (a file where a directory should be), left as it is\n", p)
	}
}
