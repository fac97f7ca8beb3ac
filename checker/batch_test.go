package checker

import (
	"math/rand/v2"
	"testing"
)

// TestBatchOf checks batchOf's multiply against the division for every
// batch size a level uses (1..256), on the small positions and on random
// ones up to 2^32−1.
func TestBatchOf(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for batch := 1; batch <= 256; batch++ {
		mul := batchMultiplier(batch)
		ps := []int{1<<32 - 1, 1<<32 - 2, 1<<32 - batch, 1 << 31}
		for p := range 4 * 256 {
			ps = append(ps, p)
		}
		for range 2000 {
			ps = append(ps, int(r.Uint32()))
		}
		for _, p := range ps {
			if got := batchOf(p, mul); got != p/batch {
				t.Fatalf("batchOf(%d) for batch %d = %d, want %d", p, batch, got, p/batch)
			}
		}
	}
}
