//go:build !gocloud

package cluster

import (
	"context"
	"net/url"
)

// addGocloud adds nothing: the default build has file://, mem:// and its
// own s3:// client, and links no cloud SDK (see gocloud.go).
func addGocloud(map[string]func(ctx context.Context, u *url.URL) (Bucket, error)) {}
