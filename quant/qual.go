package quant

import (
	"context"
	"slices"
)

// The qualitative precomputations of reachability (Baier and Katoen,
// Principles of Model Checking, 2008, section 10.6.1; Forejt, Kwiatkowska,
// Norman and Parker, Automated Verification Techniques for Probabilistic
// Systems, 2011, section 4.1), for `left until target` over an MDP:
// graph algorithms that find the states whose probability is exactly 0 or
// 1, so that the numerical solution runs on the others only. A state in
// target counts as satisfying the formula; a state in neither left nor
// target as violating it.

// prob0E returns the states s with Pmax(s) = 0: those from which no path
// through left-states reaches target.
func prob0E(m *MDP, left, target []bool) []bool {
	reach := slices.Clone(target)
	backward(reach, choicePredecessors(m), func(s, _ int) bool { return left[s] })
	return not(reach)
}

// prob0A returns the states s with Pmin(s) = 0: those where some
// scheduler avoids target forever. Its complement is the least set Y
// holding target and every left-state whose every choice may move into Y,
// found backwards from target with a count per state of its choices that
// do not move into Y yet: linear in the transitions.
func prob0A(m *MDP, left, target []bool) []bool {
	n := m.N()
	y := slices.Clone(target)
	entered := make([][]bool, n) // entered[s][c]: choice c of s moves into y
	missing := make([]int, n)    // choices of s that do not yet
	for s := 0; s < n; s++ {
		entered[s] = make([]bool, len(m.Choices[s]))
		missing[s] = len(m.Choices[s])
	}
	backward(y, choicePredecessors(m), func(s, c int) bool {
		if entered[s][c] {
			return false
		}
		entered[s][c] = true
		missing[s]--
		return missing[s] == 0 && left[s]
	})
	return not(y)
}

// prob1E returns the states s with Pmax(s) = 1: the greatest R such that
// every state of R reaches target within R by choices that stay in R.
// Each round keeps the states of R that reach target (backwards from it)
// by choices that stay in R; it ends when a round keeps them all. A round
// is linear in the transitions: the choices that stay in R are kept up to
// date as states leave R (each transition is looked at once over all the
// rounds), and a state outside target whose last choice that stays in R
// stops staying leaves R at once (it cannot be in the greatest R), so
// that on a Markov chain one round removes everything it will. ctx is
// checked between rounds: when it is done, the result is meaningless and
// the caller returns ctx.Err().
func prob1E(ctx context.Context, m *MDP, left, target []bool) []bool {
	n := m.N()
	pred := choicePredecessors(m)
	r := make([]bool, n)
	stay := make([][]bool, n) // stay[s][c]: choice c of s stays in r
	staying := make([]int, n) // how many choices of s stay in r
	for s := range r {
		r[s] = true
		stay[s] = make([]bool, len(m.Choices[s]))
		for c := range stay[s] {
			stay[s][c] = true
		}
		staying[s] = len(stay[s])
	}
	y := make([]bool, n)
	var gone []int
	for ctx.Err() == nil {
		copy(y, target)
		backward(y, pred, func(s, c int) bool { return left[s] && r[s] && stay[s][c] })
		if slices.Equal(r, y) {
			return r
		}
		for t := range r {
			if r[t] && !y[t] {
				r[t] = false
				gone = append(gone, t)
			}
		}
		for len(gone) > 0 {
			t := gone[len(gone)-1]
			gone = gone[:len(gone)-1]
			for _, p := range pred[t] {
				s, c := int(p.s), int(p.c)
				if !stay[s][c] {
					continue
				}
				stay[s][c] = false
				if staying[s]--; staying[s] == 0 && r[s] && !target[s] {
					r[s] = false
					gone = append(gone, s)
				}
			}
		}
	}
	return r
}

// prob1A returns the states s with Pmin(s) = 1: those from which no
// scheduler reaches, with positive probability and through left-states
// outside target, a state with Pmin = 0.
func prob1A(m *MDP, left, target, zeroMin []bool) []bool {
	bad := slices.Clone(zeroMin)
	backward(bad, choicePredecessors(m), func(s, _ int) bool { return left[s] && !target[s] })
	return not(bad)
}

// backward extends set backwards from its states: a state s outside it
// with a choice c that moves into it joins it when add(s, c) says so
// (add is asked once per such choice and state reached).
func backward(set []bool, pred [][]stateChoice, add func(s, c int) bool) {
	var stack []int
	for s, in := range set {
		if in {
			stack = append(stack, s)
		}
	}
	for len(stack) > 0 {
		t := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, p := range pred[t] {
			s := int(p.s)
			if !set[s] && add(s, int(p.c)) {
				set[s] = true
				stack = append(stack, s)
			}
		}
	}
}

// stateChoice is one choice of one state.
type stateChoice struct{ s, c int32 }

// choicePredecessors lists, per state, the choices that move to it with
// positive probability.
func choicePredecessors(m *MDP) [][]stateChoice {
	pred := make([][]stateChoice, m.N())
	for s, cs := range m.Choices {
		for c, d := range cs {
			for _, t := range d {
				if t.Prob.Sign() > 0 {
					pred[t.To] = append(pred[t.To], stateChoice{int32(s), int32(c)})
				}
			}
		}
	}
	return pred
}

// hits reports whether d moves into set with positive probability.
func hits(d Dist, set []bool) bool {
	for _, t := range d {
		if set[t.To] && t.Prob.Sign() > 0 {
			return true
		}
	}
	return false
}

// within reports whether d moves only into set.
func within(d Dist, set []bool) bool {
	for _, t := range d {
		if !set[t.To] && t.Prob.Sign() > 0 {
			return false
		}
	}
	return true
}

func not(b []bool) []bool {
	out := make([]bool, len(b))
	for i, x := range b {
		out[i] = !x
	}
	return out
}
