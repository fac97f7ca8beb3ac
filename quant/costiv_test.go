package quant_test

import (
	"context"
	"math"
	"math/big"
	"math/rand"
	"os"
	"path/filepath"
	"testing"

	"github.com/wrapcheck/wrapcheck/quant"
	"github.com/wrapcheck/wrapcheck/spec"
)

// randomCosts returns costs for m's choices: 0 half the time (end
// components of zero cost, which interval iteration must collapse for
// min), else 1 to 3, or, on a fifth of the MDPs, up to 10^6 (values far
// from [0, 1]).
func randomCosts(r *rand.Rand, m *quant.MDP) func(s, c int) *big.Rat {
	big6 := r.Intn(5) == 0
	cost := make([][]*big.Rat, m.N())
	for s := range cost {
		for range m.Choices[s] {
			var x int64
			if r.Intn(2) == 0 {
				x = 1 + r.Int63n(3)
				if big6 {
					x = 1 + r.Int63n(1_000_000)
				}
			}
			cost[s] = append(cost[s], big.NewRat(x, int64(1+r.Intn(3))))
		}
	}
	return func(s, c int) *big.Rat { return cost[s][c] }
}

// costCase returns the MDP and the target of case i of the tests of
// expected costs on random MDPs: in turn a small one, a wider one and a
// Haddad-Monmege walk (walk).
func costCase(r *rand.Rand, i int) (m *quant.MDP, target []bool, walk bool) {
	switch i % 3 {
	case 0:
		m, _, target = randomMDP(r)
	case 1:
		m, _, target = wideRandomMDP(r)
	default:
		m, _, target = quant.HaddadWalk(r, 12)
		walk = true
	}
	return m, target, walk
}

// TestCostIntervalEnclosesExact compares ExpectCostInterval's bounds
// with the exact values of ExpectCost (policy iteration over big.Rat) on
// random MDPs, small and wider ones and Haddad-Monmege walks, with zero
// costs (end components of zero cost) and states of infinite cost, for
// min and max: every bound must enclose the exact value, an infinite
// value must be [+Inf, +Inf] and a finite one certified (its upper end
// finite) and, off the walks, at most 1e-9 times max(1, value) wide.
// It fails without the collapse of the zero-cost end components (the
// lower bounds of min stay below the value there) and without the
// widening of the cost sums.
func TestCostIntervalEnclosesExact(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewSource(3636))
	certified, finite := 0, 0
	for i := 0; i < 600; i++ {
		m, target, walk := costCase(r, i)
		cost := randomCosts(r, m)
		for _, max := range []bool{true, false} {
			exact, err := quant.ExpectCost(ctx, m, cost, target, max, quant.Options{})
			if err != nil {
				t.Fatalf("case %d: %v", i, err)
			}
			iv, err := quant.ExpectCostInterval(ctx, m, cost, target, max, 1e-12, 200000)
			if err != nil {
				t.Fatal(err)
			}
			for s := range exact {
				lo, hi := iv[s].Lo, iv[s].Hi
				if exact[s] == nil {
					if !math.IsInf(lo, 1) || !math.IsInf(hi, 1) {
						t.Fatalf("case %d max=%v state %d: [%g, %g] for an infinite value", i, max, s, lo, hi)
					}
					continue
				}
				finite++
				if math.IsInf(lo, 0) || new(big.Rat).SetFloat64(lo).Cmp(exact[s]) > 0 {
					t.Fatalf("case %d max=%v state %d: lower bound %g above %s", i, max, s, lo, exact[s].FloatString(20))
				}
				if math.IsInf(hi, 1) {
					continue // not certified: sound, no value claimed
				}
				certified++
				if new(big.Rat).SetFloat64(hi).Cmp(exact[s]) < 0 {
					t.Fatalf("case %d max=%v state %d: upper bound %g below %s", i, max, s, hi, exact[s].FloatString(20))
				}
				v, _ := exact[s].Float64()
				if !walk && hi-lo > 1e-9*math.Max(1, v) {
					t.Errorf("case %d max=%v state %d: [%g, %g] wider than 1e-9 of %g", i, max, s, lo, hi, v)
				}
			}
		}
	}
	if certified*100 < finite*99 {
		t.Errorf("upper bounds certified on %d of %d finite values, want 99 in 100", certified, finite)
	}
	t.Logf("%d finite values, %d with a certified upper bound", finite, certified)
}

// TestCostBoxInterval checks the expected verifier calls of
// examples/pipeline/rates.wrap (counts: the range over the confidence
// box, and the sensitivity to each measured rate) by interval iteration
// against exact mode: every value, every end of the box and of each
// sensitivity's range enclosed by its bounds, which exact mode leaves
// nil.
func TestCostBoxInterval(t *testing.T) {
	path := filepath.Join("..", "examples", "pipeline", "rates.wrap")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, family := range []int64{0, 1} {
		m, err := spec.ParseFile(path, src, spec.Options{Defines: map[string]int64{"HONEST": 1, "FAMILY": family}})
		if err != nil {
			t.Fatal(err)
		}
		opts := quant.Options{Only: []string{"Calls"}, Sensitivity: true}
		exact, err := quant.Check(context.Background(), m, opts)
		if err != nil {
			t.Fatal(err)
		}
		opts.Interval = true
		iv, err := quant.Check(context.Background(), m, opts)
		if err != nil {
			t.Fatal(err)
		}
		e, b := exact.Expectations[0], iv.Expectations[0]
		encloses := func(what string, bd *quant.Interval, r *big.Rat) {
			t.Helper()
			if bd == nil || r == nil || new(big.Rat).SetFloat64(bd.Lo).Cmp(r) > 0 || new(big.Rat).SetFloat64(bd.Hi).Cmp(r) < 0 {
				t.Errorf("family %d %s: %+v does not enclose %v", family, what, bd, r)
			}
		}
		encloses("E_min", b.MinBounds, e.Min)
		encloses("E_max", b.MaxBounds, e.Max)
		if e.Box == nil || b.Box == nil {
			t.Fatalf("family %d: no box", family)
		}
		encloses("box min", b.Box.LoBounds, e.Box.Lo)
		encloses("box max", b.Box.HiBounds, e.Box.Hi)
		if len(e.Sensitivity) == 0 || len(e.Sensitivity) != len(b.Sensitivity) {
			t.Fatalf("family %d: %d and %d sensitivities", family, len(e.Sensitivity), len(b.Sensitivity))
		}
		// matched by rate: ties may rank otherwise by the bounds' widths
		byRate := map[*spec.Rate]quant.Sensitivity{}
		for _, bs := range b.Sensitivity {
			byRate[bs.Rate] = bs
		}
		for _, es := range e.Sensitivity {
			bs, ok := byRate[es.Rate]
			if !ok {
				t.Fatalf("family %d: no sensitivity to %v by interval iteration", family, es.Rate)
			}
			encloses("sensitivity min", bs.Box.LoBounds, es.Box.Lo)
			encloses("sensitivity max", bs.Box.HiBounds, es.Box.Hi)
		}
	}
}
