package dist

import (
	"context"
	"errors"
	"fmt"
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
type fileBucket struct {
	dir  string
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
	return &fileBucket{dir: dir, mode: mode}, nil
}

// path returns the file of key, refusing keys that would leave the
// directory.
func (b *fileBucket) path(key string) (string, error) {
	for _, seg := range strings.Split(key, "/") {
		if seg == "" || seg == "." || seg == ".." || strings.HasPrefix(seg, tmpPrefix) || strings.ContainsAny(seg, "\\\x00") {
			return "", fmt.Errorf("key %q is not a relative path of the bucket", key)
		}
	}
	return filepath.Join(b.dir, filepath.FromSlash(key)), nil
}

func (b *fileBucket) Create(_ context.Context, key string, data []byte) error {
	p, err := b.path(key)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(p), b.mode); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(p), tmpPrefix+"*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	err = os.Link(tmp, p)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("%s: %w", key, ErrExist)
	}
	if err == nil {
		return nil
	}
	// A file system without hard links: the check and the rename are not
	// one step, which is enough within one process (every file but
	// run.json has one writer, and Attach compares run.json after).
	if _, serr := os.Lstat(p); serr == nil {
		return fmt.Errorf("%s: %w", key, ErrExist)
	}
	return os.Rename(tmp, p)
}

func (b *fileBucket) Read(_ context.Context, key string) ([]byte, error) {
	p, err := b.path(key)
	if err != nil {
		return nil, err
	}
	d, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w", key, ErrNotExist)
	}
	return d, err
}

func (b *fileBucket) Exists(_ context.Context, key string) (bool, error) {
	p, err := b.path(key)
	if err != nil {
		return false, err
	}
	_, err = os.Stat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}

func (b *fileBucket) List(_ context.Context, prefix string) ([]string, error) {
	// Walk the deepest directory the prefix names, not the whole bucket.
	start := ""
	if i := strings.LastIndexByte(prefix, '/'); i >= 0 {
		start = prefix[:i]
	}
	root := filepath.Join(b.dir, filepath.FromSlash(start))
	var keys []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		name := d.Name()
		if d.IsDir() || strings.HasPrefix(name, tmpPrefix) || strings.HasSuffix(name, attrsSuffix) {
			return nil
		}
		rel, err := filepath.Rel(b.dir, p)
		if err != nil {
			return err
		}
		if k := filepath.ToSlash(rel); strings.HasPrefix(k, prefix) {
			keys = append(keys, k)
		}
		return nil
	})
	sort.Strings(keys)
	return keys, err
}

func (b *fileBucket) Delete(_ context.Context, key string) error {
	p, err := b.path(key)
	if err != nil {
		return err
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	os.Remove(p + attrsSuffix)
	return nil
}

func (b *fileBucket) Close() error { return nil }
