package checker

import (
	"context"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/wrapcheck/wrapcheck/machine"
)

// BenchmarkBFS explores the peer models of ../examples/peers with 1 and 2
// workers, with and without hash compaction (-compact), and reports
// states/s and the visited store's bytes/state.
//
//	go test -run XXX -bench BFS -benchtime 3x ./checker/
func BenchmarkBFS(b *testing.B) {
	benches := []struct {
		name, file string
		defines    map[string]int64
		states     int64
	}{
		{"pipeline-K3N2", "pipeline.wrap", map[string]int64{"K": 3, "N": 2}, 970299},
		{"mutex-N5", "mutex.wrap", map[string]int64{"N": 5}, 104432},
		{"philo-N14", "philo.wrap", map[string]int64{"N": 14, "DEADLOCK_OK": 1}, 228486},
		{"toctou-D3M10", "toctou.wrap", map[string]int64{"D": 3, "M": 10, "FIXED": 1}, 681472},
	}
	for _, bb := range benches {
		m := peerModel(b, bb.file, bb.defines)
		for _, mode := range []struct {
			workers int
			compact bool
		}{{1, false}, {2, false}, {1, true}, {2, true}} {
			name := fmt.Sprintf("%s/w%d", bb.name, mode.workers)
			if mode.compact {
				name += "-compact"
			}
			b.Run(name, func(b *testing.B) {
				var states int64
				var bps float64
				cpu0 := cpuTime()
				for b.Loop() {
					r, err := Run(context.Background(), m, Options{Workers: mode.workers, HashCompact: mode.compact})
					if err != nil {
						b.Fatal(err)
					}
					if r.Stats.States != bb.states {
						b.Fatalf("states = %d, want %d", r.Stats.States, bb.states)
					}
					states += r.Stats.States
					bps = r.Stats.BytesPerState
				}
				b.ReportMetric(float64(states)/b.Elapsed().Seconds(), "states/s")
				b.ReportMetric(bps, "bytes/state")
				b.ReportMetric(float64(states)/(cpuTime()-cpu0).Seconds(), "states/cpu-s")
			})
		}
	}
}

// cpuTime is the process's user+system CPU time: on a loaded machine
// states per CPU-second is steadier than states per second.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestAllocsPerState checks that the search, full or hash-compacted,
// allocates nothing per state: only per run, per level and per arena
// chunk or table growth.
func TestAllocsPerState(t *testing.T) {
	m := peerModel(t, "pipeline.wrap", map[string]int64{"K": 4, "N": 1})
	prog, err := machine.Compile(m)
	if err != nil {
		t.Fatal(err)
	}
	for _, opts := range []Options{{Workers: 1}, {Workers: 2}, {Workers: 1, HashCompact: true}, {Workers: 2, HashCompact: true}} {
		var r *Result
		allocs := testing.AllocsPerRun(1, func() {
			r, err = runProgram(context.Background(), prog, opts, 64)
		})
		if err != nil {
			t.Fatal(err)
		}
		if per := allocs / float64(r.Stats.States); per > 0.05 {
			t.Errorf("workers %d, compact %v: %.0f allocations for %d states (%.3f per state)", opts.Workers, opts.HashCompact, allocs, r.Stats.States, per)
		} else {
			t.Logf("workers %d, compact %v: %.0f allocations for %d states", opts.Workers, opts.HashCompact, allocs, r.Stats.States)
		}
	}
}
