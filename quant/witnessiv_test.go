package quant_test

import (
	"context"
	"math"
	"math/big"
	"math/rand"
	"slices"
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

// TestCostBoundsStrategy checks the strategy a witness of an expected
// cost from interval iteration shows, on 600 random MDPs with costs
// (small, wider, Haddad-Monmege walks; zero costs half the time, so end
// components of zero cost), max and min: from every state of finite
// value the strategy's own expected cost (exact mode on its Markov
// chain) is finite (it reaches the target with probability 1), the
// bounds ExpectCostInterval gives that chain enclose it, and, where the
// value's upper bounds are all certified, it is optimal to within 1e-6
// times max(1, the value). Without the breadth-first search backwards
// for min (each state's first candidate), the strategy keeps to end
// components of zero cost and its cost is infinite.
func TestCostBoundsStrategy(t *testing.T) {
	r := rand.New(rand.NewSource(3737))
	ctx := context.Background()
	checked := 0
	for i := range 600 {
		m, target, _ := costCase(r, i)
		cost := randomCosts(r, m)
		for _, max := range []bool{true, false} {
			// exactly and by interval iteration
			solve := func(m *quant.MDP, cost func(s, c int) *big.Rat) ([]*big.Rat, []quant.Interval) {
				exact, err := quant.ExpectCost(ctx, m, cost, target, max, quant.Options{})
				if err != nil {
					t.Fatal(err)
				}
				iv, err := quant.ExpectCostInterval(ctx, m, cost, target, max, 1e-12, 200000)
				if err != nil {
					t.Fatal(err)
				}
				return exact, iv
			}
			exact, iv := solve(m, cost)
			strategy := quant.CostBoundsStrategy(m, iv, cost, target, max)
			own, ownIv := solve(quant.FixedChain(m, strategy), func(s, _ int) *big.Rat { return cost(s, strategy[s]) })
			certified := true
			for s := range exact {
				certified = certified && (exact[s] == nil || !math.IsInf(iv[s].Hi, 1))
			}
			for s := range exact {
				if exact[s] == nil {
					continue
				}
				if own[s] == nil {
					t.Fatalf("case %d max=%v state %d: the strategy's cost is infinite, the value %s", i, max, s, exact[s].FloatString(9))
				}
				lo, hi := new(big.Rat).SetFloat64(ownIv[s].Lo), ownIv[s].Hi
				if lo.Cmp(own[s]) > 0 || !math.IsInf(hi, 1) && new(big.Rat).SetFloat64(hi).Cmp(own[s]) < 0 {
					t.Fatalf("case %d max=%v state %d: the strategy's bounds [%g, %g] miss its cost %s", i, max, s, ownIv[s].Lo, hi, own[s].FloatString(12))
				}
				if !certified {
					continue
				}
				checked++
				gap := new(big.Rat).Sub(exact[s], own[s])
				if !max {
					gap.Neg(gap)
				}
				v, _ := exact[s].Float64()
				if tol := new(big.Rat).SetFloat64(1e-6 * math.Max(1, v)); gap.Cmp(tol) > 0 {
					t.Fatalf("case %d max=%v state %d: the strategy's cost %s, the optimum %s", i, max, s, own[s].FloatString(12), exact[s].FloatString(12))
				}
			}
		}
	}
	if checked < 1000 {
		t.Errorf("optimality checked on %d states, want at least 1000", checked)
	}
	t.Logf("optimality checked on %d states", checked)
}

// TestCostBoundsStrategyLoop: two states that may move to each other at
// no cost, or to the target at cost 1, from either. The least expected
// cost is 1 from both, and moving to the other state at no cost is as
// good by the bounds (0 + 1); the first candidate of each is that move,
// a loop that never reaches the target (infinite cost). The strategy
// must take the move to the target instead.
func TestCostBoundsStrategyLoop(t *testing.T) {
	one := big.NewRat(1, 1)
	to := func(s int) quant.Dist { return quant.Dist{{To: s, Prob: one}} }
	m := &quant.MDP{Choices: [][]quant.Dist{{to(1), to(2)}, {to(0), to(2)}, {to(2)}}, Init: []quant.Dist{to(0)}}
	target := []bool{false, false, true}
	cost := func(s, c int) *big.Rat { return big.NewRat(int64(c), 1) }
	iv, err := quant.ExpectCostInterval(context.Background(), m, cost, target, false, 1e-9, 1000)
	if err != nil {
		t.Fatal(err)
	}
	got := quant.CostBoundsStrategy(m, iv, cost, target, false)
	if want := []int{1, 1, 0}; !slices.Equal(got, want) {
		t.Errorf("strategy %v, want %v (bounds %v)", got, want, iv)
	}
}
