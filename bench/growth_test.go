package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wrapcheck/wrapcheck/checker"
	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/verdict"
)

// growthSpec is the same-work series of bench/growth.sh: M^4 states,
// four transitions each, one word of state at every M.
const growthSpec = "growth/growth.wrap"

func parseGrowth(tb testing.TB, m int64) *spec.Model {
	tb.Helper()
	src, err := os.ReadFile(filepath.FromSlash(growthSpec))
	if err != nil {
		tb.Fatal(err)
	}
	mod, err := spec.ParseFile(filepath.Base(growthSpec), src, spec.Options{Defines: map[string]int64{"M": m}})
	if err != nil {
		tb.Fatal(err)
	}
	return mod
}

// growthCounts is the closed form of the series: every valuation of the
// four counters is reachable (each counter advances alone and wraps), and
// each of the four actions is enabled in every state with one branch.
func growthCounts(m int64) (states, transitions int64) {
	s := m * m * m * m
	return s, 4 * s
}

type growthStats struct {
	Verdict             verdict.Verdict
	States, Transitions int64
}

// TestGrowthCounts checks the series' counts against the closed form,
// with the plain store and with hash compaction, one and two workers.
func TestGrowthCounts(t *testing.T) {
	for _, m := range []int64{1, 2, 3, 5, 8, 18} {
		mod := parseGrowth(t, m)
		states, trans := growthCounts(m)
		want := growthStats{verdict.Holds, states, trans}
		for _, opts := range []checker.Options{{Workers: 1}, {Workers: 2}, {Workers: 1, HashCompact: true}} {
			t.Run(fmt.Sprintf("M=%d/w%d/compact=%t", m, opts.Workers, opts.HashCompact), func(t *testing.T) {
				r, err := checker.Run(context.Background(), mod, opts)
				if err != nil {
					t.Fatal(err)
				}
				got := growthStats{r.Verdict, r.Stats.States, r.Stats.Transitions}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("M=%d (-want +got):\n%s", m, diff)
				}
			})
		}
	}
}

// BenchmarkGrowth runs the same-work series (bench/growth/growth.wrap)
// with one worker, with and without hash compaction, so that states/s
// and states/cpu-s can be compared from 10^5 to 10^8 states. The points
// of 10^7 states and more run only when WRAPCHECK_BENCH_LARGE=1;
// bench/growth.sh runs the same series as whole processes.
//
//	go test -run XXX -bench Growth -benchtime 1x ./bench/
func BenchmarkGrowth(b *testing.B) {
	for _, m := range []int64{18, 32, 56, 100} {
		states, trans := growthCounts(m)
		if states > 5_000_000 && os.Getenv("WRAPCHECK_BENCH_LARGE") == "" {
			continue
		}
		mod := parseGrowth(b, m)
		for _, opts := range []checker.Options{{Workers: 1}, {Workers: 1, HashCompact: true}} {
			name := fmt.Sprintf("M%d/w1", m)
			if opts.HashCompact {
				name += "-compact"
			}
			b.Run(name, func(b *testing.B) {
				var sumStates, sumTrans int64
				var last *verdict.Result
				cpu0 := cpuTime()
				for b.Loop() {
					r, err := checker.Run(context.Background(), mod, opts)
					if err != nil {
						b.Fatal(err)
					}
					if r.Stats.States != states || r.Stats.Transitions != trans {
						b.Fatalf("%d states, %d transitions; want %d, %d", r.Stats.States, r.Stats.Transitions, states, trans)
					}
					sumStates += r.Stats.States
					sumTrans += r.Stats.Transitions
					last = r
				}
				report(b, cpu0, sumStates, sumTrans, last)
			})
		}
	}
}
