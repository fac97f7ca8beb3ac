package quant

import (
	"context"
	"math"
	"math/big"
	"slices"
)

// An Interval is a sound enclosure of a probability or an expected cost:
// the value lies in [Lo, Hi] (for a cost, Hi +Inf where no upper bound
// was certified, and [+Inf, +Inf] for an infinite one). Every operation that computed them was rounded outwards (Lo
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
// upper bound downwards from 1 on the undecided states. The undecided
// states are solved one strongly connected component at a time, bottom
// up (topological interval iteration): the components a component moves
// to are solved before it, so an acyclic part takes one update per state.
// Within a component the bounds are updated in place (Gauss-Seidel) until
// every state's interval is at most eps/2 wide, or a sweep changes
// nothing, or maxIter sweeps (maxIter <= 0: no limit but ctx). Every
// iterate is a sound bound, whatever the stopping point: the Bellman
// operator is monotone and the probability its least fixed point, and
// each state update is widened outwards by a proven bound on its
// floating-point error (see "Interval iteration in floating point" in the
// package documentation). For min the two bounds meet (no end component
// is left among the undecided states once the states of Pmin = 0 are
// removed); for max the upper bound is iterated on the quotient by the
// maximal end components among the undecided states (mecs), where they
// meet too.
//
// When ctx ends during the iteration, ReachInterval returns the bounds
// reached with ctx.Err(): sound, as at every point of the iteration, but
// wider than eps (those of the components not reached yet are [0, 1]);
// when it ends before (during the precomputation), nil.
func ReachInterval(ctx context.Context, m *MDP, left, target []bool, max bool, eps float64, maxIter int) ([]Interval, error) {
	lo, hi, set, err := intervalStart(ctx, m, left, target, max)
	if err != nil {
		return nil, err
	}
	if slices.Contains(set, true) {
		it := newIterator(m, set, max)
		err = it.solve(ctx, lo, hi, eps, maxIter)
	}
	out := make([]Interval, len(lo))
	for s := range out {
		out[s] = Interval{Lo: lo[s], Hi: hi[s]}
	}
	return out, err
}

// intervalStart runs the qualitative precomputation of [ReachInterval]
// and returns the first bounds: [1, 1] on the states of value 1, [0, 0]
// on those of value 0, [0, 1] on the others, the undecided states (set).
func intervalStart(ctx context.Context, m *MDP, left, target []bool, max bool) (lo, hi []float64, set []bool, err error) {
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
		return nil, nil, nil, err // prob1E stopped early
	}
	lo = make([]float64, n)
	hi = make([]float64, n)
	set = make([]bool, n)
	for s := 0; s < n; s++ {
		switch {
		case target[s] || one[s]:
			lo[s], hi[s] = 1, 1
		case zero[s]:
		default:
			hi[s] = 1
			set[s] = true
		}
	}
	return lo, hi, set, nil
}

// An iterator holds the undecided states of interval iteration in
// compressed sparse rows, ordered by strongly connected component,
// bottom up: the sweeps touch flat arrays and allocate nothing.
type iterator struct {
	max bool
	// states in solving order; comps[i]:comps[i+1] is the i-th component
	// (a range of states)
	states []int32
	comps  []int32
	// first[i]:first[i+1] are the choices of states[i]; a choice j has
	// the transitions at[j]:at[j+1] and leaves its end component when
	// exit[j] (for max, in an end component)
	first []int32
	at    []int32
	exit  []bool
	// each transition's successor and probability rounded down and up
	to       []int32
	pLo, pHi []float64
	// widening factors of states[i] (1 -/+ delta of its widest choice)
	fLo, fHi []float64
	// mec[i] is the end component of states[i] (max only), or -1, and
	// exits the best exit of each end component in the current sweep,
	// widened
	mec   []int32
	exits []float64
	// pos[s] is the index of state s in states, -1 for a decided state
	pos []int32
	// cLo and cHi, for expected costs ([newCostIterator]), are each
	// choice's cost rounded down and up; nil for probabilities
	cLo, cHi []float64
}

func newIterator(m *MDP, set []bool, max bool) *iterator {
	return buildIterator(m, set, max, nil)
}

// buildIterator is [newIterator], for expected costs when cost is not
// nil (cost[s][c] the cost of choice c of state s, not negative): then
// no end component is looked for (there is none among the states solved
// for expected costs: see [ExpectCostInterval]), and each sum has one
// term more, the cost.
func buildIterator(m *MDP, set []bool, max bool, cost [][]*big.Rat) *iterator {
	n := m.N()
	it := &iterator{max: max}
	var mec []int
	var stay [][]bool
	if max && cost == nil {
		var k int
		mec, stay, k = mecs(m, set)
		it.exits = make([]float64, k)
	}
	all := make([][]bool, n)
	for s := 0; s < n; s++ {
		if set[s] {
			all[s] = make([]bool, len(m.Choices[s]))
			for c := range all[s] {
				all[s][c] = true
			}
		}
	}
	comp := sccs(m, set, all)
	// counting sort of the states by component: Tarjan's algorithm
	// numbers a component after every component it reaches
	ncomp := 0
	for s := 0; s < n; s++ {
		if set[s] && comp[s]+1 > ncomp {
			ncomp = comp[s] + 1
		}
	}
	start := make([]int32, ncomp+1)
	for s := 0; s < n; s++ {
		if set[s] {
			start[comp[s]+1]++
		}
	}
	for i := 0; i < ncomp; i++ {
		start[i+1] += start[i]
	}
	it.comps = slices.Clone(start)
	it.states = make([]int32, start[ncomp])
	for s := 0; s < n; s++ {
		if set[s] {
			it.states[start[comp[s]]] = int32(s)
			start[comp[s]]++
		}
	}
	exitFirst(m, set, comp, it.comps, it.states)
	it.pos = make([]int32, n)
	for s := range it.pos {
		it.pos[s] = -1
	}
	for i, s := range it.states {
		it.pos[s] = int32(i)
	}
	it.first = make([]int32, 0, len(it.states)+1)
	it.at = []int32{0}
	it.fLo = make([]float64, len(it.states))
	it.fHi = make([]float64, len(it.states))
	it.mec = make([]int32, len(it.states))
	for i, s32 := range it.states {
		s := int(s32)
		it.first = append(it.first, int32(len(it.at)-1))
		widest := 0
		it.mec[i] = -1
		if mec != nil && mec[s] >= 0 {
			it.mec[i] = int32(mec[s])
		}
		for c, d := range m.Choices[s] {
			for _, tr := range d {
				it.to = append(it.to, int32(tr.To))
				it.pLo = append(it.pLo, ratDown(tr.Prob))
				it.pHi = append(it.pHi, ratUp(tr.Prob))
			}
			it.at = append(it.at, int32(len(it.to)))
			it.exit = append(it.exit, it.mec[i] >= 0 && !stay[s][c])
			if len(d) > widest {
				widest = len(d)
			}
			if cost != nil {
				it.cLo = append(it.cLo, ratDown(cost[s][c]))
				it.cHi = append(it.cHi, ratUp(cost[s][c]))
			}
		}
		if cost != nil {
			widest++ // the cost is one more term of the sum
		}
		it.fLo[i], it.fHi[i] = widening(widest)
	}
	it.first = append(it.first, int32(len(it.at)-1))
	return it
}

// exitFirst orders the states of each component (states[comps[k]:
// comps[k+1]]) by their distance, within it, to a state outside it: the
// states that move out of the component first, then their predecessors,
// and so on, so that a Gauss-Seidel sweep carries the values of the
// components solved before through the component in one pass where it
// can. States that never leave come last, in their order.
func exitFirst(m *MDP, set []bool, comp []int, comps, states []int32) {
	n := m.N()
	pred := make([][]int32, n)
	out := make([]bool, n)
	for _, s := range states {
		for _, d := range m.Choices[s] {
			for _, tr := range d {
				switch {
				case !set[tr.To] || comp[tr.To] != comp[s]:
					out[s] = true
				case tr.Prob.Sign() > 0 && tr.To != int(s):
					pred[tr.To] = append(pred[tr.To], s)
				}
			}
		}
	}
	seen := make([]bool, n)
	for k := 0; k+1 < len(comps); k++ {
		part := states[comps[k]:comps[k+1]]
		if len(part) == 1 {
			continue
		}
		order := make([]int32, 0, len(part))
		for _, s := range part {
			if out[s] {
				order = append(order, s)
				seen[s] = true
			}
		}
		for i := 0; i < len(order); i++ {
			for _, p := range pred[order[i]] {
				if !seen[p] {
					seen[p] = true
					order = append(order, p)
				}
			}
		}
		for _, s := range part {
			if !seen[s] {
				order = append(order, s)
			}
		}
		copy(part, order)
	}
}

// solve runs the sweeps of each component in turn.
func (it *iterator) solve(ctx context.Context, lo, hi []float64, eps float64, maxIter int) error {
	sweeps := 0
	for k := 0; k+1 < len(it.comps); k++ {
		a, b := int(it.comps[k]), int(it.comps[k+1])
		limit := maxIter
		// expected costs: the upper bounds start at infinity, which no
		// sweep lowers where the component has a cycle; the certificate
		// comes first there
		at := certifyAfter
		if it.cLo != nil {
			at = -1
			if b-a > 1 || it.selfLoop(a) {
				at = 0
			}
		}
		for iter := 0; limit <= 0 || iter < limit; iter++ {
			if sweeps++; sweeps%64 == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			if it.cLo != nil && iter >= certifyAfter && iter&(iter-1) == 0 && it.guessCost(a, b, lo, hi) && (limit <= 0 || limit > iter+2*certifyAfter) {
				// expected costs where the certificate failed: an
				// upper bound from the lower one (guessCost)
				limit = iter + 2*certifyAfter
			}
			if iter == at && it.certify(ctx, a, b, lo, hi) {
				// Still wide after this many sweeps: a slow
				// component (a random walk); certified, the
				// bounds are as tight as the certificate can
				// make them, and more sweeps would gain little.
				if limit <= 0 || limit > 2*certifyAfter {
					limit = 2 * certifyAfter
				}
			}
			var changed, wide bool
			if it.cLo != nil {
				changed, wide = it.sweepCost(a, b, lo, hi, eps/2)
			} else {
				changed, wide = it.sweep(a, b, lo, hi, eps/2)
			}
			// one state without a self-loop needs one update: what it
			// moves to is final
			if !changed || !wide || b-a == 1 && !it.selfLoop(a) {
				break
			}
		}
	}
	return nil
}

// selfLoop reports whether states[i] may move to itself.
func (it *iterator) selfLoop(i int) bool {
	s := it.states[i]
	for j := it.first[i]; j < it.first[i+1]; j++ {
		if slices.Contains(it.to[it.at[j]:it.at[j+1]], s) {
			return true
		}
	}
	return false
}

// sweep updates states[a:b] once, in order, and reports whether a bound
// moved and whether some interval is still wider than eps.
func (it *iterator) sweep(a, b int, lo, hi []float64, eps float64) (changed, wide bool) {
	for i := a; i < b; i++ {
		if m := it.mec[i]; m >= 0 {
			it.exits[m] = 0
		}
	}
	for i := a; i < b; i++ {
		s := it.states[i]
		inMEC := it.mec[i] >= 0
		bl, bh := -1.0, -1.0
		for j := it.first[i]; j < it.first[i+1]; j++ {
			l, h := 0.0, 0.0
			for x := it.at[j]; x < it.at[j+1]; x++ {
				t := it.to[x]
				l += it.pLo[x] * lo[t]
				h += it.pHi[x] * hi[t]
			}
			if bl < 0 || it.max == (l > bl) && l != bl {
				bl = l
			}
			if inMEC {
				// widened here: the component's states differ in width
				if h = widenUp(h, it.fHi[i]); it.exit[j] && h > it.exits[it.mec[i]] {
					it.exits[it.mec[i]] = h
				}
				continue
			}
			if bh < 0 || it.max == (h > bh) && h != bh {
				bh = h
			}
		}
		// one outward widening per update; monotone: keep the better
		// of the old and the new bound
		if l := widenDown(bl, it.fLo[i]); l > lo[s] {
			lo[s], changed = l, true
		}
		if !inMEC {
			if h := widenUp(bh, it.fHi[i]); h < hi[s] {
				hi[s], changed = h, true
			}
		}
	}
	for i := a; i < b; i++ {
		s := it.states[i]
		if m := it.mec[i]; m >= 0 {
			if h := it.exits[m]; h < hi[s] {
				hi[s], changed = h, true
			}
		}
		if hi[s]-lo[s] > eps {
			wide = true
		}
	}
	return changed, wide
}

// Interval iteration in floating point: see the package documentation.
// widening returns 1 - delta and 1 + delta for sums of at most n
// products, delta = (n+3) 2^-52 (n 2^-50 past 2^26 products; n is below
// 2^31 here, the transitions being numbered by int32).
func widening(n int) (fLo, fHi float64) {
	d := float64(n+3) * 0x1p-52
	if n > 1<<26 {
		d = float64(n) * 0x1p-50
	}
	return 1 - d, 1 + d
}

// tiny is the value below which a computed sum is not trusted to be
// relatively accurate (products may have underflowed).
const tiny = 0x1p-900

// widenDown and widenUp turn a computed sum x of products of numbers in
// [0, 1] into a lower and an upper bound of the exact sum.
func widenDown(x, f float64) float64 {
	if x < tiny {
		return 0
	}
	return x * f
}

func widenUp(x, f float64) float64 {
	if x < tiny {
		return 2 * tiny
	}
	if x *= f; x > 1 {
		return 1 // no NaN here: plain comparisons, cheaper than math.Min
	}
	return x
}

// widenLo and widenHi are widenDown and widenUp of a sum of states[i]'s
// update: for expected costs, where the values are not within [0, 1],
// their cost versions.
func (it *iterator) widenLo(x float64, i int) float64 {
	if it.cLo != nil {
		return widenCostDown(x, it.fLo[i])
	}
	return widenDown(x, it.fLo[i])
}

func (it *iterator) widenHi(x float64, i int) float64 {
	if it.cLo != nil {
		return widenCostUp(x, it.fHi[i])
	}
	return widenUp(x, it.fHi[i])
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
