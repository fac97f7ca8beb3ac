package ltl

import (
	"fmt"
	"math/bits"
	"sort"
	"strings"

	"github.com/dominikbraun/graph"
)

// simplify applies the size optimisations: merging of edges, removal of
// states that cannot reach an accepting cycle, merging of bisimilar
// states, removal of redundant acceptance sets, and a canonical BFS
// numbering of the states. It reports false, leaving the automaton
// half-simplified, when lim is spent.
func (a *Automaton) simplify(lim *budget) bool {
	for changed := true; changed; {
		changed = a.mergeEdges(lim)
		if lim.err != nil {
			return false
		}
		if a.prune() {
			changed = true
		}
		if a.mergeStates(lim) {
			changed = true
		}
		if lim.err != nil {
			return false
		}
	}
	a.reduceAcc(lim)
	if lim.err != nil {
		return false
	}
	a.renumber()
	return true
}

// mergeEdges removes, per state, duplicate and subsumed edges (same target,
// weaker label, more acceptance sets) and joins two edges that differ in
// the polarity of one literal. It reports whether it changed anything.
func (a *Automaton) mergeEdges(lim *budget) bool {
	changed := false
	for si := range a.States {
		es := a.States[si].Edges
		for {
			if lim.tick() {
				return changed
			}
			n := len(es)
			es = mergePolarity(subsumeEdges(es, lim))
			if len(es) == n {
				break
			}
			changed = true
		}
		a.States[si].Edges = es
	}
	return changed
}

// subsumeEdges drops the edges made redundant by another edge to the same
// target with a label that is a subset and acceptance sets that are a
// superset (keeping the first of equal edges). The order is kept.
func subsumeEdges(es []Edge, lim *budget) []Edge {
	order := make([]int, len(es))
	for i := range order {
		order[i] = i
	}
	// A subsuming edge has a label at most as long and at least as many
	// acceptance sets: look at those first.
	sort.SliceStable(order, func(i, j int) bool {
		a, b := es[order[i]], es[order[j]]
		if len(a.Label) != len(b.Label) {
			return len(a.Label) < len(b.Label)
		}
		return bits.OnesCount64(a.Acc) > bits.OnesCount64(b.Acc)
	})
	keep := make([]bool, len(es))
	var kept []int
	for _, i := range order {
		e := es[i]
		sub := false
		for _, k := range kept {
			if lim.tick() {
				return es
			}
			d := es[k]
			if d.To == e.To && d.Acc&e.Acc == e.Acc && d.Label.subset(e.Label) {
				sub = true
				break
			}
		}
		if !sub {
			keep[i] = true
			kept = append(kept, i)
		}
	}
	out := es[:0:0]
	for i, e := range es {
		if keep[i] {
			out = append(out, e)
		}
	}
	return out
}

// mergePolarity joins pairs of edges with the same target and acceptance
// sets whose labels differ only in the polarity of one literal
// (l ∧ c) ∨ (¬l ∧ c) = c. One pass; the caller repeats to a fixpoint.
func mergePolarity(es []Edge) []Edge {
	type slot struct {
		edge int
		neg  bool
	}
	seen := map[string]slot{}
	gone := make([]bool, len(es))
	dirty := make([]bool, len(es)) // label changed: its keys in seen are stale
	var b strings.Builder
	for i := range es {
		if gone[i] {
			continue
		}
		e := es[i]
		for k, l := range e.Label {
			b.Reset()
			fmt.Fprintf(&b, "%d|%d|%d|", e.To, e.Acc, l.Atom())
			for j, m := range e.Label {
				if j != k {
					fmt.Fprintf(&b, "%d,", m)
				}
			}
			key := b.String()
			if o, ok := seen[key]; ok && !gone[o.edge] && !dirty[o.edge] && o.neg != l.Neg() {
				lab := append(append(Label{}, e.Label[:k]...), e.Label[k+1:]...)
				es[o.edge] = Edge{To: e.To, Label: lab, Acc: e.Acc}
				dirty[o.edge] = true
				gone[i] = true
				break
			}
			seen[key] = slot{i, l.Neg()}
		}
	}
	out := es[:0:0]
	for i, e := range es {
		if !gone[i] {
			out = append(out, e)
		}
	}
	return out
}

// sccs returns the strongly connected components of the automaton's
// graph (computed with dominikbraun/graph), as a component number per
// state. Vertex keys are state+1: graph v0.23.0's Tarjan never emits the
// component of the vertex whose key is the zero value (it pops the stack
// "until hash != vertex", starting from a zero hash).
func (a *Automaton) sccs() []int {
	g := graph.New(graph.IntHash, graph.Directed())
	for i := range a.States {
		_ = g.AddVertex(i + 1)
	}
	for i, s := range a.States {
		for _, e := range s.Edges {
			_ = g.AddEdge(i+1, e.To+1) // a parallel edge is already there
		}
	}
	comps, err := graph.StronglyConnectedComponents(g)
	if err != nil {
		panic("wrapcheck internal error: ltl: " + err.Error())
	}
	comp := make([]int, len(a.States))
	for i := range comp {
		comp[i] = -1
	}
	for c, vs := range comps {
		for _, v := range vs {
			comp[v-1] = c
		}
	}
	for _, c := range comp {
		if c < 0 {
			panic("wrapcheck internal error: ltl: a state without SCC")
		}
	}
	return comp
}

// prune removes the states from which no accepting cycle is reachable. It
// reports whether it removed anything.
func (a *Automaton) prune() bool {
	comp := a.sccs()
	acc := map[int]uint64{}
	internal := map[int]bool{}
	for i, s := range a.States {
		for _, e := range s.Edges {
			if comp[e.To] == comp[i] {
				internal[comp[i]] = true
				acc[comp[i]] |= e.Acc
			}
		}
	}
	all := a.AllAcc()
	useful := make([]bool, len(a.States))
	var work []int
	for i := range a.States {
		if internal[comp[i]] && acc[comp[i]] == all {
			useful[i] = true
			work = append(work, i)
		}
	}
	pred := make([][]int, len(a.States))
	for i, s := range a.States {
		for _, e := range s.Edges {
			pred[e.To] = append(pred[e.To], i)
		}
	}
	for len(work) > 0 {
		v := work[len(work)-1]
		work = work[:len(work)-1]
		for _, p := range pred[v] {
			if !useful[p] {
				useful[p] = true
				work = append(work, p)
			}
		}
	}
	if !useful[a.Init] {
		// Empty language: keep the initial state alone, without edges.
		if len(a.States) == 1 && len(a.States[a.Init].Edges) == 0 {
			return false
		}
		a.States = []State{{Name: a.States[a.Init].Name}}
		a.Init = 0
		return true
	}
	removed := false
	for i := range a.States {
		if !useful[i] {
			removed = true
		}
	}
	if !removed {
		return false
	}
	return a.quotient(func(i int) int {
		if useful[i] {
			return i
		}
		return -1
	})
}

// quotient rebuilds the automaton keeping the states with class(i) >= 0,
// merging states of equal class (their edges must agree up to the
// classes) and redirecting edges; edges into dropped states disappear.
func (a *Automaton) quotient(class func(int) int) bool {
	var ids []int // class -> new id
	newID := map[int]int{}
	var states []State
	for i, s := range a.States {
		c := class(i)
		if c < 0 {
			continue
		}
		if _, ok := newID[c]; ok {
			continue
		}
		newID[c] = len(states)
		ids = append(ids, c)
		states = append(states, State{Name: s.Name})
	}
	done := map[int]bool{}
	for i, s := range a.States {
		c := class(i)
		if c < 0 || done[c] {
			continue
		}
		done[c] = true
		n := newID[c]
		for _, e := range s.Edges {
			tc := class(e.To)
			if tc < 0 {
				continue
			}
			states[n].Edges = append(states[n].Edges, Edge{To: newID[tc], Label: e.Label, Acc: e.Acc})
		}
	}
	a.Init = newID[class(a.Init)]
	a.States = states
	return true
}

// mergeStates merges bisimilar states (the coarsest partition in which
// equivalent states have the same edges up to the partition). It reports
// whether it merged anything.
func (a *Automaton) mergeStates(lim *budget) bool {
	n := len(a.States)
	class := make([]int, n)
	numClasses := 1
	for {
		sigs := map[string]int{}
		next := make([]int, n)
		for i, s := range a.States {
			if lim.tick() {
				return false
			}
			parts := make([]string, 0, len(s.Edges))
			for _, e := range s.Edges {
				parts = append(parts, fmt.Sprintf("%v|%d|%d", e.Label, e.Acc, class[e.To]))
			}
			sort.Strings(parts)
			k := fmt.Sprint(class[i], parts)
			c, ok := sigs[k]
			if !ok {
				c = len(sigs)
				sigs[k] = c
			}
			next[i] = c
		}
		class = next
		if len(sigs) == numClasses {
			break
		}
		numClasses = len(sigs)
	}
	if numClasses == n {
		return false
	}
	a.quotient(func(i int) int { return class[i] })
	for i := range a.States { // merged states may have duplicate edges now
		a.States[i].Edges = dedupEdges(a.States[i].Edges, lim)
	}
	return true
}

func dedupEdges(es []Edge, lim *budget) []Edge {
	var out []Edge
	for _, e := range es {
		dup := false
		for _, o := range out {
			if lim.tick() {
				return es
			}
			if o.To == e.To && o.Acc == e.Acc && o.Label.subset(e.Label) && e.Label.subset(o.Label) {
				dup = true
				break
			}
		}
		if !dup {
			out = append(out, e)
		}
	}
	return out
}

// reduceAcc drops acceptance sets that every cycle edge belongs to and
// merges acceptance sets that contain the same cycle edges.
func (a *Automaton) reduceAcc(lim *budget) {
	if a.NumAcc == 0 {
		return
	}
	comp := a.sccs()
	var patterns []string // per set: which internal edges carry it
	pat := make([][]byte, a.NumAcc)
	for i, s := range a.States {
		for _, e := range s.Edges {
			if comp[e.To] != comp[i] {
				continue
			}
			for k := 0; k < a.NumAcc; k++ {
				b := byte('0')
				if e.Acc&(1<<uint(k)) != 0 {
					b = '1'
				}
				pat[k] = append(pat[k], b)
			}
		}
	}
	remap := make([]int, a.NumAcc)
	seen := map[string]int{}
	num := 0
	for k := 0; k < a.NumAcc; k++ {
		p := string(pat[k])
		if !strings.Contains(p, "0") {
			remap[k] = -1 // on every cycle edge: vacuous
			continue
		}
		if j, ok := seen[p]; ok {
			remap[k] = j
			continue
		}
		seen[p] = num
		patterns = append(patterns, p)
		remap[k] = num
		num++
	}
	for i := range a.States {
		for j, e := range a.States[i].Edges {
			var acc uint64
			for k := 0; k < a.NumAcc; k++ {
				if remap[k] >= 0 && e.Acc&(1<<uint(k)) != 0 {
					acc |= 1 << uint(remap[k])
				}
			}
			a.States[i].Edges[j].Acc = acc
		}
	}
	a.NumAcc = len(patterns)
	for i := range a.States { // acceptance changes may make edges comparable
		a.States[i].Edges = dedupEdges(a.States[i].Edges, lim)
	}
	a.mergeEdges(lim)
}

// renumber numbers the states in BFS order from Init and sorts the edges
// of each state, so that equal automata print equally.
func (a *Automaton) renumber() {
	order := []int{a.Init}
	id := map[int]int{a.Init: 0}
	for k := 0; k < len(order); k++ {
		for _, e := range a.States[order[k]].Edges {
			if _, ok := id[e.To]; !ok {
				id[e.To] = len(order)
				order = append(order, e.To)
			}
		}
	}
	states := make([]State, len(order))
	for n, old := range order {
		s := a.States[old]
		es := make([]Edge, len(s.Edges))
		for j, e := range s.Edges {
			es[j] = Edge{To: id[e.To], Label: e.Label, Acc: e.Acc}
		}
		sort.Slice(es, func(i, j int) bool {
			if es[i].To != es[j].To {
				return es[i].To < es[j].To
			}
			if li, lj := es[i].Label.String(), es[j].Label.String(); li != lj {
				return li < lj
			}
			return es[i].Acc < es[j].Acc
		})
		states[n] = State{Name: s.Name, Edges: es}
	}
	a.States = states
	a.Init = 0
}
