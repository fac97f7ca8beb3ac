package cluster

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"time"
)

// MaxLatency bounds a URL's latency=D: a store that simulates a remote one
// waits no longer than this per operation.
const MaxLatency = 10 * time.Second

// parseLatency reads latency=D of a bucket URL's query (a Go duration,
// 0 to MaxLatency; absent: 0) and removes it from q.
func parseLatency(q url.Values) (time.Duration, error) {
	s := q.Get("latency")
	q.Del("latency")
	if s == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 || d > MaxLatency {
		return 0, fmt.Errorf("latency=%q: want a duration from 0 to %s, such as 20ms", s, MaxLatency)
	}
	return d, nil
}

// delayed is a bucket whose every operation takes d longer: half of it
// before the operation reaches the bucket, half after, as a request and
// its answer each cross a network (a Create is seen by others d/2 after
// it starts; its writer learns of it d/2 later). It simulates a remote
// store on a local one (latency=D of [OpenBucket]).
type delayed struct {
	b    Bucket
	half time.Duration
}

// wait sleeps half the latency, or until ctx is done.
func (d *delayed) wait(ctx context.Context) error {
	t := time.NewTimer(d.half)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// around runs op between the two halves of the latency.
func (d *delayed) around(ctx context.Context, op func() error) error {
	if err := d.wait(ctx); err != nil {
		return err
	}
	err := op()
	if werr := d.wait(ctx); err == nil {
		err = werr
	}
	return err
}

func (d *delayed) Create(ctx context.Context, key string, data []byte) error {
	return d.around(ctx, func() error { return d.b.Create(ctx, key, data) })
}

func (d *delayed) NewReader(ctx context.Context, key string) (io.ReadCloser, error) {
	var r io.ReadCloser
	err := d.around(ctx, func() error {
		var err error
		r, err = d.b.NewReader(ctx, key)
		return err
	})
	if err != nil && r != nil {
		r.Close()
		r = nil
	}
	return r, err
}

func (d *delayed) Exists(ctx context.Context, key string) (ok bool, err error) {
	err = d.around(ctx, func() error {
		ok, err = d.b.Exists(ctx, key)
		return err
	})
	return ok, err
}

func (d *delayed) List(ctx context.Context, prefix string) (keys []string, err error) {
	err = d.around(ctx, func() error {
		keys, err = d.b.List(ctx, prefix)
		return err
	})
	return keys, err
}

func (d *delayed) Delete(ctx context.Context, key string) error {
	return d.around(ctx, func() error { return d.b.Delete(ctx, key) })
}

func (d *delayed) Close() error { return d.b.Close() }
