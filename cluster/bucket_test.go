package cluster

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestBucketContract runs every backend through what the store relies on:
// Create once (the second Create of a key fails with ErrExist and keeps the
// first bytes, also when many race), Read and ErrNotExist, Exists, List by
// prefix in order, Delete, and a URL's prefix.
func TestBucketContract(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	realKey, realSecret := os.Getenv("AWS_ACCESS_KEY_ID"), os.Getenv("AWS_SECRET_ACCESS_KEY") // before s3Server's
	urls := map[string]string{
		"mem":         "mem://",
		"file":        "file://" + filepath.ToSlash(dir) + "/plain?create_dir=1",
		"file-prefix": "file://" + filepath.ToSlash(dir) + "/pre?create_dir=1&metadata=skip&prefix=run1/",
		"s3":          s3Server(t) + "contract/",
	}
	// WRAPCHECK_S3_URL: an s3:// URL (ending in prefix=P/) of a real
	// server, with its keys in the environment, to run the contract there.
	if u := os.Getenv("WRAPCHECK_S3_URL"); u != "" {
		urls["s3-real"] = u + fmt.Sprintf("contract-%d/", time.Now().UnixNano())
	}
	for name, u := range urls {
		t.Run(name, func(t *testing.T) {
			if name == "s3-real" {
				t.Setenv("AWS_ACCESS_KEY_ID", realKey)
				t.Setenv("AWS_SECRET_ACCESS_KEY", realSecret)
			}
			b, err := OpenBucket(ctx, u)
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			if err := b.Create(ctx, "a/x", []byte("first")); err != nil {
				t.Fatal(err)
			}
			if err := b.Create(ctx, "a/x", []byte("second")); !errors.Is(err, ErrExist) {
				t.Errorf("second Create = %v, want ErrExist", err)
			}
			if d, err := ReadAll(ctx, b, "a/x", 1<<20); err != nil || string(d) != "first" {
				t.Errorf("Read = %q, %v; want the first bytes", d, err)
			}
			// The caller may reuse what it created once Create returns
			// (a worker writes each level's frame in the same buffer).
			buf := []byte("reused buffer")
			if err := b.Create(ctx, "a/reuse", buf); err != nil {
				t.Fatal(err)
			}
			copy(buf, "XXXXXXXXXXXXX")
			if d, err := ReadAll(ctx, b, "a/reuse", 1<<20); err != nil || string(d) != "reused buffer" {
				t.Errorf("Read after the buffer's reuse = %q, %v; want the bytes as created", d, err)
			}
			if err := b.Delete(ctx, "a/reuse"); err != nil {
				t.Fatal(err)
			}
			if _, err := ReadAll(ctx, b, "a/none", 1<<20); !errors.Is(err, ErrNotExist) {
				t.Errorf("Read of a missing key = %v, want ErrNotExist", err)
			}
			if ok, err := b.Exists(ctx, "a/x"); !ok || err != nil {
				t.Errorf("Exists(a/x) = %t, %v", ok, err)
			}
			if ok, err := b.Exists(ctx, "a/none"); ok || err != nil {
				t.Errorf("Exists(a/none) = %t, %v", ok, err)
			}
			// Many writers race for one key: one wins, the others see
			// ErrExist, and the object is the winner's.
			const racers = 8
			errs := make([]error, racers)
			var wg sync.WaitGroup
			for i := range racers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					errs[i] = b.Create(ctx, "race", []byte(fmt.Sprint("writer ", i)))
				}()
			}
			wg.Wait()
			winner := -1
			for i, err := range errs {
				switch {
				case err == nil && winner < 0:
					winner = i
				case err == nil:
					t.Errorf("writers %d and %d both created the key", winner, i)
				case !errors.Is(err, ErrExist):
					t.Errorf("writer %d: %v", i, err)
				}
			}
			if d, err := ReadAll(ctx, b, "race", 1<<20); err != nil || string(d) != fmt.Sprint("writer ", winner) {
				t.Errorf("Read(race) = %q, %v; want writer %d's bytes", d, err, winner)
			}
			for _, k := range []string{"a/y", "a/b/z", "ab", "lease/0/00000002", "lease/0/00000001", "lease/10/00000001"} {
				if err := b.Create(ctx, k, nil); err != nil {
					t.Fatal(err)
				}
			}
			for prefix, want := range map[string][]string{
				"a/":       {"a/b/z", "a/x", "a/y"},
				"a":        {"a/b/z", "a/x", "a/y", "ab"},
				"lease/0/": {"lease/0/00000001", "lease/0/00000002"},
				"none/":    nil,
			} {
				got, err := b.List(ctx, prefix)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("List(%q) (-want +got):\n%s", prefix, diff)
				}
			}
			if err := b.Delete(ctx, "a/x"); err != nil {
				t.Fatal(err)
			}
			if err := b.Delete(ctx, "a/x"); err != nil {
				t.Errorf("Delete of a missing key: %v", err)
			}
			if _, err := ReadAll(ctx, b, "a/x", 1<<20); !errors.Is(err, ErrNotExist) {
				t.Errorf("Read after Delete = %v, want ErrNotExist", err)
			}
			if err := b.Create(ctx, "a/x", []byte("again")); err != nil {
				t.Errorf("Create after Delete: %v", err)
			}
		})
	}
	// The prefix is a folder of the directory; no temporary file is left.
	var files []string
	filepath.WalkDir(filepath.Join(dir, "pre"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	want := []string{"pre/run1/a/b/z", "pre/run1/a/x", "pre/run1/a/y", "pre/run1/ab",
		"pre/run1/lease/0/00000001", "pre/run1/lease/0/00000002", "pre/run1/lease/10/00000001", "pre/run1/race"}
	if diff := cmp.Diff(want, files); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
}

// TestFileBucketEarlierStores: a directory written by earlier versions
// (gocloud.dev's fileblob, with its .attrs metadata files) lists as its
// objects alone, and keys cannot leave the directory.
func TestFileBucketEarlierStores(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	for _, f := range []string{"lease/0/00000001", "lease/0/00000001.attrs", "run.json", "run.json.attrs", "lease/0/" + tmpPrefix + "123"} {
		os.MkdirAll(filepath.Join(dir, filepath.Dir(f)), 0o777)
		os.WriteFile(filepath.Join(dir, f), []byte("x"), 0o666)
	}
	b, err := OpenBucket(ctx, "file://"+filepath.ToSlash(dir))
	if err != nil {
		t.Fatal(err)
	}
	got, err := b.List(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"lease/0/00000001", "run.json"}, got); diff != "" {
		t.Errorf("List (-want +got):\n%s", diff)
	}
	for _, k := range []string{"../x", "a/../../x", "/abs", "a//b", ""} {
		if err := b.Create(ctx, k, nil); err == nil {
			t.Errorf("Create(%q) succeeded", k)
		}
	}
}
