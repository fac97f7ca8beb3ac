package bench

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/wrapcheck/wrapcheck/checker"
	"github.com/wrapcheck/wrapcheck/spec"
)

// TestSeqQueueCounts: the queue of bench/seq.sh as a sequence and as an
// array with a length counter reach the same states, the ones counted by
// hand: every queue of length 0..N over M values, sum M^k for k = 0..N,
// times the M values of last; send is enabled below N (M transitions
// each), recv above 0.
func TestSeqQueueCounts(t *testing.T) {
	for _, m := range []int64{2, 4} {
		const n = 6
		queues, full, pow := int64(0), int64(0), int64(1)
		for k := 0; k <= n; k++ {
			queues += pow
			if k == n {
				full = pow
			}
			pow *= m
		}
		states := queues * m
		trans := ((queues-full)*m + (queues - 1)) * m
		for _, file := range []string{"queue_seq.wrap", "queue_array.wrap"} {
			src, err := os.ReadFile(filepath.Join("seq", file))
			if err != nil {
				t.Fatal(err)
			}
			md, err := spec.ParseFile(file, src, spec.Options{Defines: map[string]int64{"M": m}})
			if err != nil {
				t.Fatal(err)
			}
			r, err := checker.Run(context.Background(), md, checker.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if r.Stats.States != states || r.Stats.Transitions != trans {
				t.Errorf("%s M=%d: %d states, %d transitions; want %d, %d", file, m, r.Stats.States, r.Stats.Transitions, states, trans)
			}
		}
	}
}
