package reduce

import (
	"context"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/wrapcheck/wrapcheck/checker"
	"github.com/wrapcheck/wrapcheck/verdict"
)

var benchModels = []struct {
	name string
	file string
	defs map[string]int64
}{
	{"mutex_sym_N=6", "../examples/peers/mutex_sym.wrap", map[string]int64{"N": 6}},
	{"pipeline_K=6_N=1", "../examples/peers/pipeline.wrap", map[string]int64{"K": 6, "N": 1}},
	{"pipeline_K=3_N=2", "../examples/peers/pipeline.wrap", map[string]int64{"K": 3, "N": 2}},
	{"toctou_D=4_M=2", "../examples/peers/toctou.wrap", map[string]int64{"D": 4, "M": 2, "FIXED": 1}},
	{"pointers_K=5", "testdata/pointers.wrap", map[string]int64{"K": 5}},
}

// cpuTime returns the CPU time the process used so far: on a shared
// machine it is a steadier figure than the wall clock.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkCanon measures one canonicalisation (ns/op) over reachable
// states: "sig" is the signature sort with tie enumeration of Symmetry,
// "all" the lexicographic minimum over the whole group.
func BenchmarkCanon(b *testing.B) {
	for _, bm := range benchModels {
		m := load(b, bm.file, bm.defs)
		c, err := newCanon(m, Group{})
		if err != nil || c == nil {
			b.Fatal(err)
		}
		states, _ := reachable(b, m, 20000, nil) // the first 20000 states, in BFS order
		if len(states) == 0 {
			b.Fatal("no reachable state (an action fails)")
		}
		buf := make([]int64, len(states[0]))
		b.Run(bm.name+"/sig", func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			t0 := cpuTime()
			for b.Loop() {
				copy(buf, states[i%len(states)])
				c.canonicalize(buf)
				i++
			}
			b.ReportMetric(float64(cpuTime()-t0)/float64(b.N), "cpu-ns/op")
		})
		var group [][][]int32
		c.group(func(fwd [][]int32) {
			g := make([][]int32, len(fwd))
			for t := range fwd {
				g[t] = slices.Clone(fwd[t])
			}
			group = append(group, g)
		})
		sc := c.newScratch()
		b.Run(bm.name+"/all", func(b *testing.B) {
			i := 0
			t0 := cpuTime()
			defer func() { b.ReportMetric(float64(cpuTime()-t0)/float64(b.N), "cpu-ns/op") }()
			for b.Loop() {
				s := states[i%len(states)]
				for gi, fwd := range group {
					for t := range fwd {
						copy(sc.fwd[t], fwd[t])
						for x, y := range fwd[t] {
							sc.order[t][y] = int32(x)
						}
					}
					if gi == 0 {
						c.applyAll(s, sc)
					} else {
						c.applyMin(s, sc)
					}
				}
				i++
			}
		})
	}
}

// BenchmarkPipelineK6 runs the symmetry-reduced search of the peers'
// pipeline with K=6 runs of N=1 step (11,390,625 states unreduced).
func BenchmarkPipelineK6(b *testing.B) {
	m := load(b, "../examples/peers/pipeline.wrap", map[string]int64{"K": 6, "N": 1})
	canon := symmetry(b, m)
	t0 := cpuTime()
	defer func() { b.ReportMetric((cpuTime()-t0).Seconds()/float64(b.N), "cpu-s/op") }()
	for b.Loop() {
		r, err := checker.Run(context.Background(), m, checker.Options{Canon: canon})
		if err != nil {
			b.Fatal(err)
		}
		if r.Stats.States != 38760 {
			b.Fatalf("%d states, want 38760", r.Stats.States)
		}
		b.ReportMetric(float64(r.Stats.States), "states")
		b.ReportMetric(float64(r.Stats.Transitions), "transitions")
	}
}

// allPermutations returns a CanonFunc that takes the lexicographic
// minimum over the whole group (Rumur's "exhaustive", TLC's SYMMETRY):
// the baseline of BenchmarkSearch.
func (c *canon) allPermutations() verdict.CanonFunc {
	var group [][][]int32
	c.group(func(fwd [][]int32) {
		g := make([][]int32, len(fwd))
		for t := range fwd {
			g[t] = slices.Clone(fwd[t])
		}
		group = append(group, g)
	})
	return func(s []int64) {
		sc := c.pool.Get().(*scratch)
		for gi, fwd := range group {
			for t := range fwd {
				copy(sc.fwd[t], fwd[t])
				for x, y := range fwd[t] {
					sc.order[t][y] = int32(x)
				}
			}
			if gi == 0 {
				c.applyAll(s, sc)
			} else {
				c.applyMin(s, sc)
			}
		}
		for _, d := range c.relevant {
			s[d] = sc.best[d]
		}
		c.pool.Put(sc)
	}
}

// BenchmarkSearch runs whole symmetry-reduced searches with the
// signature canonicalisation ("sig") and with the minimum over all
// permutations ("all"), reporting CPU seconds per search.
func BenchmarkSearch(b *testing.B) {
	for _, bm := range benchModels {
		m := load(b, bm.file, bm.defs)
		c, err := newCanon(m, Group{})
		if err != nil || c == nil {
			b.Fatal(err)
		}
		for _, v := range []struct {
			name  string
			canon verdict.CanonFunc
		}{{"sig", c.canonicalize}, {"all", c.allPermutations()}} {
			b.Run(bm.name+"/"+v.name, func(b *testing.B) {
				t0 := cpuTime()
				var r *verdict.Result
				for b.Loop() {
					var err error
					r, err = checker.Run(context.Background(), m, checker.Options{Canon: v.canon})
					if err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric((cpuTime()-t0).Seconds()/float64(b.N), "cpu-s/op")
				b.ReportMetric(float64(r.Stats.States), "states")
			})
		}
	}
}
