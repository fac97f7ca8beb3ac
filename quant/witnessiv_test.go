package quant_test

import (
	"context"
	"math/big"
	"math/rand"
	"testing"

	"github.com/wrapcheck/wrapcheck/quant"
)

// TestBoundsStrategy checks the strategy a witness of a value from
// interval iteration shows, on 300 random MDPs and Haddad-Monmege walks,
// max and min: the bounds interval iteration gives its own Markov chain
// enclose that chain's exact values (what the witness prints is sound),
// and the strategy is optimal to within 1e-6 of the exact value from
// every state (the bounds pick the right choices; for max, the backward
// search keeps it out of the end components the bounds cannot tell from
// their exits: without it, it is not).
func TestBoundsStrategy(t *testing.T) {
	r := rand.New(rand.NewSource(4242))
	ctx := context.Background()
	tol := new(big.Rat).SetFloat64(1e-6)
	for i := range 300 {
		m, left, target := wideRandomMDP(r)
		if i%3 == 2 {
			m, left, target = quant.HaddadWalk(r, 12)
		}
		all := left
		if all == nil {
			all = make([]bool, m.N())
			for s := range all {
				all[s] = true
			}
		}
		for _, max := range []bool{true, false} {
			opt, err := quant.Reach(ctx, m, left, target, max, -1, quant.Options{})
			if err != nil {
				t.Fatal(err)
			}
			iv, err := quant.ReachInterval(ctx, m, left, target, max, 1e-9, 200000)
			if err != nil {
				t.Fatal(err)
			}
			chain := quant.FixedChain(m, quant.BoundsStrategy(m, iv, all, target, max))
			own, err := quant.Reach(ctx, chain, left, target, max, -1, quant.Options{})
			if err != nil {
				t.Fatal(err)
			}
			ownIv, err := quant.ReachInterval(ctx, chain, left, target, max, 1e-9, 200000)
			if err != nil {
				t.Fatal(err)
			}
			for s := range own {
				lo, hi := new(big.Rat).SetFloat64(ownIv[s].Lo), new(big.Rat).SetFloat64(ownIv[s].Hi)
				if lo.Cmp(own[s]) > 0 || hi.Cmp(own[s]) < 0 {
					t.Fatalf("case %d max=%v state %d: the strategy's bounds [%g, %g] miss its value %s", i, max, s, ownIv[s].Lo, ownIv[s].Hi, own[s].FloatString(12))
				}
				gap := new(big.Rat).Sub(opt[s], own[s])
				if !max {
					gap.Neg(gap)
				}
				if gap.Cmp(tol) > 0 {
					t.Fatalf("case %d max=%v state %d: the strategy's value %s, the optimum %s", i, max, s, own[s].FloatString(12), opt[s].FloatString(12))
				}
			}
		}
	}
}
