package checker

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wrapcheck/wrapcheck/internal/gen"
	"github.com/wrapcheck/wrapcheck/spec"
)

// TestDeferredInserts checks the successors that a parallel level sets
// aside while their shards are being grown (insertParallel,
// retryDeferred): with every third one set aside (testDeferEvery), and
// retried at the next flushes and at the level's end, the whole result,
// counts, violations and traces, is that of one worker, with the full
// store and with HashCompact, on peer models with large levels and on
// random models.
func TestDeferredInserts(t *testing.T) {
	testDeferEvery = 3
	testDeferred.Store(0)
	defer func() { testDeferEvery = 0 }()
	same := func(name string, m *spec.Model, opts Options) {
		t.Helper()
		opts.Workers = 1
		want, err := Run(context.Background(), m, opts)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		want.Stats.Seconds, want.Stats.PeakHeapBytes, want.Stats.BytesPerState, want.Stats.Workers = 0, 0, 0, 0
		for _, compact := range []bool{false, true} {
			for _, workers := range []int{2, 4} {
				o := opts
				o.Workers, o.HashCompact = workers, compact
				r, err := run(context.Background(), m, o, 1)
				if err != nil {
					t.Fatalf("%s: w%d compact %v: %v", name, workers, compact, err)
				}
				r.Stats.Seconds, r.Stats.PeakHeapBytes, r.Stats.BytesPerState, r.Stats.Workers = 0, 0, 0, 0
				if compact {
					if diff := cmp.Diff(comparableOf(want), comparableOf(r)); diff != "" {
						t.Fatalf("%s: w1 vs compact w%d (-w1 +w%d):\n%s", name, workers, workers, diff)
					}
				} else if diff := cmp.Diff(want, r); diff != "" {
					t.Fatalf("%s: w1 vs w%d (-w1 +w%d):\n%s", name, workers, workers, diff)
				}
			}
		}
	}
	for _, c := range []struct {
		file    string
		defines map[string]int64
	}{
		{"pipeline.wrap", map[string]int64{"K": 3, "N": 2, "BUG": 1}},
		{"philo.wrap", map[string]int64{"N": 8}},
		{"mutex.wrap", map[string]int64{"N": 4}},
		{"toctou.wrap", map[string]int64{"D": 3, "M": 3, "FIXED": 1}},
	} {
		same(c.file, peerModel(t, c.file, c.defines), Options{Continue: true})
	}
	r := rand.New(rand.NewPCG(5, 6))
	for i := range 100 {
		same(fmt.Sprintf("random model %d", i), gen.GenerateModel(r, gen.Counters), Options{NoDeadlock: r.IntN(2) == 0})
	}
	if testDeferred.Load() == 0 {
		t.Fatal("no successor was set aside")
	}
}
