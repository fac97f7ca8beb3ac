package dist

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/wrapcheck/wrapcheck/checker"
	"github.com/wrapcheck/wrapcheck/machine"
)

// s3Server starts an S3 protocol server (gofakes3, in memory) on
// 127.0.0.1 with one bucket, and returns the s3:// URL of a prefix in it
// as the s3blob driver opens it: path-style requests to the endpoint,
// static test credentials.
func s3Server(t *testing.T) string {
	t.Helper()
	be := s3mem.New()
	if err := be.CreateBucket("runs"); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(gofakes3.New(be).Server())
	t.Cleanup(srv.Close)
	t.Setenv("AWS_ACCESS_KEY_ID", "test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "test")
	t.Setenv("AWS_REGION", "us-east-1")
	return "s3://runs?endpoint=" + srv.URL + "&use_path_style=true&disable_https=true&region=us-east-1&prefix=run1/"
}

// TestS3 runs the search with 1 and 3 workers on an S3 server through the
// s3blob driver (each worker with its own client), and checks the
// conditional create and the leases on it.
func TestS3(t *testing.T) {
	ctx := context.Background()
	base := s3Server(t)
	m := load(t, "../examples/approval/toctou.wrap", nil)
	prog, err := machine.Compile(m)
	if err != nil {
		t.Fatal(err)
	}
	opts := searchOptions(t, m, true, true)
	opts.Workers = 1
	want, err := checker.RunProgram(ctx, prog, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{1, 3} {
		t.Run(fmt.Sprintf("N%d", n), func(t *testing.T) {
			url := base + fmt.Sprintf("n%d/", n)
			res := make([]*checker.Result, n)
			errs := make([]error, n)
			var wg sync.WaitGroup
			for i := range n {
				wg.Add(1)
				go func() {
					defer wg.Done()
					st, err := Open(ctx, url, Manifest{Spec: "toctou", Workers: n})
					if err != nil {
						errs[i] = err
						return
					}
					defer st.Close()
					if errs[i] = st.Acquire(ctx, i); errs[i] != nil {
						return
					}
					res[i], errs[i] = checker.Shortest(ctx, Runner(st, i, n), prog, opts)
				}()
			}
			wg.Wait()
			for i, err := range errs {
				if err != nil {
					t.Fatalf("worker %d: %v", i, err)
				}
				if diff := cmp.Diff(comparable(want), comparable(res[i])); diff != "" {
					t.Errorf("worker %d on S3 vs single-process (-want +got):\n%s", i, diff)
				}
			}
		})
	}
	t.Run("conditional-create", func(t *testing.T) {
		url := base + "cc/"
		st, err := Open(ctx, url, Manifest{Spec: "x", Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		st.LeaseEvery = 0
		if _, err := Open(ctx, url, Manifest{Spec: "y", Workers: 1}); !errors.As(err, new(*ForeignRunError)) {
			t.Errorf("a second run in the prefix: %v, want a ForeignRunError", err)
		}
		if err := st.Acquire(ctx, 0); err != nil {
			t.Fatal(err)
		}
		n := Name{Kind: KindSummary, Level: 1}
		if _, err := st.Put(ctx, n, 1, []byte("first")); err != nil {
			t.Fatal(err)
		}
		if _, err := st.Put(ctx, n, 2, []byte("second")); err != nil {
			t.Fatal(err)
		}
		if c, p, err := st.Get(ctx, n); err != nil || c != 1 || string(p) != "first" {
			t.Errorf("Get = %d, %q, %v; want the first write", c, p, err)
		}
		st2, err := Open(ctx, url, Manifest{Spec: "x", Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		defer st2.Close()
		if err := st2.Acquire(ctx, 0); err != nil {
			t.Fatal(err)
		}
		if _, err := st.Put(ctx, Name{Kind: KindSummary, Level: 2}, 1, nil); !errors.Is(err, ErrStale) {
			t.Errorf("stale worker's Put = %v, want ErrStale", err)
		}
	})
}
