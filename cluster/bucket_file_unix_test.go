//go:build unix

package cluster

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestFileBucketLinks: a file:// store refuses a symbolic link anywhere
// on a key's path and an object that is not a regular file, at once: an
// object linked to /dev/zero or to a file outside, a FIFO (whose open
// would wait for a writer), a link to another object, and a level
// directory linked outside the store, through which nothing is written.
func TestFileBucketLinks(t *testing.T) {
	ctx := context.Background()
	dir, outside := t.TempDir(), t.TempDir()
	secret := filepath.Join(outside, "secret")
	if err := os.WriteFile(secret, []byte("outside"), 0o666); err != nil {
		t.Fatal(err)
	}
	b, err := OpenBucket(ctx, "file://"+filepath.ToSlash(dir))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if err := b.Create(ctx, "a/x", []byte("x")); err != nil {
		t.Fatal(err)
	}
	links := map[string]string{"zero": "/dev/zero", "abs": secret, "alias": "a/x", "rel": "../" + filepath.Base(outside) + "/secret"}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(outside, filepath.Join(dir, "level")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o666); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"zero", "abs", "alias", "rel", "fifo", "level/secret"} {
		done := make(chan error, 1)
		go func() {
			_, err := ReadAll(ctx, b, key, 1<<20)
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil || errors.Is(err, ErrNotExist) {
				t.Errorf("read of %s: %v, want a refusal", key, err)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("read of %s does not end", key)
		}
		if ok, err := b.Exists(ctx, key); ok || err == nil {
			t.Errorf("Exists(%s) = %t, %v; want a refusal", key, ok, err)
		}
	}
	if err := b.Create(ctx, "level/states-0.wc", []byte("x")); err == nil {
		t.Error("Create through a linked directory succeeded")
	}
	if _, err := b.List(ctx, "level/"); err == nil {
		t.Error("List through a linked directory succeeded")
	}
	entries, _ := os.ReadDir(outside)
	if len(entries) != 1 {
		t.Errorf("the directory outside holds %d files, want only its own", len(entries))
	}
	keys, err := b.List(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"a/x"}, keys); diff != "" {
		t.Errorf("List lists links or FIFOs (-want +got):\n%s", diff)
	}
}
