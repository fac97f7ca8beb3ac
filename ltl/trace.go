package ltl

import (
	"slices"

	"github.com/wrapcheck/wrapcheck/machine"
	"github.com/wrapcheck/wrapcheck/verdict"
)

// withActions fills in the actions of the edges of a cycle from n0 that
// the system did not keep (noAct): each edge is the first of its source
// with its target and acceptance sets, which is the one the lasso's
// search chose (without fairness units, what it looks for depends on
// nothing else).
func (p *product) withActions(n0 uint32, cycle []edge) []edge {
	if p.sys.keepAct || !p.sys.keep {
		return cycle
	}
	var buf []edge
	from := n0
	for i, e := range cycle {
		buf = p.actEdges(buf[:0], from)
		for _, f := range buf {
			if f.to == e.to && f.acc == e.acc {
				cycle[i] = f
				break
			}
		}
		if cycle[i].act == noAct {
			panic("wrapcheck internal error: ltl: a cycle's edge is not an edge of its source")
		}
		from = e.to
	}
	return cycle
}

// pathTo returns the product nodes from an initial node to id, each the
// parent of the next ([product.parentOf]).
func (p *product) pathTo(id uint32) []uint32 {
	var path []uint32
	for v := id; v != noParent; v = p.parentOf(v) {
		path = append(path, v)
	}
	slices.Reverse(path)
	return path
}

// parentOf returns the node whose expansion reached v first (noParent
// for an initial node), found again instead of kept per node (4 bytes a
// node): the nodes are numbered in BFS order and expanded in it, so every
// node with an edge to v is in the level before v's or later, and the one
// that reached v is the first of them, the first node of the level before
// with an edge to v. A node's edges are the same whenever they are
// enumerated, so this is the node the exploration linked v to. The scans
// of one path read at most the levels it crosses, once each.
func (p *product) parentOf(v uint32) uint32 {
	// v's depth: the number of levels that start at or before v, less one.
	d, _ := slices.BinarySearch(p.levels, v+1)
	d--
	if d == 0 {
		return noParent
	}
	for u := p.levels[d-1]; u < p.levels[d]; u++ {
		p.tmpTargets = p.appendTargets(p.tmpTargets[:0], u)
		if slices.Contains(p.tmpTargets, v) {
			return u
		}
	}
	panic("wrapcheck internal error: ltl: no node of the level before a node's has an edge to it")
}

// parentAction returns the action of the edge by which the exploration
// reached node v from its parent u: u's first edge into v (an earlier one
// would have reached it first), computed again instead of kept per node.
func (p *product) parentAction(u, v uint32) int32 {
	for _, e := range p.actEdges(nil, u) {
		if e.to == v {
			return e.act
		}
	}
	panic("wrapcheck internal error: ltl: no edge from a node's parent to it")
}

// trace converts a product path (nodes, each the parent of the next,
// reached from it by its parent action) and a cycle (edges from the
// path's last node back to it) into trace steps of the unreduced system,
// and returns the index of the entry the cycle's first step reaches. The
// cycle's states appear after the path, so the last entry is the state
// the cycle starts from. Stutter steps (action -1 after the first) are
// dropped: they repeat a state without enabled action. Under symmetry
// reduction the canonical states are replaced by a real run (see
// concretize), whose cycle may be the product cycle repeated.
func (p *product) trace(path []uint32, cycle []edge) ([]verdict.Step, int, error) {
	var seq []uint32
	var acts []int32
	for i, v := range path {
		act := int32(-1)
		if i > 0 {
			act = p.parentAction(path[i-1], v)
		}
		seq = append(seq, p.sysOf(v))
		acts = append(acts, act)
	}
	for _, e := range cycle {
		seq = append(seq, p.sysOf(e.to))
		acts = append(acts, e.act)
	}
	var vecs [][]uint64
	loopAt := len(path)
	if p.sys.canon == nil {
		for _, idx := range seq {
			vecs = append(vecs, p.sys.state(idx))
		}
	} else {
		var err error
		vecs, acts, loopAt, err = p.sys.concretize(seq, acts, len(path))
		if err != nil && p.sys.fp != nil {
			err = errCollision // the quotient's run has no concrete counterpart
		}
		if err != nil {
			return nil, 0, err
		}
	}
	if p.sys.fp != nil {
		if err := p.sys.checkRun(vecs, acts, loopAt); err != nil {
			return nil, 0, err
		}
	}
	vecs, acts, loopAt = minimalPrefix(vecs, acts, loopAt)
	var out []verdict.Step
	var kept [][]uint64
	loop := -1
	for i, vec := range vecs {
		if i == loopAt {
			loop = len(out)
		}
		if acts[i] < 0 && len(out) > 0 && slices.Equal(vec, kept[len(kept)-1]) {
			continue // the stutter of a state without enabled action
		}
		st := make([]int64, p.sys.prog.Slots())
		if p.sys.prog.Words() > 0 {
			p.sys.prog.Unpack(st, vec)
		}
		out = append(out, verdict.Step{Action: int(acts[i]), State: st})
		kept = append(kept, vec)
	}
	if loop < 0 {
		loop = len(out)
	}
	p.answers(out, kept)
	return out, loop, nil
}

// minimalPrefix shortens the prefix of a system lasso while its last step
// is the cycle's last step (the same action from the same state into the
// state the cycle starts from): the cycle then starts one state earlier,
// rotated, and the infinite run is the same. vecs[:loopAt] is the prefix,
// vecs[loopAt:] the cycle, whose last state is vecs[loopAt-1]. The product
// reaches the cycle through automaton states the system run does not show,
// so such a prefix comes out of it: "submit, poll, then a cycle of poll"
// for "submit, then a cycle of poll".
func minimalPrefix(vecs [][]uint64, acts []int32, loopAt int) ([][]uint64, []int32, int) {
	for {
		last := len(vecs) - 1
		if loopAt < 2 || last < loopAt || acts[last] < 0 || acts[loopAt-1] != acts[last] ||
			!slices.Equal(vecs[loopAt-2], vecs[last-1]) {
			return vecs, acts, loopAt
		}
		vecs, acts, loopAt = vecs[:last], acts[:last], loopAt-1
	}
}

// answers fills in the agent answers of each step: it replays the step's
// action from the previous state and takes the answers of the first branch
// that reaches the step's state (the branch order is the engine's, so the
// choice is deterministic).
func (p *product) answers(out []verdict.Step, vecs [][]uint64) {
	if len(p.sys.prog.Model.Agents) == 0 {
		return
	}
	m := p.sys.prog.NewMachine()
	m.RecordAnswers(true)
	for i := 1; i < len(out); i++ {
		want := vecs[i]
		found := false
		_ = m.Successors(vecs[i-1], func(action, _ int, t machine.State) {
			if found || action != out[i].Action || !slices.Equal(t, want) {
				return
			}
			found = true
			for _, a := range m.Asked() {
				out[i].Asked = append(out[i].Asked, verdict.Answer{Agent: a.Agent, Value: slices.Clone(a.Value)})
			}
		})
	}
}

// shortestPeriod shortens a product cycle whose projection on the system
// (states and actions) repeats a shorter cycle d times: the system lasso
// only needs one period. The product automaton state may differ between
// the periods; the system run is the same.
func (p *product) shortestPeriod(cycle []edge) []edge {
	m := len(cycle)
	for d := 1; d < m; d++ {
		if m%d != 0 {
			continue
		}
		ok := true
		for k := d; k < m && ok; k++ {
			a, b := cycle[k], cycle[k-d]
			ok = a.act == b.act && p.sysOf(a.to) == p.sysOf(b.to)
		}
		if ok {
			return cycle[:d]
		}
	}
	return cycle
}
