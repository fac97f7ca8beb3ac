package cluster

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
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
	return searchCodec(t, b, n, prog, opts, true, nil)
}

// searchPart is searchN with the owner function part.
func searchPart(t testing.TB, b Bucket, n int, prog *machine.Program, opts checker.Options, part *Partition) (*verdict.Result, error) {
	t.Helper()
	return searchCodec(t, b, n, prog, opts, true, part)
}

// searchCodec is searchN with the owner function part (nil: the whole
// state); with mixed, the odd workers compress their frames (every
// reader reads both codecs), else none does, as on file://.
func searchCodec(t testing.TB, b Bucket, n int, prog *machine.Program, opts checker.Options, mixed bool, part *Partition) (*verdict.Result, error) {
	t.Helper()
	ctx := context.Background()
	res := make([]*verdict.Result, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st, err := Attach(ctx, "mem://", b, Manifest{Spec: "test", Workers: n, Partition: part.String()})
			if err != nil {
				errs[i] = err
				return
			}
			defer st.Close()
			st.Poll = 2 * time.Millisecond
			// The odd workers compress their frames: every reader reads
			// both codecs.
			st.Compress = mixed && i%2 == 1
			if err := st.Acquire(ctx, i); err != nil {
				errs[i] = err
				return
			}
			// As verify runs it: the shortest-trace guarantee over the
			// distributed search (a second search when POR found a violation).
			res[i], errs[i] = checker.Shortest(ctx, Runner(st, i, n, part), prog, opts)
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
// nothing to share; and two workers (file-N2), whose every other
// successor crosses to the other (ns/state is then of both workers'
// time on the machine's cores).
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
	for _, n := range []int{1, 2} {
		name := "file"
		if n > 1 {
			name = fmt.Sprintf("file-N%d", n) // what crossing workers costs
		}
		b.Run(name, func(b *testing.B) {
			var res *verdict.Result
			for b.Loop() {
				bk, err := OpenBucket(context.Background(), "file://"+filepath.ToSlash(b.TempDir()))
				if err != nil {
					b.Fatal(err)
				}
				res, err = searchCodec(b, bk, n, prog, opts, false, nil)
				bk.Close()
				if err != nil {
					b.Fatal(err)
				}
			}
			report(b, res)
		})
	}
}

// TestKeyOrder: keyOrder sorts keys as Key.Compare does (the index
// breaking ties), whether they fit in a word each or not.
func TestKeyOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tt := range []struct {
		name     string
		pos, ord uint64 // bounds of the random keys
	}{
		{"words", 1 << 12, 8},
		{"large-ordinals", 1 << 12, verdict.MaxOrdinal + 4},
		{"large-positions", 1<<40 + 8, 4},
		{"ties", 4, 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for range 50 {
				keys := make([]key, rng.IntN(300))
				for i := range keys {
					keys[i] = key{Pos: rng.Uint64N(tt.pos), Ord: rng.Uint64N(tt.ord)}
					if tt.pos > 1<<40 && rng.IntN(2) == 0 {
						keys[i].Pos = 1<<40 - 4 + rng.Uint64N(8)
					}
				}
				want := make([]int, len(keys))
				for i := range want {
					want[i] = i
				}
				sort.SliceStable(want, func(a, b int) bool { return keys[want[a]].Less(keys[want[b]]) })
				if diff := cmp.Diff(want, new(orderBuf).keyOrder(keys, nil, nil)); diff != "" {
					t.Fatalf("keyOrder of %v (-want +got):\n%s", keys, diff)
				}
			}
		})
	}
}

// TestKeyOrderRuns: keyOrder's merge of a level's runs (one per source,
// ascending, some keys lowered later) sorts as Key.Compare does, with
// the lowered indexes given, given in part, with repeats, or wrong, and
// with its buffers reused from call to call.
func TestKeyOrderRuns(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var b orderBuf
	var dst []int
	for trial := range 2000 {
		var keys []key
		for range rng.IntN(6) + 1 { // the runs
			n := rng.IntN(200)
			pos := rng.Uint64N(1000)
			for range n {
				pos += rng.Uint64N(3)
				keys = append(keys, key{Pos: pos, Ord: rng.Uint64N(4)})
			}
			// Each run ascending, as a source's records are.
			run := keys[len(keys)-n:]
			slices.SortFunc(run, key.Compare)
		}
		var lowered []uint32
		if len(keys) > 0 {
			for range rng.IntN(len(keys)/4 + 1) {
				i := rng.IntN(len(keys))
				if keys[i].Pos > 0 {
					keys[i].Pos = rng.Uint64N(keys[i].Pos)
				}
				switch trial % 4 {
				case 0, 1:
					lowered = append(lowered, uint32(i), uint32(i))
				case 2:
					if rng.IntN(2) == 0 {
						lowered = append(lowered, uint32(i)) // half of them
					}
				case 3:
					lowered = append(lowered, uint32(rng.IntN(len(keys)+3))) // wrong, some out of range
				}
			}
		}
		want := make([]int, len(keys))
		for i := range want {
			want[i] = i
		}
		sort.SliceStable(want, func(a, b int) bool { return keys[want[a]].Less(keys[want[b]]) })
		dst = b.keyOrder(keys, lowered, dst)
		if diff := cmp.Diff(want, dst); diff != "" {
			t.Fatalf("trial %d: keyOrder of %v, lowered %v (-want +got):\n%s", trial, keys, lowered, diff)
		}
	}
}

// TestRestoreRepeatedState: a committed level's states file that holds a
// state twice (a damaged or hostile store, with a good frame) is a
// CorruptError at the resume, for one worker, whose visited set keeps no
// index of a duplicate (the state of 40 bits fits its slot), and for two.
func TestRestoreRepeatedState(t *testing.T) {
	prog := compileSource(t, "wide.wrap", `spec Wide
var x: 0..7 = 0
var y: 0..1099511627775 = 0
action a when x < 7 { x := x + 1 }
action b when x < 7 and y < 100 { y := y + x + 1 }
`)
	ctx := context.Background()
	for _, n := range []int{1, 2} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			if n == 1 && !newVisited(prog, 1, checker.Options{}).Keyed() {
				t.Fatal("one worker's visited set is not keyed: the test no longer covers it")
			}
			b := NewMemBucket()
			want, err := searchN(t, b, n, prog, checker.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if want.Stats.Depth < 4 {
				t.Fatalf("depth %d: too few levels", want.Stats.Depth)
			}
			st := leased(t, b, Manifest{Spec: "test", Workers: n})
			// Worker 0's states of level 2, its first state twice.
			name := Name{Kind: KindStates, Level: 2}
			cnt, p, err := st.Get(ctx, name, Bound{Records: 1 << 20, Record: 1 << 10})
			if err != nil {
				t.Fatal(err)
			}
			r := &reader{b: p}
			if got := r.count(8); uint64(got) != cnt || cnt == 0 {
				t.Fatalf("%d records, the header says %d", got, cnt)
			}
			rest := r.b
			first := &reader{b: rest}
			first.word()
			first.key()
			w := &writer{}
			w.u(cnt + 1)
			w.b = append(w.b, rest...)
			w.b = append(w.b, rest[:len(rest)-len(first.b)]...)
			if err := b.Delete(ctx, name.Key()); err != nil {
				t.Fatal(err)
			}
			if _, err := st.Put(ctx, name, cnt+1, w.b); err != nil {
				t.Fatal(err)
			}
			st.Close()
			_, err = searchN(t, b, n, prog, checker.Options{})
			var ce *CorruptError
			if !errors.As(err, &ce) || !strings.Contains(err.Error(), "s0/L000002/states-0.wc: holds a state stored before") {
				t.Fatalf("resume: %v, want a CorruptError of s0/L000002/states-0.wc", err)
			}
		})
	}
}
