package quant

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
	n := m.N()
	pred := predecessors(m)
	reach := make([]bool, n)
	var stack []int
	for s := 0; s < n; s++ {
		if target[s] {
			reach[s] = true
			stack = append(stack, s)
		}
	}
	for len(stack) > 0 {
		t := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, s := range pred[t] {
			if !reach[s] && left[s] {
				reach[s] = true
				stack = append(stack, s)
			}
		}
	}
	return not(reach)
}

// prob0A returns the states s with Pmin(s) = 0: those where some
// scheduler avoids target forever. Its complement is the least set Y
// holding target and every left-state whose every choice may move into Y.
func prob0A(m *MDP, left, target []bool) []bool {
	n := m.N()
	y := append([]bool(nil), target...)
	for changed := true; changed; {
		changed = false
		for s := 0; s < n; s++ {
			if y[s] || !left[s] {
				continue
			}
			all := true
			for _, d := range m.Choices[s] {
				if !hits(d, y) {
					all = false
					break
				}
			}
			if all {
				y[s], changed = true, true
			}
		}
	}
	return not(y)
}

// prob1E returns the states s with Pmax(s) = 1: the greatest R such that
// every state of R reaches target within R by choices that stay in R.
func prob1E(m *MDP, left, target []bool) []bool {
	n := m.N()
	r := make([]bool, n)
	for s := range r {
		r[s] = true
	}
	for {
		y := append([]bool(nil), target...)
		for changed := true; changed; {
			changed = false
			for s := 0; s < n; s++ {
				if y[s] || !left[s] || !r[s] {
					continue
				}
				for _, d := range m.Choices[s] {
					if within(d, r) && hits(d, y) {
						y[s], changed = true, true
						break
					}
				}
			}
		}
		same := true
		for s := range r {
			if r[s] != y[s] {
				same = false
			}
		}
		if same {
			return r
		}
		r = y
	}
}

// prob1A returns the states s with Pmin(s) = 1: those from which no
// scheduler reaches, with positive probability and through left-states
// outside target, a state with Pmin = 0.
func prob1A(m *MDP, left, target, zeroMin []bool) []bool {
	n := m.N()
	pred := predecessors(m)
	bad := append([]bool(nil), zeroMin...)
	var stack []int
	for s := 0; s < n; s++ {
		if bad[s] {
			stack = append(stack, s)
		}
	}
	for len(stack) > 0 {
		t := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, s := range pred[t] {
			if !bad[s] && left[s] && !target[s] {
				bad[s] = true
				stack = append(stack, s)
			}
		}
	}
	return not(bad)
}

// predecessors lists, per state, the states with a choice that moves to
// it with positive probability (repeats allowed).
func predecessors(m *MDP) [][]int {
	pred := make([][]int, m.N())
	for s, cs := range m.Choices {
		for _, d := range cs {
			for _, t := range d {
				if t.Prob.Sign() > 0 {
					pred[t.To] = append(pred[t.To], s)
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
