package quant

import (
	"context"
	"fmt"
	"math/big"
)

// Reach returns, for every state of m, the maximal (max) or minimal
// probability over all schedulers of `left until target` (left nil:
// `eventually target`), exactly. Unbounded reachability is solved by
// policy iteration after the qualitative precomputation (qual.go), each
// policy's linear system by sparse Gaussian elimination over the
// rationals;
// bounded reachability (steps >= 0) by steps exact iterations of the
// Bellman operator. It returns ErrTooLarge when the states left after
// the precomputation are more than opts.MaxExact.
func Reach(ctx context.Context, m *MDP, left, target []bool, max bool, steps int64, opts Options) ([]*big.Rat, error) {
	if steps >= 0 {
		vs, err := bounded(ctx, m, orAll(left, m.N()), target, max, steps, false, opts)
		if err != nil {
			return nil, err
		}
		return vs[len(vs)-1], nil
	}
	v, _, err := reach(ctx, m, left, target, max, opts)
	return v, err
}

// ReachStrategy is [Reach] for unbounded queries, with the strategy that
// attains the values: strategy[s] is the choice of state s, memoryless
// and deterministic, -1 where none matters (s in target or outside left,
// where the run stops, or of value 0 for max). It is the strategy of
// [Witness].
func ReachStrategy(ctx context.Context, m *MDP, left, target []bool, max bool, opts Options) (values []*big.Rat, strategy []int, err error) {
	return reach(ctx, m, left, target, max, opts)
}

// orAll returns left, or every state when left is nil.
func orAll(left []bool, n int) []bool {
	if left != nil {
		return left
	}
	left = make([]bool, n)
	for i := range left {
		left[i] = true
	}
	return left
}

// reach is [Reach] for unbounded queries, which returns an optimal
// memoryless strategy too: strategy[s] is the choice of s that attains
// the optimum, -1 where the run stops (target, or outside left) or where
// no choice matters (Pmax = 0).
func reach(ctx context.Context, m *MDP, left, target []bool, max bool, opts Options) ([]*big.Rat, []int, error) {
	n := m.N()
	left = orAll(left, n)
	var zero, one []bool
	if max {
		zero = prob0E(m, left, target)
		one = prob1E(ctx, m, left, target)
	} else {
		zero = prob0A(m, left, target)
		one = prob1A(m, left, target, zero)
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, err // prob1E stopped early
	}
	v := make([]*big.Rat, n)
	var maybe []int
	for s := 0; s < n; s++ {
		switch {
		case target[s] || one[s]:
			v[s] = big.NewRat(1, 1)
		case zero[s]:
			v[s] = new(big.Rat)
		default:
			maybe = append(maybe, s)
		}
	}
	strategy := qualStrategy(m, left, target, zero, one, max)
	if len(maybe) == 0 {
		return v, strategy, nil
	}
	if len(maybe) > opts.maxExact() {
		return nil, nil, fmt.Errorf("%w: %d states left after the precomputation, more than the %d of exact mode", ErrTooLarge, len(maybe), opts.maxExact())
	}
	idx := make([]int, n)
	for i := range idx {
		idx[i] = -1
	}
	for i, s := range maybe {
		idx[s] = i
	}
	policy := initialPolicy(m, maybe, idx, v, max)
	v, err := improve(ctx, m, maybe, idx, v, policy, max, nil, nil, opts)
	if err != nil {
		return nil, nil, err
	}
	for i, s := range maybe {
		strategy[s] = policy[i]
	}
	return v, strategy, nil
}

// qualStrategy returns the optimal choices of the states the
// precomputation decided (the others get -1, and policy iteration's
// choices later). For max, a state of value 1 takes a choice that stays
// among the states of value 1 and moves one step closer to target (the
// attractor of prob1E), which reaches target with probability 1; a state
// of value 0 has no choice that matters. For min, a state of value 0
// takes a choice that stays among them (prob0A's complement is closed
// under "every choice may enter it", so each has one), which avoids
// target forever; at a state of value 1 every choice is optimal, and the
// first is taken.
func qualStrategy(m *MDP, left, target, zero, one []bool, max bool) []int {
	n := m.N()
	strategy := make([]int, n)
	for s := range strategy {
		strategy[s] = -1
	}
	live := func(s int) bool { return left[s] && !target[s] }
	if !max {
		for s := 0; s < n; s++ {
			switch {
			case !live(s):
			case zero[s]:
				for c, d := range m.Choices[s] {
					if within(d, zero) {
						strategy[s] = c
						break
					}
				}
			case one[s]:
				strategy[s] = 0
			}
		}
		return strategy
	}
	var states []int
	for s := 0; s < n; s++ {
		if one[s] && live(s) {
			states = append(states, s)
		}
	}
	choice := make([]int, len(states))
	for i := range choice {
		choice[i] = -1
	}
	attract(m, states, append([]bool(nil), target...), choice, func(s, c int) bool { return within(m.Choices[s][c], one) })
	for i, s := range states {
		strategy[s] = choice[i]
	}
	return strategy
}

// improve is policy iteration from policy: it solves the maybe-states'
// linear system under the policy (solvePolicy, with cost per step when
// not nil: expected costs) and switches each state to a choice, among
// those allowed (nil: every one), that strictly improves its value,
// until none does; v holds the values of the other states and then of
// all. It checks ctx and opts' memory budget at each policy.
func improve(ctx context.Context, m *MDP, maybe, idx []int, v []*big.Rat, policy []int, max bool, cost func(s, c int) *big.Rat, allowed func(s, c int) bool, opts Options) ([]*big.Rat, error) {
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if err := opts.overBudget("while solving"); err != nil {
			return nil, err
		}
		x, err := solvePolicy(ctx, m, maybe, idx, v, policy, cost)
		if err != nil {
			return nil, err
		}
		for i, s := range maybe {
			v[s] = x[i]
		}
		changed := false
		for i, s := range maybe {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			best := v[s]
			for c, d := range m.Choices[s] {
				if c == policy[i] || allowed != nil && !allowed(s, c) {
					continue
				}
				e := expect(d, v)
				if cost != nil {
					e.Add(e, cost(s, c))
				}
				if max && e.Cmp(best) > 0 || !max && e.Cmp(best) < 0 {
					best, policy[i], changed = e, c, true
				}
			}
		}
		if !changed {
			return v, nil
		}
	}
}

// initialPolicy picks a choice per maybe-state. For max it is one that
// moves, with positive probability, one step closer (by a breadth-first
// search backwards from the states of value 1) to target, so that under
// it every maybe-state reaches target with positive probability and its
// linear system has one solution; improvements keep this (a closed class
// of maybe-states would need a strict improvement inside it, impossible
// on a closed class where the values are harmonic). For min every choice
// does: no maybe-state has Pmin = 0.
func initialPolicy(m *MDP, maybe, idx []int, v []*big.Rat, max bool) []int {
	policy := make([]int, len(maybe))
	if !max {
		return policy
	}
	done := make([]bool, m.N())
	for s := range done {
		done[s] = idx[s] < 0 && v[s].Sign() > 0
	}
	if !attract(m, maybe, done, policy, nil) {
		panic("wrapcheck internal error: quant: a maybe-state cannot reach the target")
	}
	return policy
}

// attract sets choice[i], for each state states[i], to the first choice
// (among those allowed; nil: every one) that moves with positive
// probability one step closer to the states of done, by a breadth-first
// search backwards from them, which extends done. It reports whether
// every state was reached.
func attract(m *MDP, states []int, done []bool, choice []int, allowed func(s, c int) bool) bool {
	for left := len(states); left > 0; {
		var level []int
		for i, s := range states {
			if done[s] {
				continue
			}
			for c, d := range m.Choices[s] {
				if (allowed == nil || allowed(s, c)) && hits(d, done) {
					choice[i] = c
					level = append(level, s)
					break
				}
			}
		}
		if len(level) == 0 {
			return false
		}
		for _, s := range level {
			done[s] = true
		}
		left -= len(level)
	}
	return true
}

// expect returns the expected value of v under d.
func expect(d Dist, v []*big.Rat) *big.Rat {
	e := new(big.Rat)
	var t big.Rat
	for _, tr := range d {
		e.Add(e, t.Mul(tr.Prob, v[tr.To]))
	}
	return e
}

// solvePolicy solves x = A x + b over the maybe-states under policy,
// where A holds the moves between maybe-states and b the value of the
// moves out of them: (I - A) x = b by sparse Gaussian elimination over
// the rationals, in the order of the states, without pivoting. That is
// safe because I - A is a nonsingular M-matrix (A is substochastic and
// the policy leaves the maybe-states with probability 1), which has an
// LU factorisation with positive pivots; sparse rows keep the fill-in of
// the chains and grids of typical models small.
//
// With cost (nil: none), each row adds the cost of its state's choice to
// b: x = c + A x + b, the expected cost accumulated before leaving the
// maybe-states (plus v after).
//
// It checks ctx at every column.
func solvePolicy(ctx context.Context, m *MDP, maybe, idx []int, v []*big.Rat, policy []int, cost func(s, c int) *big.Rat) ([]*big.Rat, error) {
	k := len(maybe)
	rows := make([]map[int]*big.Rat, k)
	rhs := make([]*big.Rat, k)
	colRows := make([]map[int]bool, k) // the rows below the diagonal with an entry in the column
	for j := range colRows {
		colRows[j] = map[int]bool{}
	}
	var t big.Rat
	for i, s := range maybe {
		row := map[int]*big.Rat{i: big.NewRat(1, 1)}
		b := new(big.Rat)
		if cost != nil {
			b.Set(cost(s, policy[i]))
		}
		for _, tr := range m.Choices[s][policy[i]] {
			if j := idx[tr.To]; j >= 0 {
				e, ok := row[j]
				if !ok {
					e = new(big.Rat)
					row[j] = e
				}
				e.Sub(e, tr.Prob)
			} else {
				b.Add(b, t.Mul(tr.Prob, v[tr.To]))
			}
		}
		for j, e := range row {
			if e.Sign() == 0 {
				delete(row, j)
			} else if j < i {
				colRows[j][i] = true
			}
		}
		rows[i], rhs[i] = row, b
	}
	for col := 0; col < k; col++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		prow := rows[col]
		piv := prow[col]
		if piv == nil || piv.Sign() <= 0 {
			return nil, fmt.Errorf("wrapcheck internal error: quant: pivot %d of a policy's system is not positive", col)
		}
		for r := range colRows[col] {
			row := rows[r]
			f := new(big.Rat).Quo(row[col], piv)
			delete(row, col)
			for j, e := range prow {
				if j == col {
					continue
				}
				x, ok := row[j]
				if !ok {
					x = new(big.Rat)
					row[j] = x
				}
				x.Sub(x, t.Mul(f, e))
				if x.Sign() == 0 {
					delete(row, j)
					if j < r {
						delete(colRows[j], r)
					}
				} else if j < r {
					colRows[j][r] = true
				}
			}
			rhs[r].Sub(rhs[r], t.Mul(f, rhs[col]))
		}
		colRows[col] = nil
	}
	x := make([]*big.Rat, k)
	for col := k - 1; col >= 0; col-- {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		sum := new(big.Rat).Set(rhs[col])
		for j, e := range rows[col] {
			if j > col {
				sum.Sub(sum, t.Mul(e, x[j]))
			}
		}
		x[col] = sum.Quo(sum, rows[col][col])
	}
	return x, nil
}

// bounded computes the probability of reaching target within steps
// steps through left-states: steps exact applications of the Bellman
// operator from the indicator of target. With keep, it returns the
// iterates: vs[j] holds the values within j steps, for j up to steps or
// up to the first fixed point (the later ones equal the last); without,
// the last alone.
func bounded(ctx context.Context, m *MDP, left, target []bool, max bool, steps int64, keep bool, opts Options) ([][]*big.Rat, error) {
	n := m.N()
	v := make([]*big.Rat, n)
	for s := range v {
		v[s] = new(big.Rat)
		if target[s] {
			v[s].SetInt64(1)
		}
	}
	vs := [][]*big.Rat{v}
	for i := int64(0); i < steps; i++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if err := opts.overBudget(fmt.Sprintf("step %d of a bounded query", i)); err != nil {
			return nil, err
		}
		next := make([]*big.Rat, n)
		changed := false
		for s := 0; s < n; s++ {
			if target[s] || !left[s] {
				next[s] = v[s]
				continue
			}
			var best *big.Rat
			for _, d := range m.Choices[s] {
				e := expect(d, v)
				if best == nil || max && e.Cmp(best) > 0 || !max && e.Cmp(best) < 0 {
					best = e
				}
			}
			if best.Cmp(v[s]) != 0 {
				changed = true
			}
			next[s] = best
		}
		v = next
		if !changed {
			break // a fixed point: the later steps change nothing
		}
		if keep {
			vs = append(vs, v)
		} else {
			vs[0] = v
		}
	}
	return vs, nil
}

// boundedChoice returns the optimal choice of state s with r steps left
// under the iterates vs of [bounded]: the first choice whose expectation
// under the values within r-1 steps is the best.
func boundedChoice(m *MDP, vs [][]*big.Rat, s, r int, max bool) int {
	v := vs[min(r-1, len(vs)-1)]
	best, bc := (*big.Rat)(nil), -1
	for c, d := range m.Choices[s] {
		e := expect(d, v)
		if best == nil || max && e.Cmp(best) > 0 || !max && e.Cmp(best) < 0 {
			best, bc = e, c
		}
	}
	return bc
}
