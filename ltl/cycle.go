package ltl

// cycleSearch finds the fair accepting SCCs of a product (see the package
// documentation) and builds short lassos through them.
type cycleSearch struct {
	p  *product
	n  int
	uw int
	// from is the first node the depth-first search of the first round
	// (roots nil) starts from: nodes from..n-1, in increasing order, the
	// others only when reached from those.
	from int
	// Tarjan state, per node: index is -1 before the node's visit, its
	// depth-first number while it is on the stack, and -2-st once the
	// SCC stamped st emitted it (so a node is on the stack exactly when
	// its index is not negative, and the SCC of a node is known without
	// an array of its own). The low links are in the frames of the
	// depth-first path.
	index []int32
	// member is the subgraph (token) a node belongs to; nil while the
	// subgraph is every node (the first run without the filter), so
	// that the array is only allocated for a refinement or the filter's
	// remainder.
	member []int32
	stampN int32 // the next SCC's stamp
	stack  []uint32
	calls  []frame // the depth-first path
	arena  []arc   // the edges of its nodes inside the subgraph
	edges  []edge  // the edges of one node (appendEdges)
	// taken is per frame of calls uw words: the units taken by the
	// edges inside the frame's SCC found so far (see [frame]); sum is
	// the summary of the SCC emitted last.
	taken []uint64
	sum   sccSum
	// BFS state for lassos.
	seen     []int32
	prevEdge []edge
	prevNode []uint32
	token    int32
}

// newCycleSearch prepares the search over the expanded nodes of p; edges
// into nodes not yet expanded are ignored (such a node has no edges yet,
// so it lies on no cycle).
func newCycleSearch(p *product) *cycleSearch {
	n := p.expanded()
	c := &cycleSearch{p: p, n: n, uw: p.sys.uw,
		index: make([]int32, n)}
	for i := range c.index {
		c.index[i] = -1
	}
	return c
}

// inSub reports whether node w belongs to the subgraph token.
func (c *cycleSearch) inSub(w uint32, token int32) bool {
	return int(w) < c.n && (c.member == nil || c.member[w] == token)
}

// inComp reports whether node w belongs to the SCC stamped st.
func (c *cycleSearch) inComp(w uint32, st int32) bool {
	return int(w) < c.n && c.index[w] == -2-st
}

// bytes returns the bytes of the search's arrays.
func (c *cycleSearch) bytes() int64 {
	return bytesOf(c.index) + bytesOf(c.member) +
		bytesOf(c.stack) + bytesOf(c.calls) + bytesOf(c.arena) + bytesOf(c.edges) + bytesOf(c.taken) + bytesOf(c.sum.taken) +
		bytesOf(c.seen) + bytesOf(c.prevEdge) + bytesOf(c.prevNode)
}

// search returns the fair accepting SCCs among the nodes of roots (in
// increasing order; nil: every node, the SCCs reachable from the nodes
// from..n-1), each as a list of nodes.
func (c *cycleSearch) search(roots []uint32) [][]uint32 {
	work := [][]uint32{roots}
	var fair [][]uint32
	token := int32(1) // member 0: a node outside roots
	for len(work) > 0 {
		sub := work[0]
		work = work[1:]
		if sub != nil && c.member == nil {
			c.member = make([]int32, c.n)
		}
		for _, v := range sub {
			c.member[v] = token
			c.index[v] = -1
		}
		c.tarjan(sub, token, func(comp []uint32, st int32, sum *sccSum) {
			ok, refine := c.analyze(comp, token, st, sum)
			if ok {
				fair = append(fair, append([]uint32(nil), comp...))
			} else if refine != nil {
				work = append(work, refine)
			}
		})
		token++
	}
	return fair
}

// tarjan emits the SCCs of the subgraph token (roots: its nodes in
// increasing order; nil: every node, member nil, and the search starts
// from the nodes from..n-1 alone), each with its stamp
// (iteratively, so deep graphs do not grow the goroutine stack) and the
// summary of its edges inside it. The edges inside the subgraph of each
// node on the depth-first path wait in arena (16 bytes an edge), taken
// once by [product.appendEdges].
//
// An edge v → w lies inside the SCC of v exactly when w is on the stack
// when the edge is taken (w's SCC is then that of a node of the path,
// which v reaches and which reaches v), or when w was first visited by
// it and is still on the stack when its visit ends (w was not emitted).
// Such an edge is summed into v's frame, and the frame of a node that
// is not emitted into its parent's, so that the frame of an SCC's root
// holds the sums of all the SCC's edges when it is emitted.
func (c *cycleSearch) tarjan(roots []uint32, token int32, emit func(comp []uint32, st int32, sum *sccSum)) {
	counter := int32(0)
	r0 := 0
	if roots == nil {
		r0 = c.from
	}
	for r := r0; roots == nil && r < c.n || r < len(roots); r++ {
		root := uint32(r)
		if roots != nil {
			root = roots[r]
		}
		if c.index[root] != -1 || roots == nil && c.p.cyc != nil && c.p.cycOf(root) < 0 {
			continue
		}
		c.index[root] = counter
		counter++
		c.stack = append(c.stack, root)
		c.push(root, token)
		for len(c.calls) > 0 {
			f := &c.calls[len(c.calls)-1]
			v := f.v
			if f.next < int64(len(c.arena)) {
				a := &c.arena[f.next]
				w := a.to
				f.next++
				if x := c.index[w]; x == -1 {
					c.index[w] = counter
					counter++
					c.stack = append(c.stack, w)
					c.push(w, token)
				} else if x >= 0 { // on the stack: inside v's SCC
					f.low = min(f.low, x)
					c.add(len(c.calls)-1, a)
				}
				continue
			}
			low := f.low
			fi := len(c.calls) - 1
			if low != c.index[v] && fi > 0 {
				// v stays on the stack: the edge from its parent and
				// v's sums are inside the parent's SCC.
				u := &c.calls[fi-1]
				c.add(fi-1, &c.arena[u.next-1])
				u.acc |= f.acc
				if c.uw > 0 {
					pw, vw := c.taken[(fi-1)*c.uw:fi*c.uw], c.taken[fi*c.uw:(fi+1)*c.uw]
					for k := range pw {
						pw[k] |= vw[k]
					}
				}
			} else {
				c.sum.acc, c.sum.inside = f.acc, f.inside
				c.sum.taken = append(c.sum.taken[:0], c.taken[fi*c.uw:(fi+1)*c.uw]...)
			}
			c.arena = c.arena[:f.off]
			c.taken = c.taken[:fi*c.uw]
			c.calls = c.calls[:fi]
			if low == c.index[v] {
				k := len(c.stack) - 1
				for c.stack[k] != v {
					k--
				}
				comp := c.stack[k:]
				st := c.stampN
				c.stampN++
				for _, w := range comp {
					c.index[w] = -2 - st
				}
				emit(comp, st, &c.sum)
				c.stack = c.stack[:k]
			}
			if len(c.calls) > 0 {
				if u := &c.calls[len(c.calls)-1]; low < u.low {
					u.low = low
				}
			}
		}
	}
}

// frame is a node of the depth-first path: its edges inside the
// subgraph are arena[off:], those not yet taken arena[next:] (up to the
// next frame's off), and its low link (only a node on the path needs
// one, so it is not kept per node). acc, inside and the frame's words of
// cycleSearch.taken sum the edges found inside its SCC so far: their
// acceptance sets, whether there is one, and the units they take.
type frame struct {
	v         uint32
	low       int32
	inside    bool
	off, next int64
	acc       uint64
}

// arc is an edge of the depth-first path's arena: its target, action
// and acceptance sets.
type arc struct {
	to  uint32
	act int32
	acc uint64
}

// sccSum is what the edges inside an SCC sum to: whether there is one,
// their acceptance sets and (uw words) the units they take.
type sccSum struct {
	inside bool
	acc    uint64
	taken  []uint64
}

// push puts node v on the depth-first path of the subgraph token.
func (c *cycleSearch) push(v uint32, token int32) {
	off := int64(len(c.arena))
	p := c.p
	c.edges = p.appendEdges(c.edges[:0], v)
	// With p.cyc, only the edges inside v's automaton component: no
	// other lies on a cycle, so the SCCs are the same.
	var cv int32
	if p.cyc != nil {
		cv = p.cycOf(v)
	}
	for _, e := range c.edges {
		if w := e.to; c.inSub(w, token) && (p.cyc == nil || p.cycOf(w) == cv) {
			c.arena = append(c.arena, arc{to: w, act: e.act, acc: e.acc})
		}
	}
	c.calls = append(c.calls, frame{v: v, low: c.index[v], off: off, next: off})
	for range c.uw {
		c.taken = append(c.taken, 0)
	}
}

// add sums the edge a, inside the SCC, into frame fi.
func (c *cycleSearch) add(fi int, a *arc) {
	f := &c.calls[fi]
	f.inside = true
	f.acc |= a.acc
	if act := a.act; c.uw > 0 && act >= 0 {
		au := c.p.sys.actionUnits[int(act)*c.uw : int(act+1)*c.uw]
		for k, w := range au {
			c.taken[fi*c.uw+k] |= w
		}
	}
}

// analyze decides whether the SCC comp (stamped st in subgraph token),
// whose edges inside it sum to sum, is fair and accepting. When it fails
// only because strongly fair units are enabled in it but never taken,
// refine lists the nodes of comp where none of them is enabled, to be
// examined again.
func (c *cycleSearch) analyze(comp []uint32, token, st int32, sum *sccSum) (ok bool, refine []uint32) {
	p := c.p
	sys := p.sys
	// A comp without an edge inside is one node, which fails (it may be
	// unexpanded, without enabled units); in a comp with one, every
	// node has one (a self-loop, or an edge to another node of comp).
	if !sum.inside || sum.acc != p.aut.AllAcc() {
		return false, nil
	}
	if len(sys.units) == 0 {
		return true, nil
	}
	taken := sum.taken
	some := make([]uint64, c.uw)
	every := make([]uint64, c.uw)
	for w := range every {
		every[w] = ^uint64(0)
	}
	for _, v := range comp {
		en := sys.unitsEnabled(p.sysOf(v))
		for k := 0; k < c.uw; k++ {
			some[k] |= en[k]
			every[k] &= en[k]
		}
	}
	bad := make([]uint64, c.uw)
	anyBad := false
	for u, un := range sys.units {
		w, b := u/64, uint64(1)<<uint(u%64)
		if taken[w]&b != 0 || un.threaded || p.ignored[u] {
			continue
		}
		if !un.strong && every[w]&b != 0 {
			return false, nil // continuously enabled, never taken: no sub-SCC helps
		}
		if un.strong && some[w]&b != 0 {
			bad[w] |= b
			anyBad = true
		}
	}
	var badNode []bool // per position in comp: a thread's strong unit fails there
	if len(sys.threads) > 0 {
		var weakFails bool
		badNode, weakFails = c.threadFairness(comp, token, st)
		if weakFails {
			return false, nil
		}
	}
	if !anyBad && badNode == nil {
		return true, nil
	}
	for k, v := range comp {
		en := sys.unitsEnabled(p.sysOf(v))
		keep := badNode == nil || !badNode[k]
		for k := 0; k < c.uw && keep; k++ {
			keep = en[k]&bad[k] == 0
		}
		if keep {
			refine = append(refine, v)
		}
	}
	return false, refine
}

// threadFairness checks the fairness declarations with one unit per
// instance of a family indexed by a permuted type on the SCC comp of the
// quotient product. Instance i at node v is a thread (v, i); an edge
// v → w whose successor was canonicalised by π continues thread (v, i) as
// (w, π(i)). The threads of comp fall into components (connected, hence
// strongly connected: the permutations are bijections), and a run that
// stays in comp and covers it can make every instance go round all of
// its component infinitely often, while every run in comp leaves each
// instance in one component (docs/impl.md). So a weakly fair unit is
// satisfiable iff each component holds an edge that takes the unit of
// its instance or a thread where that unit is disabled (weakFails
// otherwise: no sub-SCC helps either), and a strongly fair one iff each
// component takes it or never has it enabled; badNode marks the nodes
// where a component that fails the strong condition has it enabled,
// for the refinement. badNode is nil when no strong condition fails.
func (c *cycleSearch) threadFairness(comp []uint32, token, st int32) (badNode []bool, weakFails bool) {
	p := c.p
	sys := p.sys
	pos := make(map[uint32]int32, len(comp))
	for k, v := range comp {
		pos[v] = int32(k)
	}
	for ti, td := range sys.threads {
		if p.ignored[td.units[0]] {
			continue
		}
		n := len(td.units)
		typ := sys.typeOf[ti]
		parent := make([]int32, len(comp)*n)
		for x := range parent {
			parent[x] = int32(x)
		}
		var find func(x int32) int32
		find = func(x int32) int32 {
			for parent[x] != x {
				parent[x] = parent[parent[x]]
				x = parent[x]
			}
			return x
		}
		internal := func(e edge) (int32, bool) {
			w := e.to
			if !c.inComp(w, st) {
				return 0, false
			}
			return pos[w], true
		}
		for k, v := range comp {
			c.edges = p.appendEdges(c.edges[:0], v)
			for _, e := range c.edges {
				kw, ok := internal(e)
				if !ok {
					continue
				}
				perm := sys.perms[e.perm][typ]
				for i := range n {
					a, b := find(int32(k*n+i)), find(kw*int32(n)+perm[i])
					if a != b {
						parent[a] = b
					}
				}
			}
		}
		taken := make([]bool, len(parent))
		enabled := make([]bool, len(parent))
		disabled := make([]bool, len(parent))
		has := func(set []uint64, u int) bool { return set[u/64]>>uint(u%64)&1 != 0 }
		for k, v := range comp {
			en := sys.unitsEnabled(p.sysOf(v))
			for i, u := range td.units {
				r := find(int32(k*n + i))
				if has(en, u) {
					enabled[r] = true
				} else {
					disabled[r] = true
				}
			}
			c.edges = p.appendEdges(c.edges[:0], v)
			for _, e := range c.edges {
				a := e.act
				if _, ok := internal(e); !ok || a < 0 {
					continue
				}
				au := sys.actionUnits[int(a)*c.uw : int(a+1)*c.uw]
				for i, u := range td.units {
					if has(au, u) {
						taken[find(int32(k*n+i))] = true
					}
				}
			}
		}
		strong := sys.units[td.units[0]].strong
		for x := range parent {
			r := int32(x)
			if parent[r] != r || taken[r] {
				continue
			}
			if !strong && !disabled[r] {
				return nil, true
			}
		}
		if !strong {
			continue
		}
		for k, v := range comp {
			en := sys.unitsEnabled(p.sysOf(v))
			for i, u := range td.units {
				r := find(int32(k*n + i))
				if !taken[r] && has(en, u) {
					if badNode == nil {
						badNode = make([]bool, len(comp))
					}
					badNode[k] = true
				}
			}
		}
	}
	return badNode, false
}

// lasso returns a cycle through n0 inside the fair SCC comp, as product
// edges, that takes an edge of every acceptance set, satisfies every
// weakly fair unit (an edge taking it, or a node where it is disabled) and
// takes every strongly fair unit enabled in comp. It is built greedily
// from BFS-shortest segments, so it is short but not always the shortest.
func (c *cycleSearch) lasso(n0 uint32, comp []uint32) []edge {
	p := c.p
	sys := p.sys
	if c.seen == nil {
		c.seen = make([]int32, c.n)
		c.prevEdge = make([]edge, c.n)
		c.prevNode = make([]uint32, c.n)
	}
	in := make(map[uint32]bool, len(comp))
	for _, v := range comp {
		in[v] = true
	}
	// Obligations.
	needAcc := p.aut.AllAcc()
	needWeak := make([]uint64, c.uw)   // edge taking u, or node with u disabled
	needStrong := make([]uint64, c.uw) // edge taking u
	some := make([]uint64, c.uw)
	for _, v := range comp {
		en := sys.unitsEnabled(p.sysOf(v))
		for k := range some {
			some[k] |= en[k]
		}
	}
	for u, un := range sys.units {
		w, b := u/64, uint64(1)<<uint(u%64)
		if some[w]&b == 0 || un.threaded || p.ignored[u] {
			continue
		}
		if un.strong {
			needStrong[w] |= b
		} else {
			needWeak[w] |= b
		}
	}
	visitNode := func(v uint32) {
		en := sys.unitsEnabled(p.sysOf(v))
		for k := range needWeak {
			needWeak[k] &= en[k]
		}
	}
	edgeUseful := func(e edge) bool {
		if e.acc&needAcc != 0 {
			return true
		}
		if a := e.act; a >= 0 {
			for k := 0; k < c.uw; k++ {
				if sys.actionUnits[int(a)*c.uw+k]&(needWeak[k]|needStrong[k]) != 0 {
					return true
				}
			}
		}
		return false
	}
	nodeUseful := func(v uint32) bool {
		en := sys.unitsEnabled(p.sysOf(v))
		for k := range needWeak {
			if needWeak[k]&^en[k] != 0 {
				return true
			}
		}
		return false
	}
	takeEdge := func(e edge) {
		needAcc &^= e.acc
		if a := e.act; a >= 0 {
			for k := 0; k < c.uw; k++ {
				au := sys.actionUnits[int(a)*c.uw+k]
				needWeak[k] &^= au
				needStrong[k] &^= au
			}
		}
		visitNode(e.to)
	}
	pending := func() bool {
		if needAcc != 0 {
			return true
		}
		for k := range needWeak {
			if needWeak[k]|needStrong[k] != 0 {
				return true
			}
		}
		return false
	}
	var cycle []edge
	cur := n0
	visitNode(n0)
	for pending() {
		seg := c.bfs(cur, in, nodeUseful, edgeUseful)
		if seg == nil {
			panic("wrapcheck internal error: ltl: fair SCC without a fair cycle")
		}
		for _, e := range seg {
			takeEdge(e)
			cycle = append(cycle, e)
		}
		cur = seg[len(seg)-1].to
	}
	back := c.bfs(cur, in, nil, func(e edge) bool { return e.to == n0 })
	if back == nil {
		panic("wrapcheck internal error: ltl: no way back to the loop start in an SCC")
	}
	return append(cycle, back...)
}

// bfs searches breadth-first from `from` inside the SCC for the nearest
// node v != from with nodeHit(v), or the nearest edge with edgeHit; it
// returns the edges of the path (ending with the hit edge), or nil.
func (c *cycleSearch) bfs(from uint32, in map[uint32]bool, nodeHit func(uint32) bool, edgeHit func(edge) bool) []edge {
	p := c.p
	c.token++
	tok := c.token
	c.seen[from] = tok
	queue := []uint32{from}
	path := func(v uint32, last *edge) []edge {
		var out []edge
		if last != nil {
			out = append(out, *last)
		}
		for v != from {
			out = append(out, c.prevEdge[v])
			v = c.prevNode[v]
		}
		for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
			out[i], out[j] = out[j], out[i]
		}
		return out
	}
	for len(queue) > 0 {
		v := queue[0]
		queue = queue[1:]
		if v != from && nodeHit != nil && nodeHit(v) {
			return path(v, nil)
		}
		c.edges = p.appendEdges(c.edges[:0], v)
		for _, e := range c.edges {
			w := e.to
			if !in[w] {
				continue
			}
			if edgeHit(e) {
				return path(v, &e)
			}
			if c.seen[w] != tok {
				c.seen[w] = tok
				c.prevEdge[w], c.prevNode[w] = e, v
				queue = append(queue, w)
			}
		}
	}
	return nil
}
