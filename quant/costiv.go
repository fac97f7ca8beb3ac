package quant

import (
	"context"
	"math"
	"math/big"
	"slices"
)

// ExpectCostInterval is [ExpectCost] by interval iteration, for the
// models past exact mode: sound lower and upper bounds in float64 on
// every state's least (max false) or greatest expected cost until
// target, each [Interval] enclosing the value; an infinite value (target
// missed with positive probability, decided by the same precomputation
// as [ExpectCost]) is [+Inf, +Inf]. The finite states are solved one
// strongly connected component at a time, bottom up, as in
// [ReachInterval]: the lower bounds iterated upwards from 0, the upper
// bounds, which start at +Inf and which no sweep lowers on a cycle,
// from a certified guess (see "Expected costs past exact mode" in the
// package documentation). The sweeps of a component stop when every
// interval is at most eps/2 times max(1, its lower end) wide, or a sweep
// changes nothing, or after maxIter sweeps, or, once both bounds are
// certified, after 200 sweeps. Where the certificate fails (a component
// whose band is too wide for the solver, or whose systems float64
// cannot solve), guessCost tries upper bounds from the lower ones after
// 128, 256, 512... sweeps; where that fails too, the upper bound stays
// +Inf: sound, and no value is claimed.
//
// When ctx ends during the iteration, ExpectCostInterval returns the
// bounds reached with ctx.Err() (those of the components not reached
// yet are [0, +Inf]); when it ends before, nil.
func ExpectCostInterval(ctx context.Context, m *MDP, cost func(s, c int) *big.Rat, target []bool, max bool, eps float64, maxIter int) ([]Interval, error) {
	finite, err := costFinite(ctx, m, target, max)
	if err != nil {
		return nil, err
	}
	n := m.N()
	lo, hi, set := costStart(target, finite)
	if slices.Contains(set, true) {
		q, qc, rep, qset := costQuotient(m, cost, set, finite, max)
		it := buildIterator(q, qset, max, qc)
		err = it.solve(ctx, lo, hi, eps, maxIter)
		for s, r := range rep {
			lo[s], hi[s] = lo[r], hi[r]
		}
	}
	out := make([]Interval, n)
	for s := range out {
		out[s] = Interval{Lo: lo[s], Hi: hi[s]}
	}
	return out, err
}

// costStart returns the first bounds of [ExpectCostInterval]: [0, 0] on
// target, [+Inf, +Inf] on the states of infinite cost, [0, +Inf] on the
// others, the states to solve (set).
func costStart(target, finite []bool) (lo, hi []float64, set []bool) {
	n := len(target)
	lo, hi, set = make([]float64, n), make([]float64, n), make([]bool, n)
	for s := 0; s < n; s++ {
		switch {
		case target[s]:
		case finite[s]:
			hi[s], set[s] = math.Inf(1), true
		default:
			lo[s], hi[s] = math.Inf(1), math.Inf(1)
		}
	}
	return lo, hi, set
}

// costFinite returns the states of finite expected cost: for max those
// of Pmin = 1, for min those of Pmax = 1 (see [ExpectCost]).
func costFinite(ctx context.Context, m *MDP, target []bool, max bool) ([]bool, error) {
	all := orAll(nil, m.N())
	var finite []bool
	if max {
		finite = prob1A(m, all, target, prob0A(m, all, target))
	} else {
		finite = prob1E(ctx, m, all, target)
	}
	if err := ctx.Err(); err != nil {
		return nil, err // prob1E stopped early
	}
	return finite, nil
}

// costQuotient returns the MDP that [ExpectCostInterval] solves over the
// states of set (finite, outside target): their choices that stay among
// the finite states (for max, all), with costs qc, and, for min, each
// end component of zero cost collapsed into one state. rep[s] is the
// state that stands for s (s itself outside such a component), and qset
// the states of set that stand for themselves. The other states keep no
// choice.
//
// For min, a maximal end component C of the choices of zero cost that
// stay among the finite states becomes its first state: its choices are
// those of C's states except the choices of zero cost that stay in C,
// and every move into C moves to it. The least expected cost over the
// proper schedulers is the same on every state of C (a proper scheduler
// may first move within C, at no cost, to any state of C, from which it
// reaches with probability 1), and it is the least over the choices
// that leave C or cost something; so the quotient has the same values,
// and no end component of zero cost.
func costQuotient(m *MDP, cost func(s, c int) *big.Rat, set, finite []bool, max bool) (q *MDP, qc [][]*big.Rat, rep []int, qset []bool) {
	n := m.N()
	rep = make([]int, n)
	for s := range rep {
		rep[s] = s
	}
	qset = slices.Clone(set)
	// members[r] lists the states that r stands for (nil: r alone);
	// inner[s][c] marks the choices dropped, of zero cost within C
	members := map[int][]int{}
	inner := make([][]bool, n)
	if !max {
		z := &MDP{Choices: make([][]Dist, n)}
		zc := make([][]int, n) // z's choice i of s is m's zc[s][i]
		for s := 0; s < n; s++ {
			if !set[s] {
				continue
			}
			for c, d := range m.Choices[s] {
				if within(d, finite) && cost(s, c).Sign() == 0 {
					z.Choices[s] = append(z.Choices[s], d)
					zc[s] = append(zc[s], c)
				}
			}
		}
		mec, stay, _ := mecs(z, set)
		first := map[int]int{}
		for s := 0; s < n; s++ {
			if mec[s] < 0 {
				continue
			}
			r, ok := first[mec[s]]
			if !ok {
				r = s
				first[mec[s]] = s
			}
			rep[s] = r
			members[r] = append(members[r], s)
			if r != s {
				qset[s] = false
			}
			inner[s] = make([]bool, len(m.Choices[s]))
			for i, c := range zc[s] {
				inner[s][c] = stay[s][i]
			}
		}
	}
	q = &MDP{Choices: make([][]Dist, n)}
	qc = make([][]*big.Rat, n)
	for s := 0; s < n; s++ {
		if !qset[s] {
			continue
		}
		from := members[s]
		if from == nil {
			from = []int{s}
		}
		for _, t := range from {
			for c, d := range m.Choices[t] {
				if !max && !within(d, finite) || inner[t] != nil && inner[t][c] {
					continue
				}
				q.Choices[s] = append(q.Choices[s], redirect(d, rep))
				qc[s] = append(qc[s], cost(t, c))
			}
		}
	}
	return q, qc, rep, qset
}

// redirect returns d with each move to t moving to rep[t] instead, the
// probabilities of one state summed, in increasing order of state.
func redirect(d Dist, rep []int) Dist {
	out := make(Dist, 0, len(d))
	for _, t := range d {
		out = append(out, Trans{To: rep[t.To], Prob: t.Prob})
	}
	sortDist(out)
	merged := out[:0]
	for _, t := range out {
		if k := len(merged); k > 0 && merged[k-1].To == t.To {
			merged[k-1].Prob = new(big.Rat).Add(merged[k-1].Prob, t.Prob)
			continue
		}
		merged = append(merged, t)
	}
	return merged
}

// sweepCost is [iterator.sweep] for expected costs: each choice's sum is
// its cost plus the products of its probabilities and the successors'
// bounds, the best over the choices widened once outwards; an interval
// is wide when it is more than eps times max(1, its lower end) wide.
func (it *iterator) sweepCost(a, b int, lo, hi []float64, eps float64) (changed, wide bool) {
	for i := a; i < b; i++ {
		s := it.states[i]
		var bl, bh float64
		for j := it.first[i]; j < it.first[i+1]; j++ {
			l, h := it.cLo[j], it.cHi[j]
			for x := it.at[j]; x < it.at[j+1]; x++ {
				t := it.to[x]
				l += it.pLo[x] * lo[t]
				h += it.pHi[x] * hi[t]
			}
			if j == it.first[i] || it.max == (l > bl) && l != bl {
				bl = l
			}
			if j == it.first[i] || it.max == (h > bh) && h != bh {
				bh = h
			}
		}
		if l := widenCostDown(bl, it.fLo[i]); l > lo[s] {
			lo[s], changed = l, true
		}
		if h := widenCostUp(bh, it.fHi[i]); h < hi[s] {
			hi[s], changed = h, true
		}
		if !(hi[s]-lo[s] <= eps*math.Max(1, lo[s])) {
			wide = true
		}
	}
	return changed, wide
}

// widenCostDown and widenCostUp are widenDown and widenUp for sums of
// non-negative terms not bounded by 1 (expected costs): the same
// widening and underflow rule, no clamp at 1; a sum that overflowed
// (+Inf) gives no lower bound (0) and stays an upper one.
func widenCostDown(x, f float64) float64 {
	if x < tiny || !(x < math.Inf(1)) {
		return 0
	}
	return x * f
}

func widenCostUp(x, f float64) float64 {
	if x < tiny {
		return 2 * tiny
	}
	return x * f
}

// initialCostInterval is [initialCost] over intervals: an initial
// distribution that reaches a state of infinite cost (lower end +Inf)
// costs +Inf; the sums are rounded outwards, one ulp a step.
func initialCostInterval(init []Dist, v []Interval, max bool) Interval {
	inf := math.Inf(1)
	var best *Interval
	for _, d := range init {
		l, h := 0.0, 0.0
		for _, tr := range d {
			if tr.Prob.Sign() == 0 {
				continue
			}
			if math.IsInf(v[tr.To].Lo, 1) {
				l, h = inf, inf
				break
			}
			l = math.Max(0, math.Nextafter(l+math.Max(0, math.Nextafter(ratDown(tr.Prob)*v[tr.To].Lo, -inf)), -inf))
			h = math.Nextafter(h+math.Nextafter(ratUp(tr.Prob)*v[tr.To].Hi, inf), inf)
		}
		if math.IsInf(l, 1) || math.IsNaN(l) {
			l = inf
		}
		if math.IsNaN(h) {
			h = inf
		}
		if best == nil {
			best = &Interval{Lo: l, Hi: h}
			continue
		}
		if max {
			best.Lo, best.Hi = math.Max(best.Lo, l), math.Max(best.Hi, h)
		} else {
			best.Lo, best.Hi = math.Min(best.Lo, l), math.Min(best.Hi, h)
		}
	}
	if best == nil {
		return Interval{}
	}
	return *best
}

// guessCost tries, for the component states[a:b] of expected costs whose
// upper bounds the certificate left infinite (its band too wide for the
// solver, or its systems beyond float64), upper bounds from the lower
// ones, as optimistic value iteration does (Hartmanns and Kaminski, CAV
// 2020): once value iteration's lower bounds l are near the values, u =
// (1 + eta) l passes the upper check (B(u) <= u, over all choices for
// max, over the choices sigma that attain min over l for min, sigma
// checked proper: "Expected costs past exact mode" in the package
// documentation), and eta c is its slack on a choice of cost c. It tries
// eta from 2^-30 to 2^-10 and reports whether a bound passed.
func (it *iterator) guessCost(a, b int, lo, hi []float64) bool {
	c := &local{it: it, a: a, k: b - a}
	x0 := make([]float64, c.k)
	for i := range x0 {
		x0[i] = lo[it.states[a+i]]
	}
	var sigma []int32
	if !it.max {
		sd := it.side(false, lo)
		sigma = make([]int32, c.k)
		for i := range sigma {
			best := math.Inf(1)
			for j := it.first[a+i]; j < it.first[a+i+1]; j++ {
				if e := c.expect(j, x0, sd, 0); e < best {
					best, sigma[i] = e, j-it.first[a+i]
				}
			}
		}
		if !c.proper(sigma) {
			return false
		}
	}
	x := make([]float64, c.k)
	for eta := 0x1p-30; eta <= 0x1p-10; eta *= 4 {
		scaleTo(x, x0, 1+eta)
		if c.commit(x, hi, true, sigma) {
			return true
		}
	}
	return false
}
