package native

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
)

const (
	// DirEnv overrides wrapcheck's cache directory (default: the
	// user's cache directory's wrapcheck, e.g. ~/.cache/wrapcheck).
	DirEnv = "WRAPCHECK_CACHE_DIR"
	// BinName is the name of an entry's binary.
	BinName = "wrapcheck-native"
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
	// DefaultMaxAge and DefaultMaxBytes are the automatic eviction's limits:
	// an entry not used for DefaultMaxAge is removed, and the least
	// recently used entries are removed while the cache holds more than
	// DefaultMaxBytes (a binary is about 25 MB).
	DefaultMaxAge   = 30 * 24 * time.Hour
	DefaultMaxBytes = 1 << 30
	// EvictEvery is how often a run that finds its binary trims the cache.
	EvictEvery = 24 * time.Hour
)

// Limits says which entries an eviction removes. Its zero value
// removes nothing but incomplete entries (a build that died).
type Limits struct {
	MaxAge   time.Duration // remove entries unused for longer (0: no limit)
	MaxBytes int64         // remove the least recently used while the total is larger (0: no limit)
	All      bool          // remove every entry not in use
}

// DefaultLimits are the automatic eviction's limits.
func DefaultLimits() Limits {
	return Limits{MaxAge: DefaultMaxAge, MaxBytes: DefaultMaxBytes}
}

// Cache is the directory of check --compile's binaries. A Cache is
// safe for concurrent use, by goroutines and by processes.
type Cache struct {
	Root string // the directory of the entries
}

// Open returns the cache at $WRAPCHECK_CACHE_DIR/native, or at
// the user's cache directory's wrapcheck/native.
func Open() (*Cache, error) {
	dir := os.Getenv(DirEnv)
	if dir == "" {
		d, err := os.UserCacheDir()
		if err != nil {
			return nil, fmt.Errorf("no cache directory (set %s): %w", DirEnv, err)
		}
		dir = filepath.Join(d, "wrapcheck")
	}
	return &Cache{Root: filepath.Join(dir, "native")}, nil
}

// Entry is one entry of a [Cache.Scan].
type Entry struct {
	Rel   string    // <source hash>/<key>, slash-separated
	Bytes int64     // the sizes of its files
	Used  time.Time // the directory's modification time, set on each use
	Ready bool      // it holds a built binary
	InUse bool      // a process holds its lock (set by Scan)
}

// Lock is a shared lock on an entry, held while the entry is used.
type Lock struct {
	f *os.File
}

// Release releases the lock.
func (l *Lock) Release() { l.f.Close() }

// Acquire creates the entry rel when it does not exist, takes a shared
// lock on it and marks it used now.
func (c *Cache) Acquire(rel string) (*Lock, error) {
	dir := filepath.Join(c.Root, filepath.FromSlash(rel))
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
			return &Lock{f: f}, nil
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

// Scan lists the entries, least recently used first (then by name), with
// the paths of what is not an entry (a file where a directory should be).
// A cache directory that does not exist has no entries.
func (c *Cache) Scan() (entries []Entry, stray []string, err error) {
	hashes, err := os.ReadDir(c.Root)
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
		hdir := filepath.Join(c.Root, h.Name())
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
			e := Entry{Rel: h.Name() + "/" + k.Name()}
			fi, err := os.Stat(dir)
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				return nil, nil, err
			}
			e.Used = fi.ModTime()
			if fi, err := os.Lstat(filepath.Join(dir, BinName)); err == nil && fi.Mode().IsRegular() {
				e.Ready = true
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
						e.Bytes += fi.Size()
					}
				}
				return nil
			})
			if err != nil {
				return nil, nil, err
			}
			e.InUse = c.inUse(dir)
			entries = append(entries, e)
		}
	}
	slices.SortFunc(entries, func(a, b Entry) int {
		if c := a.Used.Compare(b.Used); c != 0 {
			return c
		}
		return strings.Compare(a.Rel, b.Rel)
	})
	return entries, stray, nil
}

// inUse reports whether a process holds the lock of the entry at dir.
func (c *Cache) inUse(dir string) bool {
	f, err := os.Open(filepath.Join(dir, lockName))
	if err != nil {
		return false
	}
	defer f.Close()
	ok, err := tryLockFile(f)
	return err != nil || !ok
}

// Remove deletes the entry rel unless a process uses it, and reports
// whether it did.
func (c *Cache) Remove(rel string) (bool, error) {
	dir := filepath.Join(c.Root, filepath.FromSlash(rel))
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
	trash := filepath.Join(c.Root, trashPrefix+hex.EncodeToString(b[:]))
	if err := os.Rename(dir, trash); err != nil {
		return false, err
	}
	f.Close() // whoever waits for the lock finds the entry gone, and starts again
	// Another process's Evict may be deleting the same trash now (its
	// sweep of what removals left), and the two deletions can meet: CI's
	// TestRace saw this one fail once with "directory not empty" (1 of
	// 394 removals; not reproduced here since). The entry is gone from
	// the cache already; the deletion is tried again a few times before
	// its error is reported.
	for try := 0; ; try++ {
		err = os.RemoveAll(trash)
		if err == nil || try == 3 {
			break
		}
		time.Sleep(time.Millisecond << try)
	}
	os.Remove(filepath.Dir(dir)) // the source hash's directory, when it is empty now
	return true, err
}

// Evict removes the entries that limits select and no process uses:
// those unused for longer than maxAge, then the least recently used while
// the total is over maxBytes, and incomplete ones (a build that died);
// it also deletes what a removal interrupted left in the trash. It
// returns what it removed, least recently used first.
func (c *Cache) Evict(limits Limits) ([]Entry, error) {
	entries, _, err := c.Scan()
	if err != nil {
		return nil, err
	}
	var errs []error
	if ds, err := os.ReadDir(c.Root); err == nil {
		for _, d := range ds {
			if strings.HasPrefix(d.Name(), trashPrefix) {
				os.RemoveAll(filepath.Join(c.Root, d.Name())) // nobody uses the trash
			}
		}
	}
	var total int64
	for _, e := range entries {
		total += e.Bytes
	}
	now := time.Now()
	var removed []Entry
	for _, e := range entries {
		old := limits.MaxAge > 0 && now.Sub(e.Used) > limits.MaxAge
		big := limits.MaxBytes > 0 && total > limits.MaxBytes
		if e.InUse || !(limits.All || old || big || !e.Ready) {
			continue
		}
		ok, err := c.Remove(e.Rel)
		if err != nil {
			errs = append(errs, err)
		}
		if ok {
			removed = append(removed, e)
			total -= e.Bytes
		}
	}
	return removed, errors.Join(errs...)
}

// EvictDue runs the automatic eviction when the last one is older than
// EvictEvery (or when force is set: the cache just grew).
func (c *Cache) EvictDue(force bool) error {
	stamp := filepath.Join(c.Root, evictStampName)
	if fi, err := os.Stat(stamp); !force && err == nil && time.Since(fi.ModTime()) < EvictEvery {
		return nil
	}
	if err := os.WriteFile(stamp, nil, 0o600); err != nil {
		return err
	}
	_, err := c.Evict(DefaultLimits())
	return err
}

// sumPath is the path of the record of the SHA-256 of the binary of the
// entry rel.
func (c *Cache) sumPath(rel string) string {
	return filepath.Join(c.Root, sumsDir, strings.ReplaceAll(rel, "/", "-"))
}

// Record records sum as the SHA-256 of the binary of the entry rel.
func (c *Cache) Record(rel string, sum []byte) error {
	dir := filepath.Join(c.Root, sumsDir)
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

// Verify reports whether the binary of the entry rel is the one a build
// recorded: it exists and its SHA-256 is the recorded one. It returns an
// error, and the binary must not run, when the binary, the entry or a
// directory above it in the cache is not private to this user (see
// checkPrivate), or the binary is not a regular file.
func (c *Cache) Verify(rel string) (bool, error) {
	dir := filepath.Join(c.Root, filepath.FromSlash(rel))
	bin := filepath.Join(dir, BinName)
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
	top := filepath.Dir(c.Root)
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
	if err := checkPrivate(filepath.Join(c.Root, sumsDir), false); err != nil {
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
