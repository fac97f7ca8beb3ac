package ltl

// The OWCTY filter ("one way to catch them young", Černá and Pelánek) in
// front of the cycle search: passes over the expanded product that remove
// every node lying on no cycle that is accepting for the automaton and
// weakly fair for the plain weakly fair units. What remains is empty
// exactly when there is no such cycle; when it is not empty, the cycle
// search runs on the remainder only (docs/impl.md, "Liveness memory").
//
// Why the cycle search finds the same fair SCCs on the remainder: it
// returns the maximal fair strongly connected subgraphs of the graph it
// is given (every refinement removes only nodes that lie in no fair
// subgraph, and fair subgraphs that share a node have a fair union), and
// every node of a fair subgraph lies on a closed walk through all of it,
// which is accepting and weakly fair, so the filter keeps it. A fair
// subgraph of the remainder is one of the whole product (its fairness
// depends only on its own nodes and edges). The lasso is built from the
// fair SCC through the node of smallest id and the parents in the whole
// product, so it does not change either.

// filterMode says when the filter runs.
type filterMode uint8

const (
	// filterAuto runs it when no plain weakly fair unit is an acceptance
	// set: with them the product's SCC quotient has chains of unfair SCCs
	// (a run that is not fair to a process in every state of a phase),
	// one removed per round, and the rounds cost more than the cycle
	// search (docs/impl.md).
	filterAuto filterMode = iota
	filterOff             // the cycle search on the whole expanded product
	filterOn              // always
)

// owctyFilter holds the passes' state over nodes 0..n-1 of a product.
type owctyFilter struct {
	p    *product
	n    int
	in   []uint64 // the current set, one bit per node
	size int
	// word is per node the number of its predecessors in the set, up to
	// maxCount (elimination), or the acceptance sets of a chunk it is
	// reached from, with queuedBit while it waits in queue
	// (reachability): a byte a node.
	word    []uint8
	taken   bool     // word is the product's indeg (newOWCTYFilter)
	queue   []uint32 // the work list of both passes
	edges   []edge   // the edges of one node (appendEdges)
	targets []uint32 // their targets (appendTargets)
	batch   [elimBatch]uint32
	batchN  int    // the removals taken together (elimBatch; tests: fewer)
	sink    uint32 // what drain's touching loads read
	weak    []int  // the plain weakly fair units, used as acceptance sets
	// rounds counts the rounds run; fixpoint runs them until one removes
	// nothing (tests).
	rounds   int
	fixpoint bool
}

// chunkSets acceptance sets are propagated together; the word's top bit
// marks a queued node. A count of predecessors stops at maxCount, and a
// node whose count reached it is not removed by that elimination (the
// filter may keep more than the nodes of accepting cycles, never fewer:
// the cycle search finds the same fair components on any such set).
const (
	chunkSets = 7
	queuedBit = uint8(1) << 7
	maxCount  = 1<<8 - 1
)

// addCount counts one more predecessor in c, which stops at maxCount.
func addCount(c *uint8) {
	if *c != maxCount {
		*c++
	}
}

// newOWCTYFilter prepares the filter over the expanded nodes of p. With
// takeIndeg (the last search, when no test reads p.indeg after it), the
// filter's words are p.indeg's own array, which its first elimination
// starts from and the passes then overwrite: 4 bytes a node less at the
// product's largest.
func newOWCTYFilter(p *product, takeIndeg bool) *owctyFilter {
	n := p.expanded()
	f := &owctyFilter{p: p, n: n, in: make([]uint64, (n+63)/64), batchN: elimBatch}
	if takeIndeg && p.useFilter {
		f.word, f.taken = p.indeg[:n:n], true
	} else {
		f.word = make([]uint8, n)
	}
	// With p.cyc, the nodes on no accepting cycle by their automaton
	// state are not in the set (nor, in the in-degrees that the first
	// elimination starts from, their edges).
	f.size = 0
	for v := 0; v < n; v++ {
		if p.cyc == nil || p.cycOf(uint32(v)) >= 0 {
			f.in[v/64] |= 1 << uint(v%64)
			f.size++
		}
	}
	f.weak = p.weakUnits()
	return f
}

// weakUnits returns the weakly fair units that are neither ignored nor
// followed through threads: the filter's extra acceptance sets.
func (p *product) weakUnits() []int {
	var weak []int
	for u, un := range p.sys.units {
		if !un.strong && !un.threaded && !p.ignored[u] {
			weak = append(weak, u)
		}
	}
	return weak
}

// bytes returns the bytes of the filter's arrays.
func (f *owctyFilter) bytes() int64 {
	b := bytesOf(f.in) + bytesOf(f.queue) + bytesOf(f.edges) + bytesOf(f.targets)
	if !f.taken { // else counted as the product's
		b += bytesOf(f.word)
	}
	return b
}

// has reports whether node w is in the set.
func (f *owctyFilter) has(w uint32) bool {
	return int(w) < f.n && f.in[w/64]>>(w%64)&1 != 0
}

func (f *owctyFilter) remove(v uint32) {
	f.in[v/64] &^= 1 << (v % 64)
	f.size--
}

// run applies the passes and returns the remaining nodes in increasing
// order. A round keeps the nodes reachable inside the set from an edge of
// each acceptance set (for the sets of one chunk in one propagation: the
// intersection of the reachable sets, a superset of what passes set by
// set keep, and still a superset of every accepting cycle), then
// eliminates the nodes without predecessor. The rounds stop when one
// removes nothing, or less than a quarter of the set (a chain of unfair
// SCCs loses one per round: the cycle search is then cheaper than the
// rounds left).
func (f *owctyFilter) run() []uint32 {
	sets := f.p.aut.NumAcc + len(f.weak)
	before := f.size
	f.eliminate(true)
	for f.size > 0 {
		for lo := 0; lo < sets && f.size > 0; lo += chunkSets {
			f.reach(lo, min(lo+chunkSets, sets))
		}
		f.eliminate(false)
		f.rounds++
		if before == f.size || !f.fixpoint && before-f.size < before/4 {
			break
		}
		before = f.size
	}
	var rest []uint32
	for v := 0; v < f.n; v++ {
		if f.has(uint32(v)) {
			rest = append(rest, uint32(v))
		}
	}
	return rest
}

// setsOf returns the acceptance sets lo..hi-1 that edge e out of node v
// belongs to, as bits from 0: the automaton's sets first, then the weakly
// fair units (an edge taking the unit or leaving a state where it is
// disabled).
func (f *owctyFilter) setsOf(lo, hi int, v uint32, e edge) uint32 {
	p := f.p
	sys := p.sys
	var m uint32
	for i := lo; i < hi; i++ {
		if i < p.aut.NumAcc {
			m |= uint32(e.acc>>uint(i)&1) << uint(i-lo)
			continue
		}
		u := f.weak[i-p.aut.NumAcc]
		w, b := u/64, uint64(1)<<uint(u%64)
		if e.act >= 0 && sys.actionUnits[int(e.act)*sys.uw+w]&b != 0 || sys.unitsEnabled(p.sysOf(v))[w]&b == 0 {
			m |= 1 << uint(i-lo)
		}
	}
	return m
}

// inSet reports whether edge e out of node v belongs to acceptance set i.
func (f *owctyFilter) inSet(i int, v uint32, e edge) bool {
	return f.setsOf(i, i+1, v, e) != 0
}

// eliminate removes, until none is left, the nodes of the set without a
// predecessor in it. The first elimination (the set holds every expanded
// node) takes the numbers of predecessors the exploration counted, when
// it counted them (the product was explored for the filter).
func (f *owctyFilter) eliminate(first bool) {
	p := f.p
	if first && p.useFilter {
		if !f.taken {
			copy(f.word, p.indeg[:f.n])
		}
	} else {
		clear(f.word)
		for v := 0; v < f.n; v++ {
			if !f.has(uint32(v)) {
				continue
			}
			f.targets = p.appendTargets(f.targets[:0], uint32(v))
			for _, t := range f.targets {
				if f.has(t) {
					addCount(&f.word[t])
				}
			}
		}
	}
	// The nodes are removed in the order of a scan of the ids, which is
	// the order of the product's arrays, in the direction most of the
	// product's edges go (up in a breadth-first product; CoffeeCan's,
	// whose states are all initial, mostly down): a node whose last
	// predecessor goes is removed by the scan when it is ahead of it, and
	// from the work list when it is behind, elimBatch of them at a time
	// (drain), so that most removals read the arrays in order and the
	// others overlap their misses. The set left is the same in any order
	// (the largest subset in which every node has a predecessor in it).
	down := 2*p.downEdges > p.edgesN
	f.queue = f.queue[:0]
	for k := 0; k < f.n; k++ {
		v := k
		if down {
			v = f.n - 1 - k
		}
		if f.has(uint32(v)) && f.word[v] == 0 {
			f.remove(uint32(v))
			f.targets = p.appendTargets(f.targets[:0], uint32(v))
			f.release(k, down)
		}
		if len(f.queue) >= f.batchN {
			f.drain(k, down, f.batchN)
		}
	}
	f.drain(f.n, down, 0)
}

// elimBatch is the number of queued removals whose memory accesses the
// elimination overlaps (drain).
const elimBatch = 32

// release takes one predecessor off each target in f.targets of nodes
// just removed, and queues those left without any that the scan has
// passed (their place in the scan at most k); the scan finds the others.
// A count at maxCount stays there: its node is kept.
func (f *owctyFilter) release(k int, down bool) {
	for _, t := range f.targets {
		if !f.has(t) || f.word[t] == maxCount {
			continue
		}
		if f.word[t]--; f.word[t] != 0 {
			continue
		}
		if pos := int(t); down && f.n-1-pos <= k || !down && pos <= k {
			f.queue = append(f.queue, t)
		}
	}
}

// drain removes queued nodes until fewer than keep wait, a batch of at
// most batchN at a time (the scan is at k). A batch's nodes are taken
// together, stage by stage (appendTargetsOf, then the targets' counts),
// so that the cache misses of a stage overlap instead of following one
// another: the nodes the scan has passed when their last predecessor
// goes are reached out of the order of the arrays (CoffeeCan's chains
// of removals go one block of states further per step) and read a
// different part of every array each. In a breadth-first product most
// removals are the scan's own, in the arrays' order, and are not queued.
func (f *owctyFilter) drain(k int, down bool, keep int) {
	p := f.p
	for len(f.queue) > keep {
		b := min(len(f.queue), f.batchN)
		batch := f.batch[:b]
		copy(batch, f.queue[len(f.queue)-b:])
		f.queue = f.queue[:len(f.queue)-b]
		f.targets = p.appendTargetsOf(f.targets[:0], batch)
		var sink uint32
		for _, t := range f.targets {
			if int(t) < f.n {
				sink += uint32(f.word[t])
			}
		}
		f.sink += sink
		for _, w := range batch {
			f.remove(w)
		}
		f.release(k, down)
	}
}

// reach keeps the nodes of the set reachable inside it, for each
// acceptance set lo..hi-1, from the target of an edge of that set inside
// it: the sets a node is reached from propagate along the edges to a
// fixpoint (a node is processed again when its sets grow, so at most
// hi-lo+1 times).
func (f *owctyFilter) reach(lo, hi int) {
	p := f.p
	all := uint8(1)<<uint(hi-lo) - 1
	clear(f.word)
	f.queue = f.queue[:0]
	visit := func(v uint32, scanning bool) {
		f.edges = p.appendEdges(f.edges[:0], v)
		from := f.word[v] &^ queuedBit
		for _, e := range f.edges {
			w := e.to
			if !f.has(w) {
				continue
			}
			old := f.word[w]
			nw := old | from | uint8(f.setsOf(lo, hi, v, e))
			if nw == old {
				continue
			}
			if old&queuedBit == 0 && (!scanning || w <= v) {
				// Processed already (behind the scan, or after it): it
				// must be processed again.
				nw |= queuedBit
				f.queue = append(f.queue, w)
			}
			f.word[w] = nw
		}
	}
	for v := 0; v < f.n; v++ {
		if f.has(uint32(v)) {
			f.word[v] &^= queuedBit
			visit(uint32(v), true)
		}
	}
	for len(f.queue) > 0 {
		v := f.queue[len(f.queue)-1]
		f.queue = f.queue[:len(f.queue)-1]
		f.word[v] &^= queuedBit
		visit(v, false)
	}
	for v := 0; v < f.n; v++ {
		if f.has(uint32(v)) && f.word[v]&all != all {
			f.remove(uint32(v))
		}
	}
}
