package quant_test

import (
	"context"
	"math/big"
	"math/rand"
	"testing"

	"github.com/wrapcheck/wrapcheck/quant"
)

// TestIntervalEnclosesExact compares the bounds of interval iteration
// with the exact values of policy iteration over big.Rat on random MDPs
// bigger than TestIntervalEncloses's, on chains whose probabilities
// underflow float64, and on Haddad-Monmege walks
// (bench/prism/haddad_monmege.pm) with a scheduler added, built to defeat
// value iteration: every bound must enclose the exact value, and outside
// the walks (where the bounds meet too slowly by design) be at most 1e-9
// wide.
func TestIntervalEnclosesExact(t *testing.T) {
	r := rand.New(rand.NewSource(3617))
	for i := 0; i < 400; i++ {
		var m *quant.MDP
		var left, target []bool
		walk, eps := false, 1e-9
		switch i % 4 {
		case 0, 1:
			m, left, target = wideRandomMDP(r)
		case 2:
			// eps 0: on until a sweep changes nothing, into the
			// values below float64's range
			m, left, target = underflowChain(r)
			eps = 0
		default:
			m, left, target = quant.HaddadWalk(r, 12)
			walk = true
		}
		for _, max := range []bool{true, false} {
			exact, err := quant.Reach(context.Background(), m, left, target, max, -1, quant.Options{})
			if err != nil {
				t.Fatalf("case %d: %v", i, err)
			}
			iv, err := quant.ReachInterval(context.Background(), m, left, target, max, eps, 200000)
			if err != nil {
				t.Fatal(err)
			}
			for s := range exact {
				lo, hi := new(big.Rat).SetFloat64(iv[s].Lo), new(big.Rat).SetFloat64(iv[s].Hi)
				if lo.Cmp(exact[s]) > 0 || hi.Cmp(exact[s]) < 0 {
					t.Fatalf("case %d max=%v state %d: [%g, %g] misses %s", i, max, s, iv[s].Lo, iv[s].Hi, exact[s].FloatString(20))
				}
				if !walk && iv[s].Hi-iv[s].Lo > 1e-9 {
					t.Errorf("case %d max=%v state %d: [%g, %g] wider than 1e-9", i, max, s, iv[s].Lo, iv[s].Hi)
				}
			}
		}
	}
}

// wideRandomMDP is an MDP of 5 to 40 states, 1 to 3 choices each, up to
// 6 successors per choice, weights 1 to 9 (probabilities near 1/1000
// make cycles that leak so slowly that no iteration converges in the
// test's time: the underflowing chains test the tiny probabilities).
func wideRandomMDP(r *rand.Rand) (*quant.MDP, []bool, []bool) {
	n := 5 + r.Intn(36)
	m := &quant.MDP{Choices: make([][]quant.Dist, n)}
	for s := range m.Choices {
		for c := 1 + r.Intn(3); c > 0; c-- {
			weights := make(map[int]int64)
			total := int64(0)
			for k := 1 + r.Intn(6); k > 0; k-- {
				w := 1 + r.Int63n(9)
				to := r.Intn(n)
				if r.Intn(3) == 0 {
					to = (s + 1) % n // long cycles
				}
				weights[to] += w
				total += w
			}
			m.Choices[s] = append(m.Choices[s], dist(n, weights, total))
		}
	}
	left := make([]bool, n)
	target := make([]bool, n)
	for s := 0; s < n; s++ {
		left[s] = r.Intn(8) > 0
		target[s] = r.Intn(6) == 0
	}
	return m, left, target
}

func dist(n int, weights map[int]int64, total int64) quant.Dist {
	var d quant.Dist
	for to := 0; to < n; to++ {
		if w, ok := weights[to]; ok {
			d = append(d, quant.Trans{To: to, Prob: big.NewRat(w, total)})
		}
	}
	return d
}

// underflowChain is a chain 0 → 1 → ... → k (the target) where each step
// goes on with probability 2^-50 (a second choice with 2^-49, then
// back) and otherwise falls into a sink: the values, down to 2^-1250,
// are below the float64 range.
func underflowChain(r *rand.Rand) (*quant.MDP, []bool, []bool) {
	k := 5 + r.Intn(21)
	n := k + 2
	sink := k + 1
	m := &quant.MDP{Choices: make([][]quant.Dist, n)}
	tiny := new(big.Rat).SetFrac(big.NewInt(1), new(big.Int).Lsh(big.NewInt(1), 50))
	rest := new(big.Rat).Sub(big.NewRat(1, 1), tiny)
	for s := 0; s < k; s++ {
		m.Choices[s] = append(m.Choices[s], quant.Dist{{To: s + 1, Prob: tiny}, {To: sink, Prob: rest}})
		if s > 0 && r.Intn(2) == 0 {
			twice := new(big.Rat).Add(tiny, tiny)
			m.Choices[s] = append(m.Choices[s], quant.Dist{{To: s - 1, Prob: twice}, {To: sink, Prob: new(big.Rat).Sub(big.NewRat(1, 1), twice)}})
		}
	}
	m.Choices[k] = []quant.Dist{{{To: k, Prob: big.NewRat(1, 1)}}}
	m.Choices[sink] = []quant.Dist{{{To: sink, Prob: big.NewRat(1, 1)}}}
	left := make([]bool, n)
	target := make([]bool, n)
	for s := range left {
		left[s] = true
	}
	target[k] = true
	return m, left, target
}
