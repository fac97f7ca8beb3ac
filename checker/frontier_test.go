package checker

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wrapcheck/wrapcheck/machine"
)

// TestNextFrontierOrder checks the level nextFrontier builds against the
// definition: the level's states in the order of their keys (then of
// their indexes), each key turned into the link to its parent, the
// frontier's state at the key's position. One worker's level, stored in
// key order, takes inKeyOrder's path; the same keys out of order (a
// parallel level's) take the buckets and the sort, and so do they when
// the level claims one worker: inKeyOrder must decline them.
func TestNextFrontierOrder(t *testing.T) {
	const parents, states = 300, 2000
	r := rand.New(rand.NewPCG(3, 4))
	keys := make([]uint64, states)
	for i := range keys {
		keys[i] = uint64(r.IntN(parents))<<ordBits | uint64(r.IntN(8))
	}
	slices.Sort(keys)
	keys = slices.Compact(keys)
	shuffled := slices.Clone(keys)
	r.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	for _, tt := range []struct {
		name     string
		keys     []uint64
		parallel bool
	}{
		{"one worker, in order", keys, false},
		{"parallel, in order", keys, true},
		{"one worker, out of order", shuffled, false},
		{"parallel, out of order", shuffled, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			st := machine.NewStore(1)
			frontier := make([]uint32, parents)
			for p := range frontier {
				idx, _, err := st.Insert([]uint64{uint64(p)}, 0)
				if err != nil {
					t.Fatal(err)
				}
				frontier[p] = idx
			}
			e := &explorer{store: st, workers: make([]*worker, 2)}
			e.frontier, e.nfront, e.parallel = frontier, parents, tt.parallel
			e.batch = min(max(parents/(len(e.workers)*8), 1), 256)
			e.batchMul = batchMultiplier(e.batch)
			e.nbatch = (parents + e.batch - 1) / e.batch
			e.levelStart = st.End()
			byKey := map[uint64]uint32{}
			for i, k := range tt.keys {
				idx, _, err := st.Insert([]uint64{uint64(parents + i)}, k)
				if err != nil {
					t.Fatal(err)
				}
				byKey[k] = idx
			}
			e.nextFrontier()
			var want []uint32
			for _, k := range keys { // keys is sorted
				want = append(want, byKey[k])
			}
			if diff := cmp.Diff(want, e.frontier[:e.nfront]); diff != "" {
				t.Fatalf("the level (-want +got):\n%s", diff)
			}
			for _, k := range keys {
				if got, want := *st.Link(byKey[k]), uint64(frontier[k>>ordBits]); got != want {
					t.Fatalf("state of key %#x: link %d, want %d", k, got, want)
				}
			}
		})
	}
}
