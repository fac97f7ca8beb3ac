package ltl

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/wrapcheck/wrapcheck/machine"
	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/verdict"
)

// explore expands nodes in BFS order until upto nodes are expanded or the
// product is complete (done). It returns a reason other than NotStopped
// when it stopped early (a limit, or the context), and sets failNode/failErr on an
// execution failure.
func (p *product) explore(upto int) (reason verdict.StopReason, done bool, err error) {
	batched, ahead := p.sys.batched(), 0
	defer p.sys.dropPending()
	for i := p.expanded(); i < p.nodeN; i++ {
		if i >= upto {
			return verdict.NotStopped, false, nil
		}
		if batched && i >= ahead {
			ahead = min(i+prefetchNodes, upto, p.nodeN)
			p.prefetch(i, ahead)
		}
		if i&1023 == 0 {
			if err := p.ctx.Err(); err != nil {
				if errors.Is(err, context.DeadlineExceeded) {
					return verdict.StopTimeout, false, nil
				}
				return verdict.StopInterrupted, false, nil
			}
		}
		if p.limit > 0 && int64(p.nodeN) > p.limit {
			return verdict.StopStates, false, nil
		}
		if p.budget > 0 && i&(1<<10-1) == 0 && verdict.HeapBytes() > uint64(p.budget) {
			return verdict.StopMemory, false, nil
		}
		if p.progress != nil && i&(1<<12-1) == 0 && time.Since(p.lastProg) >= time.Second {
			p.lastProg = time.Now()
			p.progress(verdict.Progress{Property: p.name, States: int64(p.nodeN), Transitions: p.edgesN,
				Depth: p.maxDepth, Frontier: p.nodeN - i, Elapsed: time.Since(p.started), HeapBytes: verdict.HeapBytes()})
		}
		stop, err := p.expandNode(i)
		if err != nil || stop {
			return verdict.NotStopped, false, err
		}
		p.expandedN++
		if p.record {
			if len(p.recordOff) == 0 {
				p.recordOff = append(p.recordOff, 0)
			}
			p.recordOff = append(p.recordOff, int64(len(p.recorded)))
		}
	}
	return verdict.NotStopped, true, nil
}

// expandNode adds the edges of node i. It reports stop on an execution
// failure (recorded in failNode/failErr).
func (p *product) expandNode(i int) (stop bool, err error) {
	sys := p.sys
	id := uint32(i)
	s, q := p.sysOf(id), p.stateQ(id)
	for int(p.curDepth)+1 < len(p.levels) && p.levels[p.curDepth+1] <= id {
		p.curDepth++
	}
	vals, err := p.atomValues(s)
	if err != nil {
		var ee *machine.ExecError
		if errors.As(err, &ee) {
			p.failNode, p.failErr, p.failPred = id, ee, true
			return true, nil
		}
		return false, err
	}
	// The successors are only needed when an automaton edge can be taken
	// here (on the fly: the automaton prunes the system).
	es := p.aut.States[q].Edges
	live := p.liveEdges(q, vals)
	if len(live) == 0 {
		return false, nil
	}
	if err := sys.expand(s); err != nil {
		var ee *machine.ExecError
		if errors.As(err, &ee) {
			p.failNode, p.failErr = id, ee
			return true, nil
		}
		return false, err
	}
	back, err := p.addEdges(i, es, live, s, false)
	if err != nil || !back || !sys.reduced.has(s) {
		return false, err
	}
	// Cycle proviso (partial-order reduction): an edge back to a node
	// no deeper than this one may close a cycle, and a cycle must not
	// postpone an enabled action forever, so this node takes every
	// enabled action. Every cycle has such an edge (depths cannot grow
	// all the way round), hence a fully expanded node.
	for len(p.full) <= i/64 {
		p.full = append(p.full, 0)
	}
	p.full[i/64] |= 1 << uint(i%64)
	if err := sys.restOf(s); err != nil {
		var ee *machine.ExecError
		if errors.As(err, &ee) {
			p.failNode, p.failErr = id, ee
			return true, nil
		}
		return false, err
	}
	_, err = p.addEdges(i, es, live, s, true)
	return false, err
}

// addEdges adds the product edges of node i by the successors of its
// system state s (rest: those outside its ample set) and the automaton
// edges es[live] (those of its automaton state whose label holds),
// counts those between nodes of the filter's first set in the targets'
// indeg, and reports whether one of them
// leads to a node no deeper than i (only for a state whose ample set is
// proper: the cycle proviso asks no other; false otherwise).
func (p *product) addEdges(i int, es []Edge, live []int32, s uint32, rest bool) (back bool, err error) {
	sys := p.sys
	d := p.curDepth
	tos, buf := sys.targets(s, rest, p.tmpTo[:0])
	p.tmpTo = buf[:0]
	var list []succ // the actions and permutations, recorded (tests)
	if p.record {
		list = sys.succs(s, rest)
	}
	dense, na := p.denseIndex(), len(p.aut.States)
	proviso := !rest && sys.reduced.has(s)
	// The filter's set starts with the nodes whose automaton state may
	// hold an accepting cycle (product.cyc): indeg counts the edges
	// between two of them.
	count := p.useFilter && (p.cyc == nil || p.cyc[p.stateQ(uint32(i))] >= 0)
	if p.ident && len(live) == 1 && !proviso && !p.record {
		return false, p.addIdentEdges(i, tos, d)
	}
	for k, t := range tos {
		p.edgesN += int64(len(live))
		for _, j := range live {
			e := &es[j]
			// A node found in the dense index without a call to node
			// (most edges lead to a node that exists).
			var to uint32
			if p.ident && t < uint32(p.nodeN) {
				to = t
			} else if x := int(t)*na + e.To; dense && x < len(p.dense) && p.dense[x] != 0 {
				to = p.dense[x] - 1
			} else if to, err = p.node(t, e.To, d+1); err != nil {
				return false, err
			}
			// depth(to) <= d: to precedes level d+1, or there is none.
			if proviso {
				back = back || int(d)+1 >= len(p.levels) || to < p.levels[d+1]
			}
			if count && (p.cyc == nil || p.cyc[e.To] >= 0) {
				addCount(&p.indeg[to])
			}
			if to < uint32(i) {
				p.downEdges++
			}
			if p.record {
				ed := edge{to: to, act: list[k].act, acc: e.Acc}
				if sys.threads != nil {
					ed.perm = list[k].perm
				}
				p.recorded = append(p.recorded, ed)
			}
		}
	}
	return back, nil
}

// addIdentEdges is addEdges for a product with product.ident and one live
// automaton edge (to its one state), without the proviso or the
// recording: the edges of node i to the nodes of the system states tos
// in a loop of their own. Node t of state t exists when t is below the
// node count; a new one is made by node, which may leave ident.
func (p *product) addIdentEdges(i int, tos []uint32, d int32) error {
	p.edgesN += int64(len(tos))
	filter := p.useFilter && p.cyc == nil // else the one state holds no accepting cycle: the filter's set is empty
	for _, t := range tos {
		to := t
		if !p.ident || t >= uint32(p.nodeN) {
			var err error
			if to, err = p.node(t, 0, d+1); err != nil {
				return err
			}
		}
		if filter {
			addCount(&p.indeg[to])
		}
		if to < uint32(i) {
			p.downEdges++
		}
	}
	return nil
}

// defaultFirstCheck is the number of expanded nodes at which the cycle
// search first runs; it runs again each time the expanded part has grown
// checkGrowth times, and when the product is complete. A checkpoint at
// which fewer than 1/taperCheck of the expanded nodes wait for their
// expansion, the frontier of a product near its end, is put off to twice
// its size (once: the next one is kept), as the search there would be
// repeated almost whole when the product is complete. A quarter, not an
// eighth or a half (docs/design/liveness-cost.md, the ninth cut): at
// CoffeeCan's checkpoint of 65,536 the 15,064 nodes that wait are all
// that is left of its 80,600 (all initial); an eighth let that search
// run (putting it off takes the check to 0.92 of its CPU), and a half
// put off the pipeline's too (1.02-1.04 of their CPU).
const (
	defaultFirstCheck = 1 << 12
	checkGrowth       = 4
	taperCheck        = 4
)

// run explores the product and searches it for a fair accepting cycle. A
// fair accepting cycle of the expanded part is one of the whole product,
// so the search runs at geometrically growing checkpoints and stops at
// the first one that finds a violation (the total work stays linear). It
// returns the violation (nil when the property holds), or the reason the
// search stopped early, and the number of fair accepting SCCs found.
func (p *product) run(prop *spec.Property) (*verdict.Violation, verdict.StopReason, int) {
	if p.aut.IsEmpty() {
		return nil, verdict.NotStopped, 0
	}
	internal := func(err error) (*verdict.Violation, verdict.StopReason, int) {
		if errors.Is(err, machine.ErrInterrupted) {
			return nil, limitReason(p.ctx, p.budget), 0
		}
		return &verdict.Violation{Name: prop.Name, Kind: verdict.RuntimeError, Pos: prop.Pos, Msg: err.Error(), LoopStart: -1}, verdict.NotStopped, 0
	}
	if err := p.start(); err != nil {
		return internal(err)
	}
	putOff := false // the last checkpoint was put off
	for upto := p.firstCheck; ; upto *= checkGrowth {
		t0 := p.clock()
		reason, done, err := p.explore(upto)
		p.phase(phaseExplore, t0)
		if err != nil {
			return internal(err)
		}
		if reason != verdict.NotStopped {
			return nil, reason, 0
		}
		if p.failErr != nil {
			return p.failure(prop), verdict.NotStopped, 0
		}
		if !done && !putOff && p.nodeN-p.expanded() < upto/taperCheck {
			putOff = true
			upto = upto * 2 / checkGrowth // the next checkpoint at twice this one
			continue
		}
		putOff = false
		if v, n := p.search(prop, done); v != nil || done || p.collided != nil {
			return v, verdict.NotStopped, n
		}
	}
}

// clock returns the CPU time of Options.phases (0 without).
func (p *product) clock() int64 {
	if p.phases == nil {
		return 0
	}
	return p.phases.clock()
}

// phase adds the CPU time since t0 to phase k of Options.phases.
func (p *product) phase(k int, t0 int64) {
	if p.phases != nil {
		p.phases.cpu[k] += p.phases.clock() - t0
	}
}

func (p *product) failure(prop *spec.Property) *verdict.Violation {
	v := &verdict.Violation{Kind: p.failErr.Kind, Pos: p.failErr.Pos, Msg: p.failErr.Msg, LoopStart: -1}
	switch {
	case p.failPred:
		v.Name = prop.Name
	case p.failErr.Action >= 0:
		v.Name = p.sys.prog.Model.Actions[p.failErr.Action].Name
	default:
		v.Name = "init"
	}
	tr, _, err := p.trace(p.pathTo(p.failNode), nil)
	if errors.Is(err, errCollision) {
		p.collided = err
	}
	if err != nil {
		v.Msg += " (" + err.Error() + ")"
	}
	v.Trace = tr
	return v
}

// search looks for a fair accepting SCC in the expanded part and, when
// there is one, returns the lasso through the fair node closest to an
// initial node. last says that the product is complete: no search
// follows, so the filter may take over the in-degrees.
func (p *product) search(prop *spec.Property, last bool) (*verdict.Violation, int) {
	var roots []uint32
	if p.phases != nil {
		p.phases.checks++
	}
	if p.useFilter {
		t0 := p.clock()
		f := newOWCTYFilter(p, last && !p.record)
		roots = f.run()
		p.searchBytes = max(p.searchBytes, f.bytes())
		p.phase(phaseFilter, t0)
		if p.phases != nil {
			p.phases.rounds += f.rounds
		}
		if len(roots) == 0 {
			return nil, 0
		}
	}
	t0 := p.clock()
	c := newCycleSearch(p)
	if !p.useFilter && !p.fullSearch {
		// Only the SCCs reachable from the nodes expanded since the last
		// search: any other lies in the part searched then, where it
		// was an SCC already, with the same edges (an expanded node's
		// edges do not change), and was found unfair.
		c.from = p.searchedN
	}
	fair := c.search(roots)
	p.searchedN = p.expanded()
	p.searchBytes = max(p.searchBytes, c.bytes())
	p.phase(phaseSearch, t0)
	if len(fair) == 0 {
		return nil, 0
	}
	// The fair node closest to an initial node: the smallest id (BFS order).
	n0 := noParent
	comp := -1
	for k, nodes := range fair {
		for _, v := range nodes {
			if v < n0 {
				n0, comp = v, k
			}
		}
	}
	prefix := p.pathTo(n0)
	cycle := p.shortestPeriod(p.withActions(n0, c.lasso(n0, fair[comp])))
	steps, loop, err := p.trace(prefix, cycle)
	if errors.Is(err, errCollision) {
		p.collided = err
		return nil, 0
	}
	if err != nil {
		return &verdict.Violation{Name: prop.Name, Kind: verdict.RuntimeError, Pos: prop.Pos, Msg: err.Error(), LoopStart: -1}, len(fair)
	}
	msg := fmt.Sprintf("a run violates the property: %s, then a cycle of %s repeated forever", verdict.Plural(loop-1, "step"), verdict.Plural(len(steps)-loop, "step"))
	if loop == len(steps) { // the cycle stutters in a state without enabled action
		loop--
		msg = fmt.Sprintf("a run violates the property: %s, then no action is enabled and the last state repeats forever", verdict.Plural(loop, "step"))
	}
	return &verdict.Violation{Name: prop.Name, Kind: verdict.Property, Pos: prop.Pos, Trace: steps, LoopStart: loop, Msg: msg}, len(fair)
}
