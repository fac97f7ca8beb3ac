package cluster

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wrapcheck/wrapcheck/checker"
	"github.com/wrapcheck/wrapcheck/internal/testenv"
	"github.com/wrapcheck/wrapcheck/machine"
	"github.com/wrapcheck/wrapcheck/reduce"
	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/verdict"
)

// searchN runs n workers on one bucket, each in its own goroutine with
// its own Store, and returns worker 0's result after checking that every
// worker returned the same.
func searchN(t testing.TB, b Bucket, n int, prog *machine.Program, opts checker.Options) (*verdict.Result, error) {
	t.Helper()
	ctx := context.Background()
	res := make([]*verdict.Result, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st, err := Attach(ctx, "mem://", b, Manifest{Spec: "test", Workers: n})
			if err != nil {
				errs[i] = err
				return
			}
			defer st.Close()
			st.Poll = 2 * time.Millisecond
			// The odd workers compress their frames: every reader reads
			// both codecs.
			st.Compress = i%2 == 1
			if err := st.Acquire(ctx, i); err != nil {
				errs[i] = err
				return
			}
			// As verify runs it: the shortest-trace guarantee over the
			// distributed search (a second search when POR found a violation).
			res[i], errs[i] = checker.Shortest(ctx, Runner(st, i, n), prog, opts)
		}()
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil {
			return nil, fmt.Errorf("worker %d: %w", i, errs[i])
		}
	}
	for i := 1; i < n; i++ {
		if diff := cmp.Diff(comparable(res[0]), comparable(res[i])); diff != "" {
			t.Errorf("worker %d's result differs from worker 0's (-0 +%d):\n%s", i, i, diff)
		}
	}
	return res[0], nil
}

// comparable returns the parts of a result that do not depend on timing
// or on the machine.
func comparable(r *verdict.Result) *verdict.Result {
	c := *r
	c.Stats.Seconds, c.Stats.PeakHeapBytes, c.Stats.BytesPerState, c.Stats.Workers = 0, 0, 0, 0
	return &c
}

// searchOptions returns the options of check's safety search of m: the
// reductions on, as verify chooses them.
func searchOptions(t *testing.T, m *spec.Model, sym, por bool) checker.Options {
	t.Helper()
	var opts checker.Options
	if sym {
		canon, err := reduce.Symmetry(m)
		if err != nil {
			t.Fatal(err)
		}
		opts.Canon = canon
	}
	if por {
		opts.Ample = reduce.POR(m, reduce.Visible(m, nil))
	}
	return opts
}

func examples(t *testing.T) []string {
	t.Helper()
	paths, err := filepath.Glob("../examples/*/*.wrap")
	if err != nil {
		t.Fatal(err)
	}
	return paths
}

func load(t *testing.T, path string, defines map[string]int64) *spec.Model {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m, err := spec.ParseFile(path, src, spec.Options{Defines: defines})
	if err != nil {
		return nil
	}
	return m
}

// TestSearchExamples: 1, 2 and 4 workers give the single-process search's
// result on every example, with the reductions on (as check runs it) and
// off.
func TestSearchExamples(t *testing.T) {
	for _, path := range examples(t) {
		m := load(t, path, nil)
		if m == nil {
			continue // a spec error: a front-end test's business
		}
		prog, err := machine.Compile(m)
		if err != nil {
			t.Fatal(err)
		}
		for _, red := range []struct {
			name     string
			sym, por bool
		}{{"reduced", true, true}, {"plain", false, false}} {
			opts := searchOptions(t, m, red.sym, red.por)
			opts.Workers = 1
			want, err := checker.RunProgram(context.Background(), prog, opts)
			if err != nil {
				t.Fatal(err)
			}
			for _, n := range []int{1, 2, 4} {
				name := fmt.Sprintf("%s/%s/N%d", strings.TrimPrefix(path, "../examples/"), red.name, n)
				t.Run(name, func(t *testing.T) {
					if testenv.Short(t) && n == 4 {
						t.Skip("short")
					}
					got, err := searchN(t, NewMemBucket(), n, prog, opts)
					if err != nil {
						t.Fatal(err)
					}
					if diff := cmp.Diff(comparable(want), comparable(got)); diff != "" {
						t.Errorf("distributed vs single-process (-want +got):\n%s", diff)
					}
				})
			}
		}
	}
}

// pipeline returns examples/peers/pipeline.wrap with K and N, compiled.
func pipeline(b *testing.B, k, n int64) (*spec.Model, *machine.Program) {
	b.Helper()
	src, err := os.ReadFile("../examples/peers/pipeline.wrap")
	if err != nil {
		b.Fatal(err)
	}
	m, err := spec.ParseFile("pipeline.wrap", src, spec.Options{Defines: map[string]int64{"K": k, "N": n}})
	if err != nil {
		b.Fatal(err)
	}
	prog, err := machine.Compile(m)
	if err != nil {
		b.Fatal(err)
	}
	return m, prog
}

// BenchmarkSearch runs the peers pipeline (K=2, N=3: 182k states) on
// mem:// with 1 and 2 workers and reports states per second.
func BenchmarkSearch(b *testing.B) {
	m, prog := pipeline(b, 2, 3)
	canon, err := reduce.Symmetry(m)
	if err != nil {
		b.Fatal(err)
	}
	opts := checker.Options{Canon: canon, Ample: reduce.POR(m, reduce.Visible(m, nil))}
	for _, n := range []int{1, 2} {
		b.Run(fmt.Sprintf("N%d", n), func(b *testing.B) {
			var states int64
			for b.Loop() {
				res, err := searchN(b, NewMemBucket(), n, prog, opts)
				if err != nil {
					b.Fatal(err)
				}
				states = res.Stats.States
			}
			b.ReportMetric(float64(states)*float64(b.N)/b.Elapsed().Seconds(), "states/s")
		})
	}
}

// BenchmarkOneWorker compares one worker over a file:// store with the
// single-process search (one goroutine) on the peers pipeline (K=3, N=2:
// 970,299 states, no reductions): the cost of partitioning when there is
// nothing to share.
func BenchmarkOneWorker(b *testing.B) {
	_, prog := pipeline(b, 3, 2)
	opts := checker.Options{Workers: 1}
	report := func(b *testing.B, res *verdict.Result) {
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(res.Stats.States), "ns/state")
	}
	b.Run("local", func(b *testing.B) {
		var res *verdict.Result
		for b.Loop() {
			var err error
			res, err = checker.RunProgram(context.Background(), prog, opts)
			if err != nil {
				b.Fatal(err)
			}
		}
		report(b, res)
	})
	b.Run("file", func(b *testing.B) {
		var res *verdict.Result
		for b.Loop() {
			bk, err := OpenBucket(context.Background(), "file://"+filepath.ToSlash(b.TempDir()))
			if err != nil {
				b.Fatal(err)
			}
			res, err = searchN(b, bk, 1, prog, opts)
			bk.Close()
			if err != nil {
				b.Fatal(err)
			}
		}
		report(b, res)
	})
}
