package cluster

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestLatencyParam: latency=D takes a Go duration from 0 to MaxLatency
// on every scheme; anything else is an error that names the parameter.
func TestLatencyParam(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	tests := []struct {
		url     string
		delayed bool
		err     string
	}{
		{"mem://?latency=0", false, ""},
		{"mem://?latency=15ms", true, ""},
		{"mem://?latency=10s", true, ""},
		{"file://" + dir + "?create_dir=1&latency=1ms&prefix=p/", true, ""},
		{"mem://?latency=-1ms", false, `latency="-1ms": want a duration from 0 to 10s, such as 20ms`},
		{"mem://?latency=10.001s", false, `latency="10.001s": want a duration from 0 to 10s`},
		{"mem://?latency=1h", false, `latency="1h"`},
		{"mem://?latency=20", false, `latency="20"`},
		{"mem://?latency=9999999999999999999s", false, `latency="9999999999999999999s"`},
		{"mem://?latenc=20ms", false, `unknown query parameter "latenc" (known: prefix, latency)`},
	}
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			b, err := OpenBucket(ctx, tt.url)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want one containing %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			if _, ok := b.(*delayed); ok != tt.delayed {
				t.Errorf("delayed = %t, want %t", ok, tt.delayed)
			}
		})
	}
}

// TestLatencyDelays: every operation of a bucket with latency=D takes at
// least D, and a done context ends the wait at once.
func TestLatencyDelays(t *testing.T) {
	ctx := context.Background()
	const d = 20 * time.Millisecond
	b, err := OpenBucket(ctx, "mem://?latency=20ms")
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ops := []struct {
		name string
		op   func(context.Context) error
	}{
		{"create", func(ctx context.Context) error { return b.Create(ctx, "k", []byte("v")) }},
		{"read", func(ctx context.Context) error { _, err := ReadAll(ctx, b, "k", 10); return err }},
		{"read-missing", func(ctx context.Context) error {
			if _, err := ReadAll(ctx, b, "none", 10); !errors.Is(err, ErrNotExist) {
				return err
			}
			return nil
		}},
		{"exists", func(ctx context.Context) error { _, err := b.Exists(ctx, "k"); return err }},
		{"list", func(ctx context.Context) error { _, err := b.List(ctx, ""); return err }},
		{"delete", func(ctx context.Context) error { return b.Delete(ctx, "k") }},
	}
	for _, o := range ops {
		start := time.Now()
		if err := o.op(ctx); err != nil {
			t.Fatalf("%s: %v", o.name, err)
		}
		if took := time.Since(start); took < d {
			t.Errorf("%s took %v, want at least %v", o.name, took, d)
		}
	}
	slow, err := OpenBucket(ctx, "mem://?latency=10s")
	if err != nil {
		t.Fatal(err)
	}
	cctx, cancel := context.WithTimeout(ctx, 10*time.Millisecond)
	defer cancel()
	start := time.Now()
	if err := slow.Create(cctx, "k", nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Create with a done context = %v, want the deadline's error", err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("a done context ended the wait after %v", took)
	}
}

// TestRecorder: a Recorder logs each operation of a store with its
// result, its bytes and a frame's record count, and a search on a
// recorded bucket writes the frames the layout names.
func TestRecorder(t *testing.T) {
	ctx := context.Background()
	rec := Record(NewMemBucket())
	st := leased(t, rec, Manifest{Spec: "rec", Workers: 1})
	n := Name{Kind: KindStates, Level: 3}
	size, err := st.Put(ctx, n, 7, []byte("payload"))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := st.Get(ctx, n, Bound{Records: 7, Record: 1}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := st.Get(ctx, Name{Kind: KindSummary, Level: 3}, Bound{Records: NoBound, Record: 1}); !IsNotExist(err) {
		t.Fatalf("Get of a missing frame = %v", err)
	}
	type row struct {
		Kind, Key, Result string
		Bytes, Records    int64
	}
	var got []row
	for _, o := range rec.Ops() {
		if o.End < o.Start || o.CPU1 < o.CPU0 {
			t.Errorf("%s %s: ends before it starts: %+v", o.Kind, o.Key, o)
		}
		got = append(got, row{o.Kind, o.Key, o.Result, o.Bytes, o.Records})
	}
	want := []row{
		{"create", "run.json", "ok", 38, -1},
		{"read", "run.json", "ok", 38, -1},
		{"list", "lease/0/", "ok", 0, -1},
		{"create", "lease/0/00000001", "ok", got[3].Bytes, -1},
		{"list", "lease/0/", "ok", 0, -1},
		{"create", "s0/L000003/states-0.wc", "ok", int64(size), 7},
		{"read", "s0/L000003/states-0.wc", "ok", int64(size), -1},
		{"read", "s0/L000003/summary-0.wc", "missing", 0, -1},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ops (-want +got):\n%s", diff)
	}
	var sb strings.Builder
	if _, err := rec.WriteTo(&sb); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(sb.String()), "\n")
	if len(lines) != len(want)+1 || lines[0] != "kind\tkey\tstart_ns\tend_ns\tcpu0_ns\tcpu1_ns\tbytes\trecords\tresult" {
		t.Errorf("WriteTo wrote %d lines, want a header and %d:\n%s", len(lines), len(want), sb.String())
	}
}

// leased attaches a store over bucket b at mem:// for man, closed when
// the test ends, and takes worker 0's lease.
func leased(t *testing.T, b Bucket, man Manifest) *Store {
	t.Helper()
	ctx := context.Background()
	st, err := Attach(ctx, "mem://", b, man)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if err := st.Acquire(ctx, 0); err != nil {
		t.Fatal(err)
	}
	return st
}
