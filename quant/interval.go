package quant

import (
	"context"
	"math"
	"math/big"
)

// An Interval is a sound enclosure of a probability: the value lies in
// [Lo, Hi]. Every operation that computed them was rounded outwards (Lo
// downwards, Hi upwards), so the enclosure holds despite floating point.
type Interval struct {
	Lo, Hi float64
}

// down and up return a float64 result of round-to-nearest moved one ulp
// down or up: the exact result lies between them (round-to-nearest errs by
// half an ulp at most), and they stay within [0, 1], where every
// probability lies.
func down(x float64) float64 { return math.Max(0, math.Nextafter(x, math.Inf(-1))) }
func up(x float64) float64   { return math.Min(1, math.Nextafter(x, math.Inf(1))) }

// ratDown and ratUp return r rounded down and up to a float64.
func ratDown(r *big.Rat) float64 {
	f, exact := r.Float64()
	if exact {
		return f
	}
	if new(big.Rat).SetFloat64(f).Cmp(r) > 0 {
		return math.Nextafter(f, math.Inf(-1))
	}
	return f
}

func ratUp(r *big.Rat) float64 {
	f, exact := r.Float64()
	if exact {
		return f
	}
	if new(big.Rat).SetFloat64(f).Cmp(r) < 0 {
		return math.Nextafter(f, math.Inf(1))
	}
	return f
}

// ReachInterval is [Reach] by interval iteration (Haddad and Monmege,
// Interval iteration algorithm for MDPs and IMDPs, TCS 2018; Baier,
// Klein, Leuschner, Parker and Wunderlich, CAV 2017): after the same
// qualitative precomputation, a lower bound iterated upwards from 0 and an
// upper bound downwards from 1 on the undecided states, in place (Gauss-
// Seidel), until every state's interval is at most eps wide, or maxIter
// sweeps. Every iterate is a sound bound, whatever the stopping point: the
// Bellman operator is monotone and the probability its least fixed point,
// and every sum and product is rounded outwards. For min the two bounds
// meet (no end component is left among the undecided states once the
// states of Pmin = 0 are removed); for max the upper bound is iterated on
// the quotient by the maximal end components among the undecided states
// (mecs), where they meet too.
func ReachInterval(ctx context.Context, m *MDP, left, target []bool, max bool, eps float64, maxIter int) ([]Interval, error) {
	n := m.N()
	if left == nil {
		left = make([]bool, n)
		for i := range left {
			left[i] = true
		}
	}
	var zero, one []bool
	if max {
		zero, one = prob0E(m, left, target), prob1E(ctx, m, left, target)
	} else {
		zero = prob0A(m, left, target)
		one = prob1A(m, left, target, zero)
	}
	if err := ctx.Err(); err != nil {
		return nil, err // prob1E stopped early
	}
	lo := make([]float64, n)
	hi := make([]float64, n)
	var maybe []int
	for s := 0; s < n; s++ {
		switch {
		case target[s] || one[s]:
			lo[s], hi[s] = 1, 1
		case zero[s]:
		default:
			hi[s] = 1
			maybe = append(maybe, s)
		}
	}
	// Each choice's distribution as arrays, its probabilities rounded
	// down and up once.
	type choice struct {
		to       []int
		pLo, pHi []float64
	}
	cs := make([][]choice, n)
	for _, s := range maybe {
		for _, d := range m.Choices[s] {
			var c choice
			for _, tr := range d {
				c.to = append(c.to, tr.To)
				c.pLo = append(c.pLo, ratDown(tr.Prob))
				c.pHi = append(c.pHi, ratUp(tr.Prob))
			}
			cs[s] = append(cs[s], c)
		}
	}
	// For max, the upper bound runs on the quotient by the maximal end
	// components among the undecided states: a component's value is its
	// best choice that leaves it (staying forever reaches no target), so
	// every member takes the best exit of all of them.
	var mec []int
	var stay [][]bool
	var exits []float64
	if max {
		set := make([]bool, n)
		for _, s := range maybe {
			set[s] = true
		}
		var k int
		mec, stay, k = mecs(m, set)
		exits = make([]float64, k)
	}
	for iter := 0; iter < maxIter && len(maybe) > 0; iter++ {
		if iter%16 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		done := true
		for i := range exits {
			exits[i] = 0
		}
		for _, s := range maybe {
			bl, bh := math.NaN(), math.NaN()
			inMEC := mec != nil && mec[s] >= 0
			for ci, c := range cs[s] {
				l, h := 0.0, 0.0
				for i, t := range c.to {
					l = down(l + down(c.pLo[i]*lo[t]))
					h = up(h + up(c.pHi[i]*hi[t]))
				}
				if math.IsNaN(bl) || max && l > bl || !max && l < bl {
					bl = l
				}
				if inMEC {
					if !stay[s][ci] {
						exits[mec[s]] = math.Max(exits[mec[s]], h)
					}
					continue
				}
				if math.IsNaN(bh) || max && h > bh || !max && h < bh {
					bh = h
				}
			}
			// Monotone: keep the better of the old and the new bound.
			lo[s] = math.Max(lo[s], bl)
			if !inMEC {
				hi[s] = math.Min(hi[s], bh)
			}
		}
		for _, s := range maybe {
			if mec != nil && mec[s] >= 0 {
				hi[s] = math.Min(hi[s], exits[mec[s]])
			}
			if hi[s]-lo[s] > eps {
				done = false
			}
		}
		if done {
			break
		}
	}
	out := make([]Interval, n)
	for s := range out {
		out[s] = Interval{Lo: lo[s], Hi: hi[s]}
	}
	return out, nil
}

// initialInterval is [initial] over intervals.
func initialInterval(init []Dist, v []Interval, max bool) Interval {
	bl, bh := math.NaN(), math.NaN()
	for _, d := range init {
		l, h := 0.0, 0.0
		for _, tr := range d {
			l = down(l + down(ratDown(tr.Prob)*v[tr.To].Lo))
			h = up(h + up(ratUp(tr.Prob)*v[tr.To].Hi))
		}
		if math.IsNaN(bl) || max && l > bl || !max && l < bl {
			bl = l
		}
		if math.IsNaN(bh) || max && h > bh || !max && h < bh {
			bh = h
		}
	}
	if math.IsNaN(bl) {
		return Interval{}
	}
	return Interval{Lo: bl, Hi: bh}
}
