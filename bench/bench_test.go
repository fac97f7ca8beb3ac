// Package bench holds the whole-engine benchmarks of wrapcheck on the peer
// models (examples/peers, the translations of bench/peers/models)
// and bench/peers.sh, which runs the same models in SPIN and Rumur.
//
//	go test -run XXX -bench . -benchtime 3x ./bench/
//	go test -run XXX -bench 'Peers/pipeline-K3N2/w1' -cpuprofile cpu.out ./bench/
//
// Every benchmark checks the exact state and transition counts of
// testdata/COUNTS.tsv (COUNTS_SYM.tsv for the reduced runs) and
// reports states/s, transitions/s, the visited store's bytes/state and
// the peak Go heap per state (heap-B/state, sampled by the checker).
package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/wrapcheck/wrapcheck/checker"
	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/verdict"
	"github.com/wrapcheck/wrapcheck/verify"
)

type model struct {
	name, file    string
	defines       map[string]int64
	states, trans int64 // no reduction
	large         bool  // only with -bench-large (beyond 10^7 states)
}

var models = []model{
	{"pipeline-K3N2", "pipeline.wrap", map[string]int64{"K": 3, "N": 2}, 970299, 3910599, false},
	{"mutex-N5", "mutex.wrap", map[string]int64{"N": 5}, 104432, 338790, false},
	{"mutex-N6", "mutex_sym.wrap", map[string]int64{"N": 6}, 2111008, 7861932, false},
	{"philo-N14", "philo.wrap", map[string]int64{"N": 14, "DEADLOCK_OK": 1}, 228486, 2067856, false},
	{"toctou-D3M10", "toctou.wrap", map[string]int64{"D": 3, "M": 10, "FIXED": 1}, 681472, 3298944, false},
	{"pipeline-K2N4", "pipeline.wrap", map[string]int64{"K": 2, "N": 4}, 13155129, 35696934, true},
	{"pipeline-K6N1", "pipeline.wrap", map[string]int64{"K": 6, "N": 1}, 11390625, 86568750, true},
}

// reduced: symmetry-reduced (exact orbit) counts of COUNTS_SYM.tsv, with
// symmetry and POR on as `wrapcheck check` runs by default.
var reduced = []struct {
	model
	states int64
}{
	{model{name: "pipeline-K3N2", file: "pipeline.wrap", defines: map[string]int64{"K": 3, "N": 2}}, 166650},
	{model{name: "pipeline-K6N1", file: "pipeline.wrap", defines: map[string]int64{"K": 6, "N": 1}}, 38760},
	{model{name: "mutex-N6", file: "mutex_sym.wrap", defines: map[string]int64{"N": 6}}, 4789},
	{model{name: "toctou-D3M10", file: "toctou.wrap", defines: map[string]int64{"D": 3, "M": 10, "FIXED": 1}}, 117480},
}

func parse(b *testing.B, file string, defines map[string]int64) *spec.Model {
	src, err := os.ReadFile(filepath.Join("..", "examples", "peers", file))
	if err != nil {
		b.Fatal(err)
	}
	m, err := spec.ParseFile(file, src, spec.Options{Defines: defines})
	if err != nil {
		b.Fatal(err)
	}
	return m
}

// cpuTime is the process's user+system CPU time: on the shared machine
// states per CPU-second is steadier than states per second.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func report(b *testing.B, cpu0 time.Duration, states, trans int64, last *verdict.Result) {
	sec := b.Elapsed().Seconds()
	b.ReportMetric(float64(states)/(cpuTime()-cpu0).Seconds(), "states/cpu-s")
	b.ReportMetric(float64(states)/sec, "states/s")
	b.ReportMetric(float64(trans)/sec, "transitions/s")
	b.ReportMetric(last.Stats.BytesPerState, "bytes/state")
	b.ReportMetric(float64(last.Stats.PeakHeapBytes)/float64(last.Stats.States), "heap-B/state")
	b.ReportMetric(0, "ns/op") // the op is a whole search: states/s is the figure
}

// BenchmarkPeers explores each peer model without reductions with 1 and 2
// workers, and with one worker and hash compaction (w1-compact: its
// bytes/state is the fingerprint set; the trace records are on disk). The models beyond
// 10^7 states run only when
// WRAPCHECK_BENCH_LARGE=1.
func BenchmarkPeers(b *testing.B) {
	for _, mm := range models {
		if mm.large && os.Getenv("WRAPCHECK_BENCH_LARGE") == "" {
			continue
		}
		m := parse(b, mm.file, mm.defines)
		for _, opts := range []checker.Options{{Workers: 1}, {Workers: 2}, {Workers: 1, HashCompact: true}} {
			name := fmt.Sprintf("%s/w%d", mm.name, opts.Workers)
			if opts.HashCompact {
				name += "-compact"
			}
			b.Run(name, func(b *testing.B) {
				var states, trans int64
				var last *verdict.Result
				cpu0 := cpuTime()
				for b.Loop() {
					r, err := checker.Run(context.Background(), m, opts)
					if err != nil {
						b.Fatal(err)
					}
					if r.Stats.States != mm.states || r.Stats.Transitions != mm.trans {
						b.Fatalf("%d states, %d transitions; want %d, %d", r.Stats.States, r.Stats.Transitions, mm.states, mm.trans)
					}
					states += r.Stats.States
					trans += r.Stats.Transitions
					last = r
				}
				report(b, cpu0, states, trans, last)
			})
		}
	}
}

// BenchmarkReduced runs the symmetric peer models with symmetry and POR on
// (verify.Run, as `wrapcheck check` does), one worker per core.
func BenchmarkReduced(b *testing.B) {
	for _, rm := range reduced {
		m := parse(b, rm.file, rm.defines)
		b.Run(rm.name, func(b *testing.B) {
			var states, trans int64
			var last *verdict.Result
			cpu0 := cpuTime()
			for b.Loop() {
				r, err := verify.Run(context.Background(), m, verify.Options{})
				if err != nil {
					b.Fatal(err)
				}
				if r.Stats.States != rm.states {
					b.Fatalf("%d states, want %d", r.Stats.States, rm.states)
				}
				states += r.Stats.States
				trans += r.Stats.Transitions
				last = r
			}
			report(b, cpu0, states, trans, last)
		})
	}
}
