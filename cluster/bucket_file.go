package cluster

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// fileBucket is a directory (file://): a key is a path under it. Create
// writes a temporary file next to the object and links it to the
// object's name: the link fails when the name exists, which makes the
// conditional create atomic between processes on one file system, and a
// reader sees the whole object or none.
//
// Every access goes through an [os.Root] of the directory, and refuses a
// symbolic link at any place of a key's path and an object that is not a
// regular file: a store whose files another process can write cannot
// make a worker read a device or a FIFO, or write outside the directory.
type fileBucket struct {
	dir  string
	root *os.Root
	mode os.FileMode // of the directories Create makes
}

// tmpPrefix begins the names of Create's temporary files, which List
// skips; attrsSuffix ends the metadata files that gocloud.dev's fileblob
// wrote next to each object (stores of earlier versions).
const (
	tmpPrefix   = ".wctmp-"
	attrsSuffix = ".attrs"
)

func openFileBucket(_ context.Context, u *url.URL) (Bucket, error) {
	q := u.Query()
	if err := knownParams(q, "create_dir", "dir_file_mode", "metadata", "no_tmp_dir"); err != nil {
		return nil, err
	}
	if m := q.Get("metadata"); m != "" && m != "skip" {
		return nil, fmt.Errorf("metadata=%s: the only value is skip (no metadata is written)", m)
	}
	mode := os.FileMode(0o777)
	if s := q.Get("dir_file_mode"); s != "" {
		m, err := strconv.ParseUint(s, 0, 32)
		if err != nil {
			return nil, fmt.Errorf("dir_file_mode=%s: %v", s, err)
		}
		mode = os.FileMode(m)
	}
	p := u.Path
	if u.Host == "." || os.PathSeparator != '/' {
		p = strings.TrimPrefix(p, "/") // file://./rel, file:///c:/dir
	} else if u.Host != "" && u.Host != "localhost" {
		return nil, fmt.Errorf("file URL with host %q: want file:///dir or file://./dir", u.Host)
	}
	dir := filepath.FromSlash(p)
	if dir == "" {
		return nil, errors.New("file URL without a directory")
	}
	if q.Get("create_dir") != "" {
		if err := os.MkdirAll(dir, mode); err != nil {
			return nil, err
		}
	}
	info, err := os.Stat(dir)
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("%s is not a directory", dir)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	return &fileBucket{dir: dir, root: root, mode: mode}, nil
}

// path returns the file of key relative to the directory, refusing keys
// that would leave it.
func (b *fileBucket) path(key string) (string, error) {
	for _, seg := range strings.Split(key, "/") {
		if seg == "" || seg == "." || seg == ".." || strings.HasPrefix(seg, tmpPrefix) || strings.ContainsAny(seg, "\\\x00") {
			return "", fmt.Errorf("key %q is not a relative path of the bucket", key)
		}
	}
	return filepath.FromSlash(key), nil
}

// errLink is the error of a symbolic link or another non-regular file
// where the store keeps its files.
var errLink = errors.New("not a regular file or directory of the store (symbolic links, devices and FIFOs are refused)")

// dirs checks the directories of rel, the path of a file: each that
// exists must be a directory, not a link. With make, it creates those
// missing.
func (b *fileBucket) dirs(rel string, make bool) error {
	segs := strings.Split(filepath.ToSlash(rel), "/")
	p := ""
	for _, seg := range segs[:len(segs)-1] {
		p = filepath.Join(p, seg)
		fi, err := b.root.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) && make {
			if err = b.root.Mkdir(p, b.mode); errors.Is(err, fs.ErrExist) {
				err = nil // another worker made it: look again
			}
			if err == nil {
				fi, err = b.root.Lstat(p)
			}
		}
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		if !fi.IsDir() {
			return fmt.Errorf("%s: %w", filepath.Join(b.dir, p), errLink)
		}
	}
	return nil
}

// file checks the object rel: a missing one is ErrNotExist, one that is
// not a regular file errLink.
func (b *fileBucket) file(key, rel string) error {
	if err := b.dirs(rel, false); err != nil {
		return err
	}
	fi, err := b.root.Lstat(rel)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s: %w", key, ErrNotExist)
	}
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s: %w", filepath.Join(b.dir, rel), errLink)
	}
	return nil
}

func (b *fileBucket) Create(ctx context.Context, key string, data []byte) error {
	rel, err := b.path(key)
	if err != nil {
		return err
	}
	if err := b.dirs(rel, true); err != nil {
		return err
	}
	var rnd [8]byte
	rand.Read(rnd[:])
	tmp := filepath.Join(filepath.Dir(rel), tmpPrefix+hex.EncodeToString(rnd[:]))
	f, err := b.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
	if err != nil {
		return err
	}
	defer b.root.Remove(tmp)
	err = ctx.Err()
	for rest := data; err == nil && len(rest) > 0; {
		// Writes of a regular file end; ctx is looked at between them.
		n := min(len(rest), 1<<22)
		_, err = f.Write(rest[:n])
		rest = rest[n:]
		if err == nil {
			err = ctx.Err()
		}
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	err = b.root.Link(tmp, rel)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("%s: %w", key, ErrExist)
	}
	if err == nil {
		return nil
	}
	// A file system without hard links: the check and the rename are not
	// one step, which is enough within one process (every file but
	// run.json has one writer, and Attach compares run.json after).
	if _, serr := b.root.Lstat(rel); serr == nil {
		return fmt.Errorf("%s: %w", key, ErrExist)
	}
	return b.root.Rename(tmp, rel)
}

func (b *fileBucket) NewReader(ctx context.Context, key string) (io.ReadCloser, error) {
	rel, err := b.path(key)
	if err != nil {
		return nil, err
	}
	if err := b.file(key, rel); err != nil {
		return nil, err
	}
	// Checked again on the open file: a file replaced since by a link or
	// a FIFO is refused too (openNoBlock: the open of a FIFO does not
	// wait for a writer).
	f, err := b.root.OpenFile(rel, os.O_RDONLY|openNoBlock, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w", key, ErrNotExist)
	}
	if err != nil {
		return nil, err
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s: %w", filepath.Join(b.dir, rel), errLink)
	}
	return &ctxReader{ctx: ctx, r: f}, nil
}

func (b *fileBucket) Exists(_ context.Context, key string) (bool, error) {
	rel, err := b.path(key)
	if err != nil {
		return false, err
	}
	err = b.file(key, rel)
	if errors.Is(err, ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}

func (b *fileBucket) List(_ context.Context, prefix string) ([]string, error) {
	// Walk the deepest directory the prefix names, not the whole bucket.
	start := "."
	if i := strings.LastIndexByte(prefix, '/'); i >= 0 {
		start = prefix[:i]
		if _, err := b.path(start); err != nil {
			return nil, err
		}
		// The directories of start/x: start's own, start included.
		if err := b.dirs(filepath.Join(filepath.FromSlash(start), "x"), false); err != nil {
			return nil, err
		}
	}
	var keys []string
	// WalkDir does not follow links; a link or another non-regular file
	// is not an object, and a read of its key is refused.
	err := fs.WalkDir(b.root.FS(), start, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		name := d.Name()
		if d.IsDir() || !d.Type().IsRegular() || strings.HasPrefix(name, tmpPrefix) || strings.HasSuffix(name, attrsSuffix) {
			return nil
		}
		if strings.HasPrefix(p, prefix) {
			keys = append(keys, p)
		}
		return nil
	})
	sort.Strings(keys)
	return keys, err
}

func (b *fileBucket) Delete(_ context.Context, key string) error {
	rel, err := b.path(key)
	if err != nil {
		return err
	}
	if err := b.dirs(rel, false); err != nil {
		return err
	}
	if err := b.root.Remove(rel); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	b.root.Remove(rel + attrsSuffix)
	return nil
}

func (b *fileBucket) Close() error { return b.root.Close() }
