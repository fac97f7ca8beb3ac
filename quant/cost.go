package quant

import (
	"context"
	"fmt"
	"math/big"
)

// ExpectCost returns, for every state of m, the least (max false) or the
// greatest expected cost accumulated until the first state of target,
// over all schedulers, exactly; nil stands for infinity. cost(s, c) is
// the cost of choice c of state s (not negative); a state of target
// costs nothing more.
//
// The semantics are PRISM's for R=? [ F target ]: a run that never
// reaches target accumulates an infinite cost, so the maximum is
// infinite where some scheduler misses target with positive probability
// (Pmin < 1), and the minimum is infinite where every scheduler does
// (Pmax < 1), the minimum being over the schedulers that reach target
// with probability 1. Both are found by the qualitative precomputation
// (prob1A, prob1E); the finite values are then solved by policy
// iteration over the rationals, each policy's system by the elimination
// of [Reach].
//
// Why policy iteration is sound here. For max, every choice of a state
// of Pmin = 1 stays among such states, so every policy reaches target
// with probability 1 (a proper policy): each system has one solution,
// and the policy found satisfies the Bellman equation, whose solution is
// unique among proper policies' values (Bertsekas and Tsitsiklis, An
// analysis of stochastic shortest path problems, 1991). For min, only
// the choices that stay among the states of Pmax = 1 are allowed, and
// the first policy moves one step closer to target (as in [Reach]), so
// it is proper. A strict improvement cannot make a policy improper:
// on a class closed under the new policy and avoiding target, the old
// values v satisfy v >= c + P v >= P v, with the inequality strict
// where the policy changed; a stationary distribution of the class
// forces equality on its recurrent states, so none changed there, and
// the class was closed under the old policy already, which was proper.
// At the end, v = min over the choices of c + P v; for any proper
// policy π, v - v_π <= P_π (v - v_π) <= P_π^n (v - v_π), which tends to
// 0, so v is the least expected cost over the proper policies (and
// over all schedulers, since the improper ones cost infinity).
func ExpectCost(ctx context.Context, m *MDP, cost func(s, c int) *big.Rat, target []bool, max bool, opts Options) ([]*big.Rat, error) {
	v, _, err := expectCost(ctx, m, cost, target, max, opts)
	return v, err
}

// expectCost is [ExpectCost] with the strategy that attains the values:
// policy iteration's final policy on the states of finite cost outside
// target, -1 elsewhere.
func expectCost(ctx context.Context, m *MDP, cost func(s, c int) *big.Rat, target []bool, max bool, opts Options) ([]*big.Rat, []int, error) {
	n := m.N()
	finite, err := costFinite(ctx, m, target, max)
	if err != nil {
		return nil, nil, err
	}
	strategy := make([]int, n)
	for s := range strategy {
		strategy[s] = -1
	}
	v := make([]*big.Rat, n)
	var maybe []int
	for s := 0; s < n; s++ {
		switch {
		case target[s]:
			v[s] = new(big.Rat)
		case finite[s]:
			maybe = append(maybe, s)
			v[s] = new(big.Rat)
		}
	}
	if len(maybe) == 0 {
		return v, strategy, nil
	}
	if len(maybe) > opts.maxExact() {
		return nil, nil, fmt.Errorf("%w: %d states left after the precomputation, more than the %d of exact mode (ExpectCostInterval bounds them)", ErrTooLarge, len(maybe), opts.maxExact())
	}
	idx := make([]int, n)
	for i := range idx {
		idx[i] = -1
	}
	for i, s := range maybe {
		idx[s] = i
	}
	// allowed: the choices that stay among the finite states (for max,
	// every choice does).
	allowed := func(s, c int) bool { return max || within(m.Choices[s][c], finite) }
	policy := make([]int, len(maybe))
	if !max {
		// One step closer to target, by a backwards breadth-first search.
		if !attract(m, maybe, append([]bool(nil), target...), policy, allowed) {
			panic("wrapcheck internal error: quant: a state of Pmax = 1 cannot reach the target")
		}
	}
	v, err = improve(ctx, m, maybe, idx, v, policy, max, cost, allowed, opts)
	if err != nil {
		return nil, nil, err
	}
	for i, s := range maybe {
		strategy[s] = policy[i]
	}
	return v, strategy, nil
}

// initialCost is [initial] for expected costs, nil being infinity: an
// initial distribution that reaches a state of infinite cost with
// positive probability costs infinity.
func initialCost(init []Dist, v []*big.Rat, max bool) *big.Rat {
	x, _ := initialCostIndex(init, v, max)
	return x
}

// initialCostIndex is initialCost with the index of the initial
// distribution that attains it (-1 with none, or infinity).
func initialCostIndex(init []Dist, v []*big.Rat, max bool) (*big.Rat, int) {
	var best *big.Rat
	bi := -1
	inf := false
	for i, d := range init {
		e := new(big.Rat)
		dinf := false
		for _, t := range d {
			if t.Prob.Sign() == 0 {
				continue
			}
			if v[t.To] == nil {
				dinf = true
				break
			}
			e.Add(e, new(big.Rat).Mul(t.Prob, v[t.To]))
		}
		switch {
		case dinf && max:
			return nil, -1
		case dinf:
			inf = true // worse than any finite value for min
		case best == nil || max && e.Cmp(best) > 0 || !max && e.Cmp(best) < 0:
			best, bi = e, i
		}
	}
	if best == nil && inf {
		return nil, -1
	}
	if best == nil {
		return new(big.Rat), -1
	}
	return best, bi
}
