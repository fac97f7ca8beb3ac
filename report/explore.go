package report

import (
	"slices"

	"github.com/wrapcheck/wrapcheck/machine"
)

// ExploreGraph builds the state graph of the model prog was compiled
// from, breadth-first and without reduction, keeping at most limit
// states: successors beyond the limit are dropped and the graph is marked
// Truncated. A runtime error or failed assertion in a state ends its
// successors there (the check reports it); a failing init block gives an
// empty graph. State identity is the packed vector (machine.Store).
func ExploreGraph(prog *machine.Program, limit int64) *StateGraph {
	mach := prog.NewMachine()
	store := machine.NewStore(max(prog.Words(), 1))
	g := &StateGraph{}
	add := func(t machine.State, initial bool) (int, bool) {
		vec := t
		if len(vec) == 0 {
			vec = []uint64{0}
		}
		idx, isNew, err := store.Insert(vec, 0)
		if err != nil || int64(idx) >= limit {
			g.Truncated = true
			return 0, false
		}
		if isNew {
			st := make([]int64, prog.Slots())
			prog.Unpack(st, t)
			g.Nodes = append(g.Nodes, GraphNode{State: st, Initial: initial})
		} else if initial {
			g.Nodes[idx].Initial = true
		}
		return int(idx), true
	}
	if err := mach.Init(func(_ int, t machine.State) { add(t, true) }); err != nil {
		return g // the init block fails: the check reports it
	}
	packed := make(machine.State, prog.Words())
	for i := 0; i < len(g.Nodes); i++ {
		prog.Pack(packed, g.Nodes[i].State)
		edges := map[int][]int{}
		var targets []int
		_ = mach.Successors(packed, func(action, _ int, t machine.State) {
			j, ok := add(t, false)
			if !ok {
				return
			}
			if _, seen := edges[j]; !seen {
				targets = append(targets, j)
			}
			if as := edges[j]; !slices.Contains(as, action) {
				edges[j] = append(as, action)
			}
		})
		slices.Sort(targets)
		for _, j := range targets {
			g.Edges = append(g.Edges, GraphEdge{From: i, To: j, Actions: edges[j]})
		}
	}
	return g
}
