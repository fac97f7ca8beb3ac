package quant_test

import (
	"context"
	"math/big"
	"math/rand"
	"slices"
	"testing"

	"github.com/wrapcheck/wrapcheck/quant"
)

// randomMDP returns a small MDP with rational probabilities, and random
// left and target sets.
func randomMDP(r *rand.Rand) (*quant.MDP, []bool, []bool) {
	n := 2 + r.Intn(5)
	m := &quant.MDP{Choices: make([][]quant.Dist, n)}
	for s := range m.Choices {
		for c := 1 + r.Intn(3); c > 0; c-- {
			k := 1 + r.Intn(3)
			den := int64(1 + r.Intn(4))
			weights := make(map[int]int64)
			total := int64(0)
			for i := 0; i < k; i++ {
				w := 1 + r.Int63n(den)
				weights[r.Intn(n)] += w
				total += w
			}
			var d quant.Dist
			for to := 0; to < n; to++ {
				if w, ok := weights[to]; ok {
					d = append(d, quant.Trans{To: to, Prob: big.NewRat(w, total)})
				}
			}
			m.Choices[s] = append(m.Choices[s], d)
		}
	}
	left := make([]bool, n)
	target := make([]bool, n)
	for s := 0; s < n; s++ {
		left[s] = r.Intn(5) > 0
		target[s] = r.Intn(4) == 0
	}
	return m, left, target
}

// bruteReach returns, per state, the max (or min) over every memoryless
// deterministic scheduler of the probability of left until target, each
// scheduler's Markov chain solved on its own: states that cannot reach
// target have 0, the others a linear system with one solution.
func bruteReach(m *quant.MDP, left, target []bool, max bool) []*big.Rat {
	n := m.N()
	var best []*big.Rat
	pol := make([]int, n)
	for {
		v := chainReach(m, pol, left, target)
		if best == nil {
			best = v
		} else {
			for s := range v {
				if max && v[s].Cmp(best[s]) > 0 || !max && v[s].Cmp(best[s]) < 0 {
					best[s] = v[s]
				}
			}
		}
		i := 0
		for ; i < n; i++ {
			pol[i]++
			if pol[i] < len(m.Choices[i]) {
				break
			}
			pol[i] = 0
		}
		if i == n {
			return best
		}
	}
}

func chainReach(m *quant.MDP, pol []int, left, target []bool) []*big.Rat {
	n := m.N()
	pos := make([]bool, n)
	copy(pos, target)
	for changed := true; changed; {
		changed = false
		for s := 0; s < n; s++ {
			if pos[s] || !left[s] {
				continue
			}
			for _, t := range m.Choices[s][pol[s]] {
				if pos[t.To] {
					pos[s], changed = true, true
					break
				}
			}
		}
	}
	var vars []int
	idx := make([]int, n)
	for s := 0; s < n; s++ {
		idx[s] = -1
		if pos[s] && !target[s] {
			idx[s] = len(vars)
			vars = append(vars, s)
		}
	}
	k := len(vars)
	a := make([][]*big.Rat, k)
	for i, s := range vars {
		a[i] = make([]*big.Rat, k+1)
		for j := range a[i] {
			a[i][j] = new(big.Rat)
		}
		a[i][i].SetInt64(1)
		for _, t := range m.Choices[s][pol[s]] {
			if j := idx[t.To]; j >= 0 {
				a[i][j].Sub(a[i][j], t.Prob)
			} else if target[t.To] {
				a[i][k].Add(a[i][k], t.Prob)
			}
		}
	}
	// Gauss-Jordan.
	for c := 0; c < k; c++ {
		p := c
		for a[p][c].Sign() == 0 {
			p++
		}
		a[c], a[p] = a[p], a[c]
		inv := new(big.Rat).Inv(a[c][c])
		for j := range a[c] {
			a[c][j].Mul(a[c][j], inv)
		}
		for r := 0; r < k; r++ {
			if r != c && a[r][c].Sign() != 0 {
				f := new(big.Rat).Set(a[r][c])
				for j := range a[r] {
					a[r][j].Sub(a[r][j], new(big.Rat).Mul(f, a[c][j]))
				}
			}
		}
	}
	v := make([]*big.Rat, n)
	for s := 0; s < n; s++ {
		switch {
		case target[s]:
			v[s] = big.NewRat(1, 1)
		case idx[s] >= 0:
			v[s] = a[idx[s]][k]
		default:
			v[s] = new(big.Rat)
		}
	}
	return v
}

// TestReachBruteForce compares Reach with the brute-force reference on
// random small MDPs, for max and min.
func TestReachBruteForce(t *testing.T) {
	r := rand.New(rand.NewSource(36))
	for i := 0; i < 400; i++ {
		m, left, target := randomMDP(r)
		for _, max := range []bool{true, false} {
			got, err := quant.Reach(context.Background(), m, left, target, max, -1, quant.Options{})
			if err != nil {
				t.Fatalf("case %d: %v", i, err)
			}
			want := bruteReach(m, left, target, max)
			for s := range want {
				if got[s].Cmp(want[s]) != 0 {
					t.Fatalf("case %d max=%v state %d: got %s, want %s\nMDP %v\nleft %v target %v", i, max, s, got[s].RatString(), want[s].RatString(), m.Choices, left, target)
				}
			}
		}
	}
}

// TestBoundedConverges checks that bounded reachability with many steps
// approaches the unbounded value from below and never passes it.
func TestBoundedConverges(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	for i := 0; i < 100; i++ {
		m, left, target := randomMDP(r)
		for _, max := range []bool{true, false} {
			un, _ := quant.Reach(context.Background(), m, left, target, max, -1, quant.Options{})
			prev, _ := quant.Reach(context.Background(), m, left, target, max, 0, quant.Options{})
			for _, k := range []int64{1, 2, 5, 20} {
				b, _ := quant.Reach(context.Background(), m, left, target, max, k, quant.Options{})
				for s := range b {
					if b[s].Cmp(prev[s]) < 0 || b[s].Cmp(un[s]) > 0 {
						t.Fatalf("case %d max=%v state %d: within %d = %s, before %s, unbounded %s", i, max, s, k, b[s].RatString(), prev[s].RatString(), un[s].RatString())
					}
				}
				prev = b
			}
		}
	}
}

// TestIntervalEncloses checks that interval iteration encloses the exact
// value on random small MDPs, and that it reaches the width asked for
// (for max, through the quotient by the maximal end components).
func TestIntervalEncloses(t *testing.T) {
	r := rand.New(rand.NewSource(99))
	for i := 0; i < 300; i++ {
		m, left, target := randomMDP(r)
		for _, max := range []bool{true, false} {
			exact, err := quant.Reach(context.Background(), m, left, target, max, -1, quant.Options{})
			if err != nil {
				t.Fatal(err)
			}
			iv, err := quant.ReachInterval(context.Background(), m, left, target, max, 1e-9, 100000)
			if err != nil {
				t.Fatal(err)
			}
			for s := range exact {
				lo, hi := new(big.Rat).SetFloat64(iv[s].Lo), new(big.Rat).SetFloat64(iv[s].Hi)
				if lo.Cmp(exact[s]) > 0 || hi.Cmp(exact[s]) < 0 {
					t.Fatalf("case %d max=%v state %d: [%g, %g] misses %s", i, max, s, iv[s].Lo, iv[s].Hi, exact[s].RatString())
				}
				if iv[s].Hi-iv[s].Lo > 1e-9 {
					t.Errorf("case %d max=%v state %d: [%g, %g] wider than 1e-9", i, max, s, iv[s].Lo, iv[s].Hi)
				}
			}
		}
	}
}

// TestStrategyAttains checks, on random MDPs, that the strategy
// ReachStrategy returns attains its values: the Markov chain it makes
// (any choice where it has none) has the same values, exactly; and that
// it is the same on a second run.
func TestStrategyAttains(t *testing.T) {
	r := rand.New(rand.NewSource(3636))
	for i := 0; i < 400; i++ {
		m, left, target := randomMDP(r)
		for _, max := range []bool{true, false} {
			v, strategy, err := quant.ReachStrategy(context.Background(), m, left, target, max, quant.Options{})
			if err != nil {
				t.Fatalf("case %d: %v", i, err)
			}
			_, again, err := quant.ReachStrategy(context.Background(), m, left, target, max, quant.Options{})
			if err != nil || !slices.Equal(strategy, again) {
				t.Fatalf("case %d: strategy %v, then %v (%v)", i, strategy, again, err)
			}
			pol := make([]int, len(strategy))
			for s, c := range strategy {
				if c >= 0 {
					pol[s] = c
				}
			}
			got := chainReach(m, pol, left, target)
			for s := range v {
				if got[s].Cmp(v[s]) != 0 {
					t.Fatalf("case %d max=%v state %d: the strategy %v gives %s, the value is %s\nMDP %v\nleft %v target %v", i, max, s, strategy, got[s].RatString(), v[s].RatString(), m.Choices, left, target)
				}
			}
		}
	}
}
