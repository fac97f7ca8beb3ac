package quant

// mecs returns the maximal end components of m among the states in
// set: mec[s] is the number of s's component (from 0), or -1 for a state
// in none, with the choices of each state that stay in its component
// (stay[s][c]). An end component is a set of states, and a choice for each,
// under which the states stay among themselves and reach each other
// (Baier and Katoen, Principles of Model Checking, 10.6.3; the algorithm
// of de Alfaro: strongly connected components, refined until no choice
// leaves its component).
func mecs(m *MDP, set []bool) (mec []int, stay [][]bool, count int) {
	n := m.N()
	in := append([]bool(nil), set...)
	stay = make([][]bool, n)
	staying := make([]int, n) // how many choices of s stay
	pred := choicePredecessors(m)
	// gone lists the states just removed; cascade removes the choices
	// that move to them, and the states left with none, at once (one
	// round per layer of a chain would be quadratic)
	var gone []int
	cascade := func() {
		for len(gone) > 0 {
			t := gone[len(gone)-1]
			gone = gone[:len(gone)-1]
			for _, p := range pred[t] {
				s, c := int(p.s), int(p.c)
				if !in[s] || !stay[s][c] {
					continue
				}
				stay[s][c] = false
				if staying[s]--; staying[s] == 0 {
					in[s] = false
					gone = append(gone, s)
				}
			}
		}
	}
	for s := 0; s < n; s++ {
		if !in[s] {
			continue
		}
		stay[s] = make([]bool, len(m.Choices[s]))
		for c, d := range m.Choices[s] {
			if stay[s][c] = within(d, in); stay[s][c] {
				staying[s]++
			}
		}
	}
	for s := 0; s < n; s++ {
		if in[s] && staying[s] == 0 {
			in[s] = false
			gone = append(gone, s)
		}
	}
	cascade()
	var comp []int
	for {
		comp = sccs(m, in, stay)
		changed := false
		for s := 0; s < n; s++ {
			if !in[s] {
				continue
			}
			for c, d := range m.Choices[s] {
				if !stay[s][c] {
					continue
				}
				for _, t := range d {
					if t.Prob.Sign() > 0 && (!in[t.To] || comp[t.To] != comp[s]) {
						stay[s][c], changed = false, true
						staying[s]--
						break
					}
				}
			}
			if staying[s] == 0 {
				in[s], changed = false, true
				gone = append(gone, s)
			}
		}
		cascade()
		if !changed {
			break
		}
	}
	mec = make([]int, n)
	ids := map[int]int{}
	for s := 0; s < n; s++ {
		mec[s] = -1
		if !in[s] {
			continue
		}
		id, ok := ids[comp[s]]
		if !ok {
			id = len(ids)
			ids[comp[s]] = id
		}
		mec[s] = id
	}
	return mec, stay, len(ids)
}

// sccs numbers the strongly connected components of the graph over the
// states in `in` whose edges are the positive moves of the choices
// marked in stay (Tarjan's algorithm, without recursion).
func sccs(m *MDP, in []bool, stay [][]bool) []int {
	n := m.N()
	index := make([]int, n)
	low := make([]int, n)
	comp := make([]int, n)
	onStack := make([]bool, n)
	for i := range index {
		index[i], comp[i] = -1, -1
	}
	succ := func(s int) []int {
		var out []int
		for c, d := range m.Choices[s] {
			if !stay[s][c] {
				continue
			}
			for _, t := range d {
				if t.Prob.Sign() > 0 && in[t.To] {
					out = append(out, t.To)
				}
			}
		}
		return out
	}
	type frame struct {
		s    int
		next []int
	}
	var stack []int
	counter, ncomp := 0, 0
	for root := 0; root < n; root++ {
		if !in[root] || index[root] >= 0 {
			continue
		}
		call := []frame{{root, succ(root)}}
		index[root], low[root] = counter, counter
		counter++
		stack = append(stack, root)
		onStack[root] = true
		for len(call) > 0 {
			f := &call[len(call)-1]
			if len(f.next) > 0 {
				t := f.next[0]
				f.next = f.next[1:]
				if index[t] < 0 {
					index[t], low[t] = counter, counter
					counter++
					stack = append(stack, t)
					onStack[t] = true
					call = append(call, frame{t, succ(t)})
				} else if onStack[t] && index[t] < low[f.s] {
					low[f.s] = index[t]
				}
				continue
			}
			s := f.s
			call = call[:len(call)-1]
			if len(call) > 0 {
				p := call[len(call)-1].s
				if low[s] < low[p] {
					low[p] = low[s]
				}
			}
			if low[s] == index[s] {
				for {
					t := stack[len(stack)-1]
					stack = stack[:len(stack)-1]
					onStack[t] = false
					comp[t] = ncomp
					if t == s {
						break
					}
				}
				ncomp++
			}
		}
	}
	return comp
}
