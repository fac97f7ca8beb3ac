package quant_test

import (
	"context"
	"math/big"
	"math/rand"
	"strings"
	"testing"

	"github.com/wrapcheck/wrapcheck/quant"
	"github.com/wrapcheck/wrapcheck/spec"
)

// chainCost returns, per state, the expected cost until target under
// the memoryless deterministic policy pol, nil where target is reached
// with probability less than 1.
func chainCost(m *quant.MDP, pol []int, cost [][]int64, target []bool) []*big.Rat {
	n := m.N()
	all := make([]bool, n)
	for i := range all {
		all[i] = true
	}
	p := chainReach(m, pol, all, target)
	one := big.NewRat(1, 1)
	var vars []int
	idx := make([]int, n)
	for s := 0; s < n; s++ {
		idx[s] = -1
		if !target[s] && p[s].Cmp(one) == 0 {
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
		a[i][k].SetInt64(cost[s][pol[s]])
		for _, t := range m.Choices[s][pol[s]] {
			if j := idx[t.To]; j >= 0 {
				a[i][j].Sub(a[i][j], t.Prob)
			}
		}
	}
	for c := 0; c < k; c++ {
		r := c
		for a[r][c].Sign() == 0 {
			r++
		}
		a[c], a[r] = a[r], a[c]
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
			v[s] = new(big.Rat)
		case idx[s] >= 0:
			v[s] = a[idx[s]][k]
		}
	}
	return v
}

// TestExpectCostBruteForce compares ExpectCost with every memoryless
// deterministic scheduler of random small MDPs with costs 0 to 3 (zero
// costs make the end components that break naive policy iteration for
// min): max is infinite if some scheduler misses target, min is the
// least over the schedulers that reach it with probability 1.
func TestExpectCostBruteForce(t *testing.T) {
	r := rand.New(rand.NewSource(37))
	for i := 0; i < 400; i++ {
		m, _, target := randomMDP(r)
		n := m.N()
		cost := make([][]int64, n)
		for s := range cost {
			for range m.Choices[s] {
				cost[s] = append(cost[s], r.Int63n(4))
			}
		}
		cf := func(s, c int) *big.Rat { return big.NewRat(cost[s][c], 1) }
		for _, max := range []bool{true, false} {
			got, err := quant.ExpectCost(context.Background(), m, cf, target, max, quant.Options{})
			if err != nil {
				t.Fatalf("case %d: %v", i, err)
			}
			want := make([]*big.Rat, n)
			inf := make([]bool, n)
			pol := make([]int, n)
			for {
				v := chainCost(m, pol, cost, target)
				for s := 0; s < n; s++ {
					switch {
					case max && v[s] == nil:
						inf[s] = true
					case v[s] == nil:
					case want[s] == nil || max && v[s].Cmp(want[s]) > 0 || !max && v[s].Cmp(want[s]) < 0:
						want[s] = v[s]
					}
				}
				j := 0
				for ; j < n; j++ {
					pol[j]++
					if pol[j] < len(m.Choices[j]) {
						break
					}
					pol[j] = 0
				}
				if j == n {
					break
				}
			}
			for s := 0; s < n; s++ {
				if inf[s] {
					want[s] = nil
				}
				switch {
				case (got[s] == nil) != (want[s] == nil):
					t.Fatalf("case %d max=%v state %d: got %v, want %v\nMDP %v target %v costs %v", i, max, s, got[s], want[s], m.Choices, target, cost)
				case got[s] != nil && got[s].Cmp(want[s]) != 0:
					t.Fatalf("case %d max=%v state %d: got %s, want %s\nMDP %v target %v costs %v", i, max, s, got[s].RatString(), want[s].RatString(), m.Choices, target, cost)
				}
			}
		}
	}
}

// TestExpectationsInSpecs checks expected costs of specs against values
// derived by hand: a retry loop (1 + p + p², p = 1/3), a state cost, an
// infinite cost, min and max over a chaotic choice, and the range over
// the confidence box.
func TestExpectationsInSpecs(t *testing.T) {
	src := `spec E
var tries: 0..3
var done: bool
var failed: bool
agent verifier(): bool
rate verifier { true: 1/3; false: 2/3 }
agent lazy(): bool
action verify when not done and tries < 3 {
  let flagged = ask verifier()
  tries := tries + 1
  done := not flagged
}
action give_up when not done and tries == 3 { failed := true; done := true }
action skip when not done and tries == 0 { let l = ask lazy(); if l { done := true; failed := true } }
cost calls { verify: 1 }
cost steps { when not done: 1 }
expected Calls: calls until done
expected Steps: steps until done
expected Never: calls until failed
`
	m, err := spec.ParseFile("e.wrap", []byte(src), spec.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := quant.Check(context.Background(), m, quant.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][2]string{}
	for _, r := range res.Expectations {
		str := func(v *big.Rat, inf bool) string {
			if inf {
				return "inf"
			}
			return v.RatString()
		}
		got[r.Expectation.Name] = [2]string{str(r.Min, r.MinInf), str(r.Max, r.MaxInf)}
	}
	// skip may finish at once (0 calls, 1 step) or loop back to itself
	// (lazy answers false: the state does not change).
	want := map[string][2]string{
		"Calls": {"0", "inf"},
		"Steps": {"1", "inf"},
		"Never": {"0", "inf"},
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s = %v, want %v", k, got[k], w)
		}
	}
	// Without skip: 13/9 calls, 40/27 steps, failed reached with 1/27.
	m2, err := spec.ParseFile("e.wrap", []byte(src[:strings.Index(src, "action skip")]+src[strings.Index(src, "cost calls"):]), spec.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err = quant.Check(context.Background(), m2, quant.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Expectations {
		w := map[string]string{"Calls": "13/9", "Steps": "40/27"}[r.Expectation.Name]
		if w == "" {
			if !r.MinInf || !r.MaxInf {
				t.Errorf("%s: want infinite, got %v %v", r.Expectation.Name, r.Min, r.Max)
			}
			continue
		}
		if r.Min.RatString() != w || r.Max.RatString() != w {
			t.Errorf("%s = %s..%s, want %s", r.Expectation.Name, r.Min.RatString(), r.Max.RatString(), w)
		}
	}
}
