package cluster

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"sort"
	"strings"
	"sync"
)

// Bucket is the object storage a [Store] keeps its files in: a flat
// namespace of keys with whole-object reads and writes. The search needs
// no more than this; in particular Create's conditional create (the object
// is written only if none has its key) is the only synchronisation between
// workers. Implementations are safe for concurrent use.
type Bucket interface {
	// Create writes data under key unless an object has that key: then
	// it returns an error for which errors.Is(err, ErrExist) holds and
	// leaves the object as it is. Readers never see a partial object.
	// The caller may reuse data once Create returns: an object is never
	// created from bytes read after that.
	Create(ctx context.Context, key string, data []byte) error
	// NewReader returns a reader of the object's bytes, which the caller
	// closes; a missing object is an error for which errors.Is(err,
	// ErrNotExist) holds. The reader's reads fail once ctx is done, and
	// never block past it. The caller reads no more than it expects (an
	// object may be endless: a device, a hostile server's body).
	NewReader(ctx context.Context, key string) (io.ReadCloser, error)
	// Exists reports whether an object has the key.
	Exists(ctx context.Context, key string) (bool, error)
	// List returns the keys that begin with prefix, in increasing order.
	List(ctx context.Context, prefix string) ([]string, error)
	// Delete removes the object; a missing object is not an error.
	Delete(ctx context.Context, key string) error
	// Close releases the bucket's resources.
	Close() error
}

// ErrExist is the error of a Create whose key is taken; ErrNotExist that
// of a read of a missing object; ErrTooLarge that of an object longer
// than its reader can need.
var (
	ErrExist    = errors.New("object exists")
	ErrNotExist = errors.New("object does not exist")
	ErrTooLarge = errors.New("object too large")
)

// ReadAll reads the object of key, which must not be longer than limit
// bytes: a longer one is an error for which errors.Is(err, ErrTooLarge)
// holds, read no further than limit+1 bytes.
func ReadAll(ctx context.Context, b Bucket, key string, limit int64) ([]byte, error) {
	r, err := b.NewReader(ctx, key)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	d, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(d)) > limit {
		return nil, fmt.Errorf("%s: %w: more than %d bytes", key, ErrTooLarge, limit)
	}
	return d, nil
}

// ctxReader is a reader whose reads fail once ctx is done: a file's
// reads each end soon, but a long read of many ends no sooner than ctx.
type ctxReader struct {
	ctx context.Context
	r   io.ReadCloser
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

func (c *ctxReader) Close() error { return c.r.Close() }

// openers maps a URL scheme to the function that opens its buckets; a
// build with the gocloud tag adds gocloud.dev's schemes (gocloud.go).
func openers() map[string]func(ctx context.Context, u *url.URL) (Bucket, error) {
	m := map[string]func(ctx context.Context, u *url.URL) (Bucket, error){
		"file": openFileBucket,
		"mem":  openMemBucket,
		"s3":   openS3Bucket,
	}
	addGocloud(m)
	return m
}

// OpenBucket opens the bucket a URL names:
//
//	file:///dir?create_dir=1      a directory (create_dir: made if missing)
//	mem://                        a new, empty bucket in memory
//	s3://bucket?region=R&endpoint=URL&use_path_style=true
//	                              AWS S3 or any S3-compatible store
//
// Every scheme takes prefix=P/: the bucket's keys are then those under P
// (a run's files in one folder of a shared bucket); and latency=D (a Go
// duration, at most [MaxLatency]): every operation then takes D longer,
// a remote store simulated on a local one. The parameters are
// those of gocloud.dev/blob's URLs, which earlier versions used; an
// unknown parameter is an error.
func OpenBucket(ctx context.Context, rawURL string) (Bucket, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, err
	}
	q := u.Query()
	prefix := q.Get("prefix")
	q.Del("prefix")
	latency, err := parseLatency(q)
	if err != nil {
		return nil, err
	}
	u.RawQuery = q.Encode()
	open, ok := openers()[u.Scheme]
	if !ok {
		var schemes []string
		for s := range openers() {
			schemes = append(schemes, s+"://")
		}
		sort.Strings(schemes)
		return nil, fmt.Errorf("unknown scheme %q: want one of %s", u.Scheme, strings.Join(schemes, ", "))
	}
	b, err := open(ctx, u)
	if err != nil {
		return nil, err
	}
	if prefix != "" {
		b = &prefixed{b: b, prefix: prefix}
	}
	if latency > 0 {
		b = &delayed{b: b, half: latency / 2}
	}
	return b, nil
}

// knownParams checks that q has no parameter outside known.
func knownParams(q url.Values, known ...string) error {
	var bad []string
	for k := range q {
		found := false
		for _, kk := range known {
			found = found || k == kk
		}
		if !found {
			bad = append(bad, k)
		}
	}
	if len(bad) == 0 {
		return nil
	}
	sort.Strings(bad)
	return fmt.Errorf("unknown query parameter %q (known: %s)", bad[0], strings.Join(append([]string{"prefix", "latency"}, known...), ", "))
}

// prefixed is a bucket seen through a key prefix.
type prefixed struct {
	b      Bucket
	prefix string
}

func (p *prefixed) Create(ctx context.Context, key string, data []byte) error {
	return p.b.Create(ctx, p.prefix+key, data)
}

func (p *prefixed) NewReader(ctx context.Context, key string) (io.ReadCloser, error) {
	return p.b.NewReader(ctx, p.prefix+key)
}

func (p *prefixed) Exists(ctx context.Context, key string) (bool, error) {
	return p.b.Exists(ctx, p.prefix+key)
}

func (p *prefixed) List(ctx context.Context, prefix string) ([]string, error) {
	keys, err := p.b.List(ctx, p.prefix+prefix)
	for i, k := range keys {
		keys[i] = strings.TrimPrefix(k, p.prefix)
	}
	return keys, err
}

func (p *prefixed) Delete(ctx context.Context, key string) error {
	return p.b.Delete(ctx, p.prefix+key)
}

func (p *prefixed) Close() error { return p.b.Close() }

// MemBucket is a bucket in memory (mem://); tests share one between
// workers.
type MemBucket struct {
	mu      sync.Mutex
	objects map[string][]byte
}

// NewMemBucket returns an empty bucket in memory.
func NewMemBucket() *MemBucket { return &MemBucket{objects: map[string][]byte{}} }

func openMemBucket(_ context.Context, u *url.URL) (Bucket, error) {
	if err := knownParams(u.Query()); err != nil {
		return nil, err
	}
	return NewMemBucket(), nil
}

// Create implements [Bucket].
func (m *MemBucket) Create(_ context.Context, key string, data []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.objects[key]; ok {
		return fmt.Errorf("%s: %w", key, ErrExist)
	}
	m.objects[key] = append([]byte(nil), data...)
	return nil
}

// NewReader implements [Bucket].
func (m *MemBucket) NewReader(ctx context.Context, key string) (io.ReadCloser, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	d, ok := m.objects[key]
	if !ok {
		return nil, fmt.Errorf("%s: %w", key, ErrNotExist)
	}
	// Objects are never changed in place: the reader may share d.
	return &ctxReader{ctx: ctx, r: io.NopCloser(bytes.NewReader(d))}, nil
}

// Exists implements [Bucket].
func (m *MemBucket) Exists(_ context.Context, key string) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	_, ok := m.objects[key]
	return ok, nil
}

// List implements [Bucket].
func (m *MemBucket) List(_ context.Context, prefix string) ([]string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var keys []string
	for k := range m.objects {
		if strings.HasPrefix(k, prefix) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys, nil
}

// Delete implements [Bucket].
func (m *MemBucket) Delete(_ context.Context, key string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.objects, key)
	return nil
}

// Close implements [Bucket].
func (m *MemBucket) Close() error { return nil }
