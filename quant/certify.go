package quant

import (
	"context"
	"math"
	"slices"
)

// certifyAfter is the number of sweeps of a component after which, if
// its bounds are still wide, interval iteration tries [iterator.certify].
const certifyAfter = 100

// certifyTries is how many perturbations certify tries, each 4 times
// the last, from certifyEps.
const (
	certifyTries = 6
	certifyEps   = 0x1p-49
)

// A local is one component of the undecided states set up for
// [iterator.certify]: its states numbered from 0 (index i is states[a+i]
// of the iterator), and their position in the band of the solver.
type local struct {
	it           *iterator
	a, k         int
	rank         []int32 // position of local state i in the band
	lower, upper int
}

// in returns the local number of global state t, or -1 outside the
// component.
func (c *local) in(t int32) int {
	if i := int(c.it.pos[t]) - c.a; i >= 0 && i < c.k {
		return i
	}
	return -1
}

// certify tries to tighten the bounds of the component states[a:b]
// faster than interval iteration, soundly (see "Certified bounds" in the
// package documentation): policy iteration in float64, each policy's
// linear system solved by banded Gaussian elimination, on the problem
// perturbed by a reward of ±e a step, guesses a bound; one Bellman step
// rounded outwards checks it; a bound that passes replaces the current
// one where it is better, one that fails is dropped, and the next try
// perturbs 4 times more. The states outside the component keep their
// bounds (lo and hi), which are final. It reports whether both bounds
// were certified.
func (it *iterator) certify(ctx context.Context, a, b int, lo, hi []float64) bool {
	c := it.local(a, b)
	if c == nil {
		return false
	}
	sigma, ok := c.attractor()
	if !ok {
		return false
	}
	// For max, the upper bound's guess maximises the reach probability
	// plus e per step, which is finite when no end component is left
	// among the states; else interval iteration keeps the upper bound.
	optimal := true
	if it.max {
		for i := a; i < b; i++ {
			optimal = optimal && it.mec[i] < 0
		}
	}
	// the policy of the unperturbed problem, then the choices within
	// 2^-40 of its values: the perturbed problem picks among them (over
	// all choices, a huge expected time could outweigh the value)
	x := make([]float64, c.k)
	// (when float64 cannot solve its systems, as on a walk of 10^16
	// steps, neither will it the perturbed ones: interval iteration
	// keeps the component)
	below, above := it.side(false, lo), it.side(true, hi)
	guess := above
	if it.max || it.cLo != nil {
		guess = below // for costs, the upper bounds outside may be infinite
	}
	if !c.iterate(ctx, sigma, it.max, 0, guess, x, nil) {
		return false
	}
	tied := c.ties(x, guess)
	x0, sigma0 := slices.Clone(x), slices.Clone(sigma)
	// the perturbation is relative to the values (1 for probabilities;
	// expected costs may be large)
	scale := 1.0
	for _, v := range x {
		scale = math.Max(scale, v)
	}
	upper, lower := false, false
	if it.cLo != nil {
		// Expected costs, first (a check each, no solve): the
		// values scaled by 1 -/+ eta. A choice
		// of cost c leaves eta c of slack, whatever its expected number
		// of steps, which a perturbation per step does not (a choice
		// worse by little but far slower fails it). From 2^-40 to
		// 2^-16 (relative widths past Options.Epsilon's default
		// 10^-6 are still sound bounds, and better than none).
		for eta := 0x1p-40; eta <= 0x1p-16 && !(upper && lower) && ctx.Err() == nil; eta *= 4 {
			var lowerOver, upperOver []int32 // nil: all choices
			if it.max {
				lowerOver = sigma0
			} else {
				upperOver = sigma0
			}
			if !lower && (!it.max || c.proper(sigma0)) {
				scaleTo(x, x0, 1-eta)
				lower = c.commit(x, lo, false, lowerOver)
			}
			if !upper && (it.max && optimal || !it.max && c.proper(sigma0)) {
				scaleTo(x, x0, 1+eta)
				upper = c.commit(x, hi, true, upperOver)
			}
		}
	}
	for try, e := 0, certifyEps*scale; try < certifyTries && !(upper && lower); try, e = try+1, e*4 {
		if it.max {
			if !upper && optimal && c.iterate(ctx, sigma, true, e, above, x, tied) {
				upper = c.commit(x, hi, true, nil)
			}
			if !lower && c.proper(sigma) && c.values(ctx, sigma, -e, below, x) {
				lower = c.commit(x, lo, false, sigma)
			}
		} else {
			if !lower && c.iterate(ctx, sigma, false, -e, below, x, tied) {
				lower = c.commit(x, lo, false, nil)
			}
			// for expected costs, sigma must be proper: see
			// "Expected costs past exact mode"
			if !upper && (it.cLo == nil || c.proper(sigma)) && c.values(ctx, sigma, e, above, x) {
				upper = c.commit(x, hi, true, sigma)
			}
		}
		if ctx.Err() != nil {
			break
		}
	}
	return upper && lower
}

// scaleTo sets x to f times x0.
func scaleTo(x, x0 []float64, f float64) {
	for i := range x {
		x[i] = x0[i] * f
	}
}

// local sets up the component states[a:b] for the solver: the reverse
// Cuthill-McKee order of its graph and the band that order gives; nil
// when the band would pass maxBand or its elimination 2^31 operations.
func (it *iterator) local(a, b int) *local {
	c := &local{it: it, a: a, k: b - a}
	adj := make([][]int32, c.k)
	for i := 0; i < c.k; i++ {
		for j := it.first[a+i]; j < it.first[a+i+1]; j++ {
			for x := it.at[j]; x < it.at[j+1]; x++ {
				if t := c.in(it.to[x]); t >= 0 && t != i && it.pHi[x] > 0 {
					adj[i] = append(adj[i], int32(t))
					adj[t] = append(adj[t], int32(i))
				}
			}
		}
	}
	order := rcm(adj)
	c.rank = make([]int32, c.k)
	for r, i := range order {
		c.rank[i] = int32(r)
	}
	for i := 0; i < c.k; i++ {
		for _, t := range adj[i] {
			d := int(c.rank[t]) - int(c.rank[i])
			if d > 0 && d > c.upper {
				c.upper = d
			}
			if d < 0 && -d > c.lower {
				c.lower = -d
			}
		}
	}
	// past maxBand entries, or 2^31 operations an elimination, interval
	// iteration keeps the component
	if c.k*(c.lower+c.upper+1) > maxBand || float64(c.k)*float64(c.lower)*float64(c.upper) > 1<<31 {
		return nil
	}
	return c
}

// attractor returns a policy under which every state leaves the
// component with positive probability: a choice that moves one step
// closer to a move out of it (a breadth-first search backwards).
// It reports false when some state cannot leave (no undecided state is
// in a closed set of undecided states, so never).
func (c *local) attractor() ([]int32, bool) {
	it := c.it
	sigma := make([]int32, c.k)
	done := make([]bool, c.k)
	// pred[t]: the choices (local state, choice) that move to local t
	pred := make([][][2]int32, c.k)
	var queue []int
	for i := 0; i < c.k; i++ {
		first := it.first[c.a+i]
		for j := first; j < it.first[c.a+i+1]; j++ {
			for x := it.at[j]; x < it.at[j+1]; x++ {
				if it.pHi[x] <= 0 {
					continue
				}
				if t := c.in(it.to[x]); t >= 0 {
					pred[t] = append(pred[t], [2]int32{int32(i), j - first})
				} else if !done[i] {
					done[i], sigma[i] = true, j-first
					queue = append(queue, i)
				}
			}
		}
	}
	for q := 0; q < len(queue); q++ {
		for _, p := range pred[queue[q]] {
			if i := p[0]; !done[i] {
				done[i], sigma[i] = true, p[1]
				queue = append(queue, int(i))
			}
		}
	}
	return sigma, len(queue) == c.k
}

// proper reports whether every state leaves the component with
// probability 1 under sigma: each reaches, by sigma's moves, a state
// whose choice moves out of it with positive probability.
func (c *local) proper(sigma []int32) bool {
	it := c.it
	done := make([]bool, c.k)
	pred := make([][]int32, c.k)
	var queue []int
	for i := 0; i < c.k; i++ {
		j := it.first[c.a+i] + sigma[i]
		for x := it.at[j]; x < it.at[j+1]; x++ {
			if it.pHi[x] <= 0 {
				continue
			}
			if t := c.in(it.to[x]); t < 0 {
				if !done[i] {
					done[i] = true
					queue = append(queue, i)
				}
			} else {
				pred[t] = append(pred[t], int32(i))
			}
		}
	}
	for q := 0; q < len(queue); q++ {
		for _, p := range pred[queue[q]] {
			if !done[p] {
				done[p] = true
				queue = append(queue, int(p))
			}
		}
	}
	return len(queue) == c.k
}

// A side is what a bound from below or from above uses: the values of
// the states outside the component (their bounds), the probabilities
// and, for expected costs, the costs of the choices, all rounded on that
// side (cost nil for probabilities).
type side struct {
	ext, p, cost []float64
}

// side returns the lower (up false) or the upper side, ext the bounds
// outside the component.
func (it *iterator) side(up bool, ext []float64) side {
	if up {
		return side{ext, it.pHi, it.cHi}
	}
	return side{ext, it.pLo, it.cLo}
}

// expect returns the expectation under choice j of the local values x
// and, outside the component, sd.ext, with sd's probabilities, plus r
// and the choice's cost.
func (c *local) expect(j int32, x []float64, sd side, r float64) float64 {
	it := c.it
	s := r
	if sd.cost != nil {
		s += sd.cost[j]
	}
	for y := it.at[j]; y < it.at[j+1]; y++ {
		t := it.to[y]
		if i := c.in(t); i >= 0 {
			s += sd.p[y] * x[i]
		} else {
			s += sd.p[y] * sd.ext[t]
		}
	}
	return s
}

// values sets x to the values of policy sigma with a reward of r a step
// (and the choices' costs) and the values sd.ext outside the component,
// with sd's probabilities: the solution of (I - A) x = b + r, by the
// band solver and one step of iterative refinement. It reports false
// when the solver fails (a pivot not positive: sigma does not leave the
// component).
func (c *local) values(ctx context.Context, sigma []int32, r float64, sd side, x []float64) bool {
	it := c.it
	m := newBand(c.k, c.lower, c.upper)
	rhs := make([]float64, c.k)
	for i := 0; i < c.k; i++ {
		row := int(c.rank[i])
		*m.at(row, row) += 1
		j := it.first[c.a+i] + sigma[i]
		rhs[row] = r
		if sd.cost != nil {
			rhs[row] += sd.cost[j]
		}
		for y := it.at[j]; y < it.at[j+1]; y++ {
			t := it.to[y]
			if l := c.in(t); l >= 0 {
				*m.at(row, int(c.rank[l])) -= sd.p[y]
			} else {
				rhs[row] += sd.p[y] * sd.ext[t]
			}
		}
	}
	if !m.factor(ctx) {
		return false
	}
	sol := append([]float64(nil), rhs...)
	m.solve(sol)
	for i := 0; i < c.k; i++ {
		x[i] = sol[c.rank[i]]
	}
	// one step of iterative refinement: the residual of the sparse
	// rows, solved for a correction
	res := make([]float64, c.k)
	for i := 0; i < c.k; i++ {
		res[c.rank[i]] = c.expect(it.first[c.a+i]+sigma[i], x, sd, r) - x[i]
	}
	m.solve(res)
	for i := 0; i < c.k; i++ {
		x[i] += res[c.rank[i]]
		if math.IsNaN(x[i]) || math.IsInf(x[i], 0) {
			return false
		}
	}
	return true
}

// iterate is policy iteration from sigma, which it updates: the values
// of the policy with a reward of r a step (values), then each state
// switches to a choice (among the allowed ones; nil: all) better by
// more than 2^-52 (relative to the value, where it passes 1), until
// none is or 64 policies were tried; x holds the last policy's values.
// It reports false when a policy's system cannot be solved.
func (c *local) iterate(ctx context.Context, sigma []int32, max bool, r float64, sd side, x []float64, allowed []bool) bool {
	it := c.it
	for round := 0; round < 64; round++ {
		if !c.values(ctx, sigma, r, sd, x) {
			return false
		}
		changed := false
		for i := 0; i < c.k; i++ {
			best := x[i]
			tol := 0x1p-52 * math.Max(1, math.Abs(best))
			first := it.first[c.a+i]
			for j := first; j < it.first[c.a+i+1]; j++ {
				if j == first+sigma[i] || allowed != nil && !allowed[j] {
					continue
				}
				v := c.expect(j, x, sd, r)
				if max && v > best+tol || !max && v < best-tol {
					best, sigma[i], changed = v, j-first, true
				}
			}
		}
		if !changed {
			return true
		}
	}
	return true
}

// ties returns the choices whose expectation of the values x (sd.ext
// outside the component) is within 2^-40 of their state's value
// (relative to it where it passes 1), indexed as it.at.
func (c *local) ties(x []float64, sd side) []bool {
	it := c.it
	tied := make([]bool, len(it.at))
	for i := 0; i < c.k; i++ {
		for j := it.first[c.a+i]; j < it.first[c.a+i+1]; j++ {
			tied[j] = math.Abs(c.expect(j, x, sd, 0)-x[i]) <= 0x1p-40*math.Max(1, math.Abs(x[i]))
		}
	}
	return tied
}

// commit checks the candidate x (clamped to [0, 1], for expected costs
// to [0, +Inf)) as an upper bound
// (up) or a lower bound of the component's values, over sigma's choices
// when sigma is not nil, else over all, and, when it passes, writes it
// into the bounds v where it is better. It reports whether it passed.
func (c *local) commit(x, v []float64, up bool, sigma []int32) bool {
	for i := range x {
		if math.IsNaN(x[i]) {
			return false // every comparison with NaN is false: it would pass
		}
		if x[i] = math.Max(0, x[i]); c.it.cLo == nil {
			x[i] = math.Min(1, x[i])
		} else if math.IsInf(x[i], 0) {
			return false // no bound: the check would pass at infinity
		}
	}
	if !c.check(x, v, up, sigma) {
		return false
	}
	for i := 0; i < c.k; i++ {
		s := c.it.states[c.a+i]
		if up && x[i] < v[s] || !up && x[i] > v[s] {
			v[s] = x[i]
		}
	}
	return true
}

// check reports whether one Bellman step from x, rounded outwards as
// interval iteration rounds (the values outside the component from v),
// stays below x (up) or above it: B(x) <= x for an upper bound, x <=
// B(x) for a lower one, over sigma's choices when sigma is not nil. x
// must lie in [0, 1] (for expected costs, be finite and not negative).
func (c *local) check(x, v []float64, up bool, sigma []int32) bool {
	it := c.it
	sd := it.side(up, v)
	for i := 0; i < c.k; i++ {
		first, last := it.first[c.a+i], it.first[c.a+i+1]
		if sigma != nil {
			first += sigma[i]
			last = first + 1
		}
		best := -1.0
		for j := first; j < last; j++ {
			e := c.expect(j, x, sd, 0)
			if best < 0 || it.max == (e > best) && e != best {
				best = e
			}
		}
		if up && !(it.widenHi(best, c.a+i) <= x[i]) || !up && !(it.widenLo(best, c.a+i) >= x[i]) {
			return false
		}
	}
	return true
}
