package cluster

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/wrapcheck/wrapcheck/checker"
	"github.com/wrapcheck/wrapcheck/machine"
	"github.com/wrapcheck/wrapcheck/verdict"
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
			res := make([]*verdict.Result, n)
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
					res[i], errs[i] = checker.Shortest(ctx, Runner(st, i, n, nil), prog, opts)
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
		if c, p, err := st.Get(ctx, n, testBound); err != nil || c != 1 || string(p) != "first" {
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

// hostileS3 starts an S3 endpoint that answers every request with h,
// and returns the bucket of an s3:// URL on it.
func hostileS3(t *testing.T, h http.HandlerFunc) Bucket {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	t.Setenv("AWS_ACCESS_KEY_ID", "test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "test")
	b, err := OpenBucket(context.Background(), "s3://b?endpoint="+srv.URL+"&use_path_style=true&region=us-east-1")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

// endless writes an endless body of A's until the client goes.
func endless(w http.ResponseWriter, status int) {
	w.WriteHeader(status)
	chunk := bytes.Repeat([]byte("A"), 1<<20)
	for {
		if _, err := w.Write(chunk); err != nil {
			return
		}
	}
}

// TestS3Hostile: every read from an S3 endpoint is bounded, and every
// request ends with its context. An endless object body is read no
// further than its reader needs (ReadAll's limit; a frame's header); an
// endless error body or listing page is cut at its bound; a listing that
// stays truncated at one marker is an error, not a loop; a server that
// never answers is left at the context's deadline; a body cut short is
// read on with a range request; an error message with
// a newline, a workflow command and an escape sequence comes out quoted.
func TestS3Hostile(t *testing.T) {
	ctx := context.Background()
	// measure runs f and checks that it ends within 5 s, allocating no
	// more than limit bytes in all.
	measure := func(t *testing.T, limit uint64, f func()) {
		t.Helper()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		start := time.Now()
		f()
		runtime.ReadMemStats(&after)
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > limit {
			t.Errorf("allocated %d MiB", alloc>>20)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("took %v", d)
		}
	}
	t.Run("endless-object", func(t *testing.T) {
		b := hostileS3(t, func(w http.ResponseWriter, r *http.Request) { endless(w, http.StatusOK) })
		measure(t, 64<<20, func() {
			if _, err := ReadAll(ctx, b, "run.json", 1<<10); !errors.Is(err, ErrTooLarge) {
				t.Errorf("ReadAll = %v, want ErrTooLarge", err)
			}
			st := &Store{url: "s3://b", bucket: b}
			if _, _, err := st.Get(ctx, Name{Kind: KindStates, Level: 1}, testBound); !errors.As(err, new(*CorruptError)) {
				t.Errorf("Get = %v, want a CorruptError", err)
			}
		})
	})
	t.Run("endless-error", func(t *testing.T) {
		b := hostileS3(t, func(w http.ResponseWriter, r *http.Request) { endless(w, http.StatusForbidden) })
		measure(t, 64<<20, func() {
			if err := b.Create(ctx, "k", []byte("x")); !errors.Is(err, ErrTooLarge) {
				t.Errorf("Create = %v, want ErrTooLarge", err)
			}
			if _, err := b.List(ctx, "lease/0/"); !errors.Is(err, ErrTooLarge) {
				t.Errorf("List = %v, want ErrTooLarge", err)
			}
		})
	})
	t.Run("truncated-listing", func(t *testing.T) {
		b := hostileS3(t, func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, "<ListBucketResult><IsTruncated>true</IsTruncated><NextMarker>a</NextMarker><Contents><Key>lease/0/00000001</Key></Contents></ListBucketResult>")
		})
		measure(t, 64<<20, func() {
			if _, err := b.List(ctx, "lease/0/"); err == nil || !strings.Contains(err.Error(), "does not advance") {
				t.Errorf("List = %v, want an error", err)
			}
		})
	})
	t.Run("endless-listing", func(t *testing.T) {
		b := hostileS3(t, func(w http.ResponseWriter, r *http.Request) {
			m := r.URL.Query().Get("marker")
			fmt.Fprintf(w, "<ListBucketResult><IsTruncated>true</IsTruncated><NextMarker>%sa</NextMarker>", m)
			for i := range 1000 {
				fmt.Fprintf(w, "<Contents><Key>lease/0/%s%08d</Key></Contents>", m, i)
			}
			io.WriteString(w, "</ListBucketResult>")
		})
		measure(t, 512<<20, func() { // 66 pages of 1000 keys
			if _, err := b.List(ctx, "lease/0/"); err == nil || !strings.Contains(err.Error(), "more than") {
				t.Errorf("List = %v, want an error", err)
			}
		})
	})
	t.Run("silent", func(t *testing.T) {
		hang := make(chan struct{})
		b := hostileS3(t, func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-hang:
			case <-r.Context().Done():
			}
		})
		t.Cleanup(func() { close(hang) }) // before the server's Close

		for name, f := range map[string]func(ctx context.Context) error{
			"read":   func(ctx context.Context) error { _, err := ReadAll(ctx, b, "k", 1<<10); return err },
			"create": func(ctx context.Context) error { return b.Create(ctx, "k", []byte("x")) },
			"exists": func(ctx context.Context) error { _, err := b.Exists(ctx, "k"); return err },
			"list":   func(ctx context.Context) error { _, err := b.List(ctx, "k"); return err },
		} {
			ctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
			start := time.Now()
			err := f(ctx)
			cancel()
			if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 1200*time.Millisecond {
				t.Errorf("%s: %v after %v, want the deadline's error within a second of it", name, err, time.Since(start))
			}
		}
	})
	t.Run("cut-body", func(t *testing.T) {
		// The first GET's connection is cut after 400 of 1000 bytes; a
		// range request gets the rest.
		want := bytes.Repeat([]byte("0123456789"), 100)
		var ranges []string
		var mu sync.Mutex
		b := hostileS3(t, func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			ranges = append(ranges, r.Header.Get("Range"))
			first := len(ranges) == 1
			mu.Unlock()
			if first {
				conn, buf, err := w.(http.Hijacker).Hijack()
				if err != nil {
					t.Error(err)
					return
				}
				fmt.Fprintf(buf, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s", len(want), want[:400])
				buf.Flush()
				conn.Close()
				return
			}
			var from int
			fmt.Sscanf(r.Header.Get("Range"), "bytes=%d-", &from)
			w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", from, len(want)-1, len(want)))
			w.WriteHeader(http.StatusPartialContent)
			w.Write(want[from:])
		})
		got, err := ReadAll(ctx, b, "k", 1<<20)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("ReadAll = %d bytes, %v; want the object's 1000", len(got), err)
		}
		if diff := cmp.Diff([]string{"", "bytes=400-"}, ranges); diff != "" {
			t.Errorf("the requests' ranges (-want +got):\n%s", diff)
		}
	})
	t.Run("injected-error", func(t *testing.T) {
		b := hostileS3(t, func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusForbidden)
			io.WriteString(w, "<Error><Code>AccessDenied</Code><Message>denied\n::error file=x.wrap,line=1::PWNED\t]8;;http://evil</Message></Error>")
		})
		err := b.Create(ctx, "k", []byte("x"))
		if err == nil || strings.ContainsAny(err.Error(), "\n\t") || !strings.Contains(err.Error(), `\n::error file=x.wrap,line=1::PWNED\t`) {
			t.Errorf("Create = %q, want the server's message quoted", err)
		}
	})
}
