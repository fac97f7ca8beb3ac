//go:build gocloud

package cluster

import (
	"context"
	"fmt"
	"io"
	"net/url"

	"gocloud.dev/blob"
	"gocloud.dev/gcerrors"

	// s3:// through the AWS SDK, with its whole credential chain
	// (instance, pod and SSO roles, assumed roles).
	_ "gocloud.dev/blob/s3blob"
)

// addGocloud routes s3:// URLs to gocloud.dev/blob's s3blob driver. It
// is the build with -tags gocloud: the driver links the AWS SDK, gRPC and
// OpenTelemetry, whose package initialisers cost every process of the
// default build more than a millisecond (docs/performance.md, "Start-up").
// gs:// and azblob:// are not added: their SDKs are dozens of modules more
// (GCS is reachable as s3:// through its XML API).
func addGocloud(m map[string]func(ctx context.Context, u *url.URL) (Bucket, error)) {
	m["s3"] = openGocloud
}

func openGocloud(ctx context.Context, u *url.URL) (Bucket, error) {
	b, err := blob.OpenBucket(ctx, u.String())
	if err != nil {
		return nil, err
	}
	return &gocloudBucket{b: b}, nil
}

// gocloudBucket is a gocloud.dev/blob bucket as a [Bucket].
type gocloudBucket struct{ b *blob.Bucket }

func (g *gocloudBucket) Create(ctx context.Context, key string, data []byte) error {
	err := g.b.WriteAll(ctx, key, data, &blob.WriterOptions{IfNotExist: true, ContentType: "application/octet-stream"})
	if gcerrors.Code(err) == gcerrors.FailedPrecondition {
		return fmt.Errorf("%s: %w", key, ErrExist)
	}
	return err
}

func (g *gocloudBucket) NewReader(ctx context.Context, key string) (io.ReadCloser, error) {
	r, err := g.b.NewReader(ctx, key, nil)
	if gcerrors.Code(err) == gcerrors.NotFound {
		return nil, fmt.Errorf("%s: %w", key, ErrNotExist)
	}
	if err != nil {
		return nil, err
	}
	return r, nil
}

func (g *gocloudBucket) Exists(ctx context.Context, key string) (bool, error) {
	return g.b.Exists(ctx, key)
}

func (g *gocloudBucket) List(ctx context.Context, prefix string) ([]string, error) {
	var keys []string
	it := g.b.List(&blob.ListOptions{Prefix: prefix})
	for {
		obj, err := it.Next(ctx)
		if err == io.EOF {
			return keys, nil
		}
		if err != nil {
			return nil, err
		}
		if len(keys) == maxListKeys {
			return nil, fmt.Errorf("list %s: more than %d keys", prefix, maxListKeys)
		}
		keys = append(keys, obj.Key)
	}
}

func (g *gocloudBucket) Delete(ctx context.Context, key string) error {
	err := g.b.Delete(ctx, key)
	if gcerrors.Code(err) == gcerrors.NotFound {
		return nil
	}
	return err
}

func (g *gocloudBucket) Close() error { return g.b.Close() }
