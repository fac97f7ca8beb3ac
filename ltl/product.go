package ltl

import (
	"context"
	"slices"
	"time"
	"unsafe"

	"github.com/wrapcheck/wrapcheck/internal/vmem"
	"github.com/wrapcheck/wrapcheck/machine"
	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/verdict"
)

// product is the product of the system with the automaton of a negated
// property, explored breadth-first: node ids are in BFS order, so the
// paths of parents give shortest paths ([product.parentOf]) and a smaller
// id is never deeper.
//
// Its parts are value structs embedded in it, so that their fields are
// reached without a load more: the atom valuations, the nodes, the
// expanded part, the cycle searches' schedule, the progress reports, the
// recorded edges (tests) and the failures.
type product struct {
	ctx     context.Context
	sys     *system
	aut     *Automaton
	limit   int64
	budget  int64  // heap bytes; 0: none
	ignored []bool // per unit of sys: left out (Options.IgnoreFairness)
	// arena holds the arrays that grow with the nodes (the dense index,
	// nodeSys, nodeQ, indeg) in reserved address space, so that they
	// grow without a copy; free returns it.
	arena *vmem.Arena

	valuation
	nodeIndex
	expandedPart
	cycleChecks
	progressReport
	recording
	failures
}

// valuation is the atom values of the system states and the automaton
// edges they let through. The atoms are evaluated in groups of up to
// atomGroup by one predicate each (preds), once per state
// ([product.atomValues]).
type valuation struct {
	preds []*machine.Pred // per group of atomGroup atoms: their bit mask
	aw    int             // words per atom valuation
	vals  []uint64        // per system state: aw words of atom values
	valOK []bool
	// With at most 7 atoms (small), a state's valuation is a byte of
	// vals8 instead, with valKnown set once computed.
	small   bool
	vals8   paged[uint8]
	valBuf  [1]uint64
	liveBuf []int32   // appendEdges: the automaton edges whose label holds
	liveTab [][]int32 // liveEdges: those per (automaton state, valuation)
	// keyTab is, for a small valuation whose predicate reads slots of at
	// most keyTabBits bits, the valuation per key of those slots (key),
	// valKnown set once computed: a state whose key was met before is not
	// evaluated. keyHits and keyFills count the look-ups that found a
	// valuation and those that computed one; a table that finds fewer
	// than it computes is dropped (every state its own key: CoffeeCan).
	key               machine.PredKey
	keyTab            []uint8
	keyHits, keyFills int
}

// nodeIndex is the product's nodes: node id i is (sysOf(i), nodeQ[i]),
// reached first from the node [product.parentOf] finds again (noParent:
// an initial node); nodeN counts them.
type nodeIndex struct {
	// The node of (system state, automaton state): in dense, at
	// sysIdx*len(aut.States)+q, id+1 (0: none), when the automaton has at
	// most denseAutomaton states; else in nodes, key sysIdx<<32 | q.
	dense     []uint32
	nodes     nodeTable
	hashNodes bool // Options.hashNodes
	nodeN     int
	nodeSys   []uint32 // the system state of each node; empty while ident
	nodeQ     []uint16 // the automaton state, qBig: in bigQ; empty when oneQ or q8
	// oneQ: the automaton has one state, every node's (nodeQ is not
	// kept: 2 bytes a node).
	oneQ bool
	// q8: the automaton has 2 to 255 states, and a node's is in nodeQ8
	// (a byte a node, not 2).
	q8     bool
	nodeQ8 []uint8
	// ident: the node of system state s is node s, so dense and nodeSys
	// are not kept (8 bytes a node, and no read of dense an edge). It is
	// set at the start for an automaton of one state in the dense index
	// and holds while each new node's system state is the next one, as
	// it does in the product that explores its system first: each state
	// the system stores is a successor of the node being expanded, which
	// makes it a node in the order it was stored. lookup gives it up
	// (leaveIdent) at the first node that would break it.
	ident   bool
	noIdent bool // Options.noIdent
	bigQ    map[uint32]int32
	// Node ids are in BFS order, so the depth of a node is the level
	// whose range holds its id: levels[d] is the first node of depth d.
	levels   []uint32
	curDepth int32 // the depth of the node expandNode expands
	maxDepth int
}

// expandedPart is the expanded nodes and their edges. The edges are not
// kept: those of a node are computed again from the system's successors
// and the automaton ([product.edges]), in the order the expansion found
// them. Nodes 0..expandedN-1 are expanded; full marks those that also
// took the successors outside their ample set (the cycle proviso).
type expandedPart struct {
	expandedN int
	edgesN    int64
	downEdges int64 // the edges to a smaller id (the filter's scan)
	full      []uint64
	// indeg counts per node the edges into it from the expanded nodes
	// (when the filter runs; with cyc, only those between nodes whose
	// automaton states have a component): the OWCTY filter's first
	// elimination starts from it instead of a pass over the product's
	// edges. A count stops at maxCount (owcty.go).
	indeg    []uint8
	tmpEdges []edge   // appendTargets: the edges of a node
	tmpTo    []uint32 // addEdges: the targets of a state's successors
	// listTo, listAct and listPerm are a kept list decoded
	// (appendBy, appendTargets, appendTargetsOf).
	listTo   []uint32
	listAct  []int32
	listPerm []uint32
	batchTo  []uint32 // appendTargetsOf: the lists of a batch of nodes
	// tmpTargets is parentOf's buffer of a node's targets.
	tmpTargets []uint32
	sink       uint32 // what appendTargetsOf's touching loads read
}

// cycleChecks is when the cycle search runs over the expanded part
// ([product.run]) and what it runs with.
type cycleChecks struct {
	firstCheck int         // expanded nodes at the first cycle search
	filter     filterMode  // Options.filter
	useFilter  bool        // the OWCTY filter runs (filter, and the units)
	phases     *phaseStats // Options.phases
	// searchBytes is the largest footprint of a cycle search so far.
	searchBytes int64
	// searchedN is the number of expanded nodes at the last cycle search
	// without the filter: the next one starts its depth-first search at
	// the nodes expanded since (see [product.search]); fullSearch starts
	// it at every node (Options.fullSearch).
	searchedN  int
	fullSearch bool
	// cyc is per automaton state the number of its component when an
	// accepting cycle may stay in it, else -1 ([Automaton.CycleSCCs]):
	// the filter and the cycle search leave out the nodes of -1 and the
	// edges between two components. nil when no state has -1 (or
	// Options.noCycleSCCs).
	cyc []int32
}

// progressReport is the progress of the exploration, reported about
// once a second when progress is not nil.
type progressReport struct {
	progress func(verdict.Progress)
	name     string    // the property, for progress
	started  time.Time // the check's start, for progress
	lastProg time.Time
}

// recording keeps the edges of node i as expandNode found them in
// recorded[recordOff[i]:recordOff[i+1]] when record is set (tests).
type recording struct {
	record    bool
	recorded  []edge
	recordOff []int64
}

// failures is why the exploration or the search stopped short of a
// verdict.
type failures struct {
	// collided is errCollision when hash compaction made the violation
	// found no run of the system.
	collided error

	// Set when the exploration stops on a failure.
	failNode uint32
	failErr  *machine.ExecError
	failPred bool
}

const noParent = ^uint32(0)

func newProduct(ctx context.Context, sys *system, aut *Automaton, atoms []*spec.Expr, limit int64) (*product, error) {
	p := &product{ctx: ctx, sys: sys, aut: aut, limit: limit, ignored: make([]bool, len(sys.units)),
		valuation: valuation{aw: (len(atoms) + 63) / 64, small: len(atoms) <= 7}, nodeIndex: nodeIndex{oneQ: len(aut.States) == 1, q8: len(aut.States) > 1 && len(aut.States) <= 255}, cycleChecks: cycleChecks{firstCheck: defaultFirstCheck}}
	// Atoms are evaluated in groups of up to 62 by one predicate that
	// computes their bit mask (sum of if atom_i then 2^i else 0), so the
	// state is unpacked once per group.
	intT := &spec.Type{Kind: spec.IntKind, Width: 1}
	for lo := 0; lo < len(atoms); lo += atomGroup {
		var sum *spec.Expr
		for i := lo; i < min(lo+atomGroup, len(atoms)); i++ {
			a := atoms[i]
			bit := &spec.Expr{Op: spec.OpCond, Type: intT, Pos: a.Pos, Args: []*spec.Expr{a,
				{Op: spec.OpConst, Type: intT, Val: 1 << uint(i-lo)}, {Op: spec.OpConst, Type: intT, Val: 0}}}
			if sum == nil {
				sum = bit
			} else {
				sum = &spec.Expr{Op: spec.OpAdd, Type: intT, Pos: a.Pos, Args: []*spec.Expr{sum, bit}}
			}
		}
		pr, err := sys.prog.CompileExpr(sum)
		if err != nil {
			return nil, err
		}
		p.preds = append(p.preds, pr)
	}
	if scc, all := aut.CycleSCCs(); !all {
		p.cyc = scc
	}
	p.reserveArrays()
	if p.small && len(p.preds) == 1 {
		if k, ok := sys.prog.KeyOf(p.preds[0], keyTabBits); ok {
			p.key, p.keyTab = k, make([]uint8, 1<<k.Bits())
		}
	}
	return p, nil
}

const atomGroup = 62

// reserveArrays reserves the address space of the arrays that grow with
// the nodes: as many nodes as the limit allows, or 2^32 (node ids are
// 32 bits), and the dense index for as many system states times the
// automaton's states. Only what the arrays grow to is memory: a
// reservation is address space, and where it is refused the arrays
// grow on the heap.
func (p *product) reserveArrays() {
	n := p.nodeRoom()
	p.arena = vmem.New()
	p.nodeSys = vmem.Reserve[uint32](p.arena, n)
	switch {
	case p.q8:
		p.nodeQ8 = vmem.Reserve[uint8](p.arena, n)
	case !p.oneQ:
		p.nodeQ = vmem.Reserve[uint16](p.arena, n)
	}
	p.indeg = vmem.Reserve[uint8](p.arena, n)
	if na := len(p.aut.States); na <= denseAutomaton {
		p.dense = vmem.Reserve[uint32](p.arena, n*na)
	}
}

// nodeRoom returns the most nodes the product may have: as many as the
// limit allows, or 2^32 (node ids are 32 bits).
func (p *product) nodeRoom() int {
	if p.limit > 0 && p.limit < 1<<32 {
		return int(p.limit) + 1
	}
	return 1 << 32
}

// wideQ keeps the nodes' automaton states in 2 bytes (nodeQ) for an
// automaton of fewer than 256 states too (tests: product.q8).
func (p *product) wideQ() {
	if p.q8 && p.nodeN == 0 {
		p.q8, p.nodeQ8 = false, nil
		p.nodeQ = vmem.Reserve[uint16](p.arena, p.nodeRoom())
	}
}

// free returns the product's reserved arrays: the product may not be
// used after.
func (p *product) free() {
	p.arena.Free()
	p.dense, p.nodeSys, p.nodeQ, p.nodeQ8, p.indeg = nil, nil, nil, nil, nil
}

// keyTabBits is the widest key of the slots a small valuation reads that
// keyTab indexes (a table of 2^keyTabBits bytes at most).
const keyTabBits = 18

// keyTabTrial is the number of valuations computed through keyTab after
// which (and after each as many more) the table is dropped when it found
// fewer than it computed.
const keyTabTrial = 1 << 12

// ignore leaves out the units of the given fairness declarations.
func (p *product) ignore(decls []int) {
	p.ignored = make([]bool, len(p.sys.units))
	for u, d := range p.sys.unitDecl {
		p.ignored[u] = slices.Contains(decls, d)
	}
}

// atomValues returns the atom valuation of system state idx (valid until
// the next call of atomValues or valsOf).
func (p *product) atomValues(idx uint32) ([]uint64, error) {
	if p.small {
		if int(idx) >= p.vals8.len() {
			p.vals8.extend(int(idx) + 1)
		}
		if v8 := p.vals8.at(idx); *v8&valKnown == 0 {
			st := p.sys.state(idx)
			if p.keyTab == nil {
				v, err := p.evalSmall(st)
				if err != nil {
					return nil, err
				}
				*v8 = v
				return p.valsOf(idx), nil
			}
			k := p.key.Of(st)
			if v := p.keyTab[k]; v != 0 {
				p.keyHits++
				*v8 = v
				return p.valsOf(idx), nil
			}
			v, err := p.evalSmall(st)
			if err != nil {
				return nil, err
			}
			*v8, p.keyTab[k] = v, v
			if p.keyFills++; p.keyFills%keyTabTrial == 0 && p.keyHits < p.keyFills {
				p.keyTab = nil
			}
		}
		return p.valsOf(idx), nil
	}
	for len(p.valOK) <= int(idx) {
		p.valOK = append(p.valOK, false)
		p.vals = append(p.vals, make([]uint64, p.aw)...)
	}
	v := p.vals[int(idx)*p.aw : int(idx+1)*p.aw]
	if p.valOK[idx] {
		return v, nil
	}
	st := p.sys.state(idx)
	for g, pr := range p.preds {
		x, err := p.sys.mach.Eval(pr, st)
		if err != nil {
			return nil, err
		}
		for k := 0; x != 0; k++ {
			if x&1 != 0 {
				i := g*atomGroup + k
				v[i/64] |= 1 << uint(i%64)
			}
			x >>= 1
		}
	}
	p.valOK[idx] = true
	return v, nil
}

// evalSmall returns the small valuation of the packed state st, with
// valKnown set.
func (p *product) evalSmall(st machine.State) (uint8, error) {
	v := uint8(valKnown)
	for _, pr := range p.preds {
		x, err := p.sys.mach.Eval(pr, st)
		if err != nil {
			return 0, err
		}
		v |= uint8(x)
	}
	return v, nil
}

// valKnown marks a computed valuation in vals8.
const valKnown = 1 << 7

// valsOf returns the atom valuation of the system state s, which
// atomValues computed (valid until the next call of atomValues or
// valsOf).
func (p *product) valsOf(s uint32) []uint64 {
	if p.small {
		p.valBuf[0] = uint64(p.vals8.get(s) &^ valKnown)
		return p.valBuf[:]
	}
	return p.vals[int(s)*p.aw : int(s+1)*p.aw]
}

// liveEdges returns the indexes of the edges of automaton state q whose
// label holds at the atom values vals (read-only: p.liveBuf, reused, or
// the list liveTab keeps).
func (p *product) liveEdges(q int, vals []uint64) []int32 {
	es := p.aut.States[q].Edges
	if !p.small || len(p.aut.States) > liveTabStates {
		p.liveBuf = p.appendLive(p.liveBuf[:0], es, vals)
		return p.liveBuf
	}
	// At most 7 atoms: the lists per (q, valuation) are computed once.
	if p.liveTab == nil {
		p.liveTab = make([][]int32, len(p.aut.States)<<7)
	}
	k := q<<7 | int(vals[0])
	if l := p.liveTab[k]; l != nil {
		return l
	}
	l := p.appendLive(make([]int32, 0, 1), es, vals) // not nil when empty
	p.liveTab[k] = l
	return l
}

// appendLive appends to dst the indexes of the edges of es whose label
// holds at the atom values vals (liveBuf: dst is kept there).
func (p *product) appendLive(dst []int32, es []Edge, vals []uint64) []int32 {
	for j := range es {
		if labelHolds(es[j].Label, vals) {
			dst = append(dst, int32(j))
		}
	}
	return dst
}

// liveTabStates is the largest automaton whose live edges liveTab keeps
// (128 lists per automaton state).
const liveTabStates = 64

func labelHolds(l Label, vals []uint64) bool {
	for _, lit := range l {
		a := lit.Atom()
		if (vals[a/64]>>uint(a%64))&1 == uint64(lit&1) {
			return false
		}
	}
	return true
}

func (p *product) node(sysIdx uint32, q int, d int32) (uint32, error) {
	if p.nodeN == int(noParent) {
		return 0, machine.ErrStoreFull
	}
	id, isNew := p.lookup(sysIdx, q)
	if isNew {
		p.nodeN++
		if !p.ident {
			p.nodeSys = vmem.Append(p.arena, p.nodeSys, sysIdx)
		}
		switch {
		case p.q8:
			p.nodeQ8 = vmem.Append(p.arena, p.nodeQ8, uint8(q))
		case !p.oneQ:
			if q >= qBig {
				if p.bigQ == nil {
					p.bigQ = map[uint32]int32{}
				}
				p.bigQ[id] = int32(q)
				q = qBig
			}
			p.nodeQ = vmem.Append(p.arena, p.nodeQ, uint16(q))
		}
		if int(d) == len(p.levels) {
			p.levels = append(p.levels, id)
			p.maxDepth = int(d)
		}
		if p.useFilter {
			p.indeg = vmem.Append(p.arena, p.indeg, 0)
		}
	}
	return id, nil
}

// qBig is the nodeQ of a node whose automaton state is kept in bigQ (an
// automaton of more than qBig states; 2 bytes a node otherwise, and 1
// in nodeQ8 for one of fewer than 256).
const qBig = 1<<16 - 1

// cycOf returns the component of node v's automaton state in which an
// accepting cycle may stay, or -1 (see cycleChecks.cyc, which is not nil).
func (p *product) cycOf(v uint32) int32 {
	return p.cyc[p.stateQ(v)]
}

// stateQ returns the automaton state of node v.
func (p *product) stateQ(v uint32) int {
	if p.q8 {
		return int(p.nodeQ8[v])
	}
	if p.oneQ {
		return 0
	}
	if q := p.nodeQ[v]; q != qBig {
		return int(q)
	}
	return int(p.bigQ[v])
}

// footprint returns the bytes the product's search keeps (see
// PropertyStats.Bytes).
func (p *product) footprint() int64 {
	s := p.sys
	var b int64
	if s.fp != nil {
		b = s.fp.Bytes()
	} else {
		b = s.store.Bytes()
	}
	b += bytesOf(s.expanded.w) + bytesOf(s.enabled) + bytesOf(s.enabled8) + bytesOf(s.reduced.w) + bytesOf(s.cache) +
		s.succAt.bytes() + bytesOf(s.succBase) + bytesOf(s.succFirst) + s.succB.bytes()
	for _, sl := range s.cache {
		b += bytesOf(sl.list)
	}
	b += bytesOf(p.vals) + p.vals8.bytes() + bytesOf(p.valOK) + bytesOf(p.dense) + bytesOf(p.nodes.keys) + bytesOf(p.nodes.ids) +
		bytesOf(p.nodeSys) + bytesOf(p.nodeQ) + bytesOf(p.nodeQ8) + bytesOf(p.levels) + bytesOf(p.indeg) +
		bytesOf(p.full) + bytesOf(p.liveTab) + bytesOf(p.keyTab)
	for _, l := range p.liveTab {
		b += bytesOf(l)
	}
	return b + p.searchBytes
}

// bytesOf returns the bytes of the array behind x.
func bytesOf[T any](x []T) int64 {
	var z T
	return int64(cap(x)) * int64(unsafe.Sizeof(z))
}

// denseAutomaton is the largest automaton whose product nodes are found
// through the dense array (4 bytes per system state and automaton state,
// no more than the hash table's 16 to 32 bytes per node, and the nodes
// of consecutive system states are near each other in memory).
const denseAutomaton = 8

// denseIndex reports whether the product's nodes are found in the dense
// index (else in the hash index nodes).
func (p *product) denseIndex() bool {
	return len(p.aut.States) <= denseAutomaton && !p.hashNodes
}

// lookup returns the id of node (sysIdx, q), adding it with the next id
// (p.nodeN) when absent.
func (p *product) lookup(sysIdx uint32, q int) (uint32, bool) {
	next := uint32(p.nodeN)
	na := len(p.aut.States)
	if !p.denseIndex() {
		return p.nodes.insert(uint64(sysIdx)<<32|uint64(q), next)
	}
	if p.ident {
		if sysIdx < next {
			return sysIdx, false
		}
		if sysIdx == next {
			return next, true
		}
		p.leaveIdent()
	}
	k := int(sysIdx)*na + q
	if k >= len(p.dense) {
		p.growDense(k + 1)
	}
	if id := p.dense[k]; id != 0 {
		return id - 1, false
	}
	p.dense[k] = next + 1
	return next, true
}

// leaveIdent makes the dense index and the nodes' system states that
// ident left out: node s of system state s for every node so far.
func (p *product) leaveIdent() {
	p.ident = false
	n := p.nodeN
	p.growDense(max(n, int(p.sys.len())) * len(p.aut.States))
	p.nodeSys = vmem.Grow(p.arena, p.nodeSys, n)
	for k := range n {
		p.dense[k] = uint32(k) + 1
		p.nodeSys = append(p.nodeSys, uint32(k))
	}
}

// sysOf returns the system state of node v.
func (p *product) sysOf(v uint32) uint32 {
	if p.ident {
		return v
	}
	return p.nodeSys[v]
}

// nodeOf returns the id of node (sysIdx, q) of the dense index, which
// exists.
func (p *product) nodeOf(sysIdx uint32, q, na int) uint32 {
	if p.ident {
		return sysIdx
	}
	return p.dense[int(sysIdx)*na+q] - 1
}

// growDense makes the dense index at least n entries long, zero past
// its old length, taking the whole capacity it grew to.
func (p *product) growDense(n int) {
	p.dense = vmem.Grow(p.arena, p.dense, n-len(p.dense))
	p.dense = p.dense[:cap(p.dense)]
}

// start adds the initial product nodes.
func (p *product) start() error {
	p.ident = p.oneQ && p.denseIndex() && !p.noIdent
	p.reserve(int(p.sys.inits.len()))
	for k := range p.sys.inits.len() {
		s := p.sys.inits.get(uint32(k))
		if _, err := p.node(s, p.aut.Init, 0); err != nil {
			return err
		}
	}
	return nil
}

// reserve makes room in the per-node arrays for n more nodes at once, and
// in the dense index for every system state stored so far, so that a
// product with many initial nodes (CoffeeCan's are all its states) does
// not grow them by a quarter at a time, copying each one about four
// times over.
func (p *product) reserve(n int) {
	if !p.ident {
		p.nodeSys = vmem.Grow(p.arena, p.nodeSys, n)
	}
	switch {
	case p.q8:
		p.nodeQ8 = vmem.Grow(p.arena, p.nodeQ8, n)
	case !p.oneQ:
		p.nodeQ = vmem.Grow(p.arena, p.nodeQ, n)
	}
	if p.useFilter {
		p.indeg = vmem.Grow(p.arena, p.indeg, n)
	}
	if na := len(p.aut.States); p.denseIndex() && !p.ident {
		if k := int(p.sys.len()) * na; k > len(p.dense) {
			p.growDense(k)
		}
	}
}

// expanded returns the number of expanded nodes: nodes 0..expanded()-1
// have their edges.
func (p *product) expanded() int { return p.expandedN }

// edge is a product edge: to node to, by the system's action act (-1: the
// stutter of a state without enabled action), in the acceptance sets acc;
// perm is the id of the permutation that canonicalised the system
// successor (thread tracking only).
type edge struct {
	to   uint32
	act  int32
	perm uint32
	acc  uint64
}

// edgeCursor enumerates the edges of one expanded node v: for each system
// successor of its state (its ample set's, then, when v is full, the
// others'), each automaton edge whose label holds, in the order
// expandNode found them (the passes over the product take a node's
// edges at once, [product.appendEdges]): k is the next system successor (its
// place in the state's list, [system.succs]), j the next automaton edge
// there, negative (-j-1) once the cursor is in the list of the successors
// outside the ample set.
type edgeCursor struct {
	k int64
	v uint32
	j int32
}

// edges returns a cursor over the edges of the expanded node v.
func (p *product) edges(v uint32) edgeCursor {
	return edgeCursor{v: v}
}

// next returns the next edge of c, or false when there is none.
func (p *product) next(c *edgeCursor) (edge, bool) {
	sys := p.sys
	s := p.sysOf(c.v)
	if !sys.expanded.has(s) {
		return edge{}, false
	}
	rest := c.j < 0
	if e, ok := p.step(c, sys.succs(s, rest), rest); ok || rest || !p.isFull(c.v) {
		return e, ok
	}
	c.k, c.j = 0, -1
	return p.step(c, sys.succs(s, true), true)
}

// isFull reports whether node v took the successors outside its ample
// set too (the cycle proviso).
func (p *product) isFull(v uint32) bool {
	return int(v/64) < len(p.full) && p.full[v/64]>>(v%64)&1 != 0
}

// step returns the next edge of c by the successors in list (those
// outside the ample set when rest), or false at its end.
func (p *product) step(c *edgeCursor, list []succ, rest bool) (edge, bool) {
	s := p.sysOf(c.v)
	es := p.aut.States[p.stateQ(c.v)].Edges
	vals := p.valsOf(s)
	j := int(c.j)
	if rest {
		j = -j - 1
	}
	for ; c.k < int64(len(list)); c.k++ {
		sc := &list[c.k]
		for j < len(es) {
			e := &es[j]
			j++
			if !labelHolds(e.Label, vals) {
				continue
			}
			ed := edge{to: p.find(sc.to, e.To), act: sc.act, acc: e.Acc}
			if p.sys.threads != nil {
				ed.perm = sc.perm
			}
			c.j = int32(j)
			if rest {
				c.j = int32(-j - 1)
			}
			return ed, true
		}
		j = 0
	}
	return edge{}, false
}

// appendEdges appends the edges of the expanded node v to dst, in the
// order of its cursor ([product.next]), and returns dst: the passes over
// the product take a node's edges in one call, the labels of its
// automaton state evaluated once (not once per system successor) and the
// kept successor lists decoded once a node.
func (p *product) appendEdges(dst []edge, v uint32) []edge {
	// The passes read the actions when there are fairness units (the
	// system then keeps them).
	return p.edgesOf(dst, v, len(p.sys.units) > 0)
}

// actEdges is [product.appendEdges] with the edges' actions also when
// the system keeps its successors' targets only (not system.keepAct):
// the lists are then computed again.
func (p *product) actEdges(dst []edge, v uint32) []edge {
	return p.edgesOf(dst, v, true)
}

// edgesOf appends the edges of the expanded node v to dst; their actions
// are noAct when the system keeps its successors' targets only and acts
// is false.
func (p *product) edgesOf(dst []edge, v uint32, acts bool) []edge {
	s, es, live, ok := p.liveOf(v)
	if !ok {
		return dst
	}
	dst = p.appendBy(dst, s, false, es, live, acts)
	if p.isFull(v) {
		dst = p.appendBy(dst, s, true, es, live, acts)
	}
	return dst
}

// liveOf returns the system state of the expanded node v, the edges of
// its automaton state and, in p.liveBuf, the indexes of those whose label
// holds there; ok is false when v has no edge (its system state was not
// expanded, or no label holds).
func (p *product) liveOf(v uint32) (s uint32, es []Edge, live []int32, ok bool) {
	s = p.sysOf(v)
	if !p.sys.expanded.has(s) {
		return s, nil, nil, false
	}
	q := p.stateQ(v)
	es = p.aut.States[q].Edges
	if p.liveTab != nil { // the lists per (q, valuation) kept: read in place
		if l := p.liveTab[q<<7|int(p.vals8.get(s)&^valKnown)]; l != nil {
			return s, es, l, len(l) > 0
		}
	}
	live = p.liveEdges(q, p.valsOf(s))
	return s, es, live, len(live) > 0
}

// noAct is the action of an edge whose action is not known (see
// [product.edgesOf]).
const noAct = -2

// appendBy appends the edges by the system successors of state s (rest:
// those outside its ample set) and the automaton edges es[live]; with
// acts, the actions also when the system does not keep them.
func (p *product) appendBy(dst []edge, s uint32, rest bool, es []Edge, live []int32, acts bool) []edge {
	sys := p.sys
	threads := sys.threads != nil
	if sys.keep && (sys.keepAct || !acts) {
		off, n := sys.keptList(s, rest)
		to, act, perms := sys.decodeList(s, rest, off, n, p.listTo[:0], p.listAct[:0], p.listPerm[:0])
		p.listTo, p.listAct, p.listPerm = to, act, perms
		if !sys.keepAct {
			act = nil
		}
		// The edges written in place, room made once, the dense index
		// read without a call per edge (the cycle search's passes take
		// every edge of every node at every checkpoint).
		at := len(dst)
		dst = slices.Grow(dst, len(to)*len(live))[:at+len(to)*len(live)]
		out := dst[at:]
		dense, na := p.denseIndex(), len(p.aut.States)
		if len(live) == 1 && dense && !threads {
			// One automaton edge (the common case): one loop over the
			// successors.
			e := &es[live[0]]
			q, acc := e.To, e.Acc
			out = out[:len(to)]
			for k, t := range to {
				a := int32(noAct)
				if act != nil {
					a = act[k]
				}
				out[k] = edge{to: p.nodeOf(t, q, na), act: a, acc: acc}
			}
			return dst
		}
		i := 0
		for k, t := range to {
			var perm uint32
			if threads {
				perm = perms[k]
			}
			a := int32(noAct)
			if act != nil {
				a = act[k]
			}
			for _, j := range live {
				e := &es[j]
				var id uint32
				if dense {
					id = p.nodeOf(t, e.To, na)
				} else {
					id = p.find(t, e.To)
				}
				out[i] = edge{to: id, act: a, perm: perm, acc: e.Acc}
				i++
			}
		}
		return dst
	}
	list := sys.succs(s, rest)
	for k := range list {
		sc := &list[k]
		var perm uint32
		if threads {
			perm = sc.perm
		}
		for _, j := range live {
			e := &es[j]
			dst = append(dst, edge{to: p.find(sc.to, e.To), act: sc.act, perm: perm, acc: e.Acc})
		}
	}
	return dst
}

// appendTargets appends the targets of the edges of the expanded node v
// to dst, in the order of [product.appendEdges], for the passes that need
// no more (the OWCTY filter's eliminations): from the kept lists, without
// the edges' actions and acceptance sets.
func (p *product) appendTargets(dst []uint32, v uint32) []uint32 {
	return p.appendTargetsWith(dst, v, nil, false)
}

// appendTargetsWith is appendTargets with, when have, the targets of the
// kept list of v's state (its ample set's) decoded already, in main.
func (p *product) appendTargetsWith(dst []uint32, v uint32, main []uint32, have bool) []uint32 {
	sys := p.sys
	if !sys.keep {
		p.tmpEdges = p.appendEdges(p.tmpEdges[:0], v)
		for _, e := range p.tmpEdges {
			dst = append(dst, e.to)
		}
		return dst
	}
	s, es, live, ok := p.liveOf(v)
	if !ok {
		return dst
	}
	dense, na := p.denseIndex(), len(p.aut.States)
	off, n := sys.keptList(s, false)
	for rest := false; ; rest = true {
		list := main
		if rest || !have {
			list = sys.targetsOf(s, rest, off, n, p.listTo[:0])
			p.listTo = list
		}
		if dense && len(live) == 1 { // one automaton edge: one loop, the index read in place
			to := es[live[0]].To
			dst = slices.Grow(dst, len(list))
			if p.ident {
				dst = append(dst, list...)
			} else {
				for _, t := range list {
					dst = append(dst, p.dense[int(t)*na+to]-1)
				}
			}
		} else {
			for _, t := range list {
				for _, j := range live {
					if dense {
						dst = append(dst, p.nodeOf(t, es[j].To, na))
					} else {
						dst = append(dst, p.find(t, es[j].To))
					}
				}
			}
		}
		if rest || !p.isFull(v) {
			return dst
		}
		off, n = sys.keptList(s, true)
	}
}

// appendTargetsOf appends the targets of the edges of the expanded nodes
// vs to dst, node after node, as appendTargets does. It first loads,
// stage by stage and each stage in a loop of its own, what appendTargets
// reads for all of them: the nodes' system and automaton states, the
// system states' kept lists' offsets and atom valuations, then the
// lists (decoded once, into batchTo) and the dense index's entries of
// their targets. The loads of one stage do not wait for each other, so
// their misses overlap.
func (p *product) appendTargetsOf(dst []uint32, vs []uint32) []uint32 {
	sys := p.sys
	if sys.keep && len(vs) <= elimBatch {
		var ss [elimBatch]uint32
		var at [elimBatch]uint32
		var sink uint32
		for i, v := range vs {
			ss[i] = p.sysOf(v)
			if !p.oneQ {
				sink += uint32(p.stateQ(v))
			}
		}
		for i, s := range ss[:len(vs)] {
			at[i] = sys.succAt.get(s)
			if p.small {
				sink += uint32(p.vals8.get(s))
			}
		}
		touch := p.denseIndex() && !p.ident
		na := len(p.aut.States)
		var ends [elimBatch]int32 // the end of each list in batchTo; -1: not decoded
		p.batchTo = p.batchTo[:0]
		for i, w := range at[:len(vs)] {
			ends[i] = -1
			n := int64(w & succNMax)
			if n == 0 || n == succNMax {
				continue
			}
			from := len(p.batchTo)
			off := sys.succBase[ss[i]/succBlock] + int64(w>>succNBits)
			p.batchTo = sys.targetsOf(ss[i], false, off, n, p.batchTo)
			ends[i] = int32(len(p.batchTo))
			if touch {
				for _, t := range p.batchTo[from:] {
					if k := int(t) * na; k < len(p.dense) {
						sink += p.dense[k]
					}
				}
			}
		}
		p.sink += sink
		from := int32(0)
		for i, v := range vs {
			if ends[i] < 0 {
				dst = p.appendTargets(dst, v)
				continue
			}
			dst = p.appendTargetsWith(dst, v, p.batchTo[from:ends[i]], true)
			from = ends[i]
		}
		return dst
	}
	for _, v := range vs {
		dst = p.appendTargets(dst, v)
	}
	return dst
}

// find returns the id of node (sysIdx, q), which exists: the expansion
// that found the edge to it added it.
func (p *product) find(sysIdx uint32, q int) uint32 {
	na := len(p.aut.States)
	if !p.denseIndex() {
		return p.nodes.find(uint64(sysIdx)<<32 | uint64(q))
	}
	return p.nodeOf(sysIdx, q, na)
}
