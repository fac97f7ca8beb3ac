package machine

import (
	"math/bits"
	"unsafe"
)

// The methods of this file are the interface of a search (package
// checker's breadth-first search, its trace rebuilding): they run the
// compiled actions on a loaded state and hand each successor, unpacked,
// to a callback, without the per-call set-up of [Machine.Successors].
// A search relies on what their comments say and on nothing else.
//
// The flow of one expansion: [Machine.Load] the packed state, then
// [Machine.RunAction] for each action (or the ones [Machine.Guard]
// selects); the function given to [Machine.OnState] is called for every
// successor, with the successor in [Machine.Slots] and its action and
// ordinal in [Machine.Action] and [Machine.Ordinal]. A failing branch
// makes no successor: RunAction reports false, and [Machine.Failure] and
// [Machine.FailOrdinal] describe the first failure until
// [Machine.ClearFailure]. Instead of an OnState function, a search may
// have RunAction collect the successors, packed, with their hashes and
// keys ([Machine.Collect]), which saves two calls per successor.

// Actions returns the number of actions (len(Model.Actions)).
func (p *Program) Actions() int { return len(p.actions) }

// Conjuncts returns the conjuncts of invariant i (an index into
// Model.Invariants), in evaluation order. Do not modify the slice.
func (p *Program) Conjuncts(i int) []Conjunct { return p.invs[i].conjs }

// HasAntecedent reports whether invariant i has the form `a implies b`
// (possibly under forall): [Machine.Antecedent] then evaluates its
// antecedent.
func (p *Program) HasAntecedent(i int) bool { return p.invs[i].ante != nil }

// HasTerminal reports whether the model has a terminal predicate.
func (p *Program) HasTerminal() bool { return p.terminal != nil }

// SlotBits returns where slot i lies in a packed [State]: the index of
// its word and the mask of its bits in that word (0 for a slot of one
// value, which takes no bits).
func (p *Program) SlotBits(i int) (word int, mask uint64) {
	ps := &p.lay.slots[i]
	return int(ps.word), ps.mask << ps.shift
}

// UnpackSlots decodes only the given slots of the packed state src into
// dst (Slots long); the other entries of dst are left as they are.
func (p *Program) UnpackSlots(dst []int64, src State, slots []int32) {
	p.lay.unpackSlots(dst, src, slots)
}

// Slots returns the read-only state slots this conjunct may read, ascending.
func (c *Conjunct) Slots() []int32 { return c.slots }

// OnState sets the function that RunInit and RunAction call for each
// state they make: the new state is in m.Slots() during the call, and
// the trail of its writes gives [Machine.Repack]. Init, Successors,
// SuccessorsOf and Stutter replace it with their own.
func (m *Machine) OnState(f func(m *Machine)) { m.leaf, m.col = f, nil }

// A Succ is a successor collected by [Machine.Collect]: the [Hash] of
// its packed vector and its key.
type Succ struct {
	H, Key uint64
}

// A Collector receives the successors that RunAction makes once
// [Machine.Collect] is set: successor N (counted from 0) is written,
// packed, to Vecs[N*Words:] and its Succ to Succs[N], and N is
// incremented, as a search's OnState function would do, without the two
// calls per successor of OnState.
type Collector struct {
	// Vecs and Succs are made by the search, Limit*Words and Limit long.
	Vecs  []uint64
	Succs []Succ
	N     int
	// Parent is the packed loaded state, from which a successor is
	// re-packed (only the slots its branch wrote, as by Repack).
	Parent State
	// Key is a successor's key with ordinal 0: its Key is Key |
	// min(ordinal, MaxOrd).
	Key, MaxOrd uint64
	// Full is called once N reaches Limit, during the run of the last
	// successor's branch (the action state then holds that successor);
	// it must set N below Limit.
	Limit int
	Full  func(m *Machine)
	// Fired counts the successors of each action (it is indexed by the
	// action), Trans all of them.
	Fired []int64
	Trans int64
}

// Grow doubles c's room (Vecs, Succs and Limit), keeping what it holds:
// a Full for a caller that keeps every successor until it takes them.
func (c *Collector) Grow() {
	c.Vecs = append(c.Vecs, make([]uint64, len(c.Vecs))...)
	c.Succs = append(c.Succs, make([]Succ, c.Limit)...)
	c.Limit *= 2
}

// Collect makes RunAction collect its successors into c instead of
// calling the OnState function; the successors of an interrupted
// evaluation are left out. OnState, RunInit's callers Init, Successors,
// SuccessorsOf and Stutter end it. c is the caller's: the machine reads
// and writes its fields during RunAction only.
func (m *Machine) Collect(c *Collector) { m.leaf, m.col = m.colLeaf, c }

// collect appends the successor in the action state to c.
func (m *Machine) collect(c *Collector) {
	if m.halted {
		return
	}
	c.Trans++
	c.Fired[m.action]++
	parent := c.Parent
	nw := len(parent)
	at := c.N
	var h uint64
	if nw == 1 {
		// One word: re-encoded in a register, as by RepackHash.
		n := m.p.n
		src := m.mem[:n]
		rs := m.p.lay.rep[:n]
		x := parent[0]
		for _, u := range m.trail {
			if o := uint(u.off); o < uint(n) {
				r := &rs[o]
				v := uint64(src[o]-r.lo) * r.mul
				x ^= (x ^ v) & r.hmask // v's bits in the slot's, x's elsewhere
			}
		}
		c.Vecs[at] = x
		h = hashWord(x)
	} else {
		vec := c.Vecs[at*nw : at*nw+nw : at*nw+nw]
		m.repackWords(vec, parent)
		h = hashWords(vec)
	}
	c.Succs[at] = Succ{h, c.Key | min(uint64(m.ord), c.MaxOrd)}
	c.N = at + 1
	if at+1 >= c.Limit {
		c.Full(m)
	}
}

// CollectSuccessors collects into c, as [Machine.Collect] does, every
// successor of s in (action, branch) order: the states [Machine.Successors]
// hands its visit function, duplicates included, each packed from s
// (c.Parent is set to s) and hashed, without a call per successor; the
// Key of each is its action (c.Key and c.MaxOrd are set to make it so).
// It replaces the OnState function or collector set before. A failing
// branch makes no successor; the first failure is returned as *ExecError
// once every branch has run, and ErrInterrupted when the interrupt
// stopped the expansion (the successors collected then are not all of
// them).
func (m *Machine) CollectSuccessors(s State, c *Collector) error {
	m.unhalt()
	m.clearFailure()
	m.Collect(c)
	c.Parent, c.MaxOrd = s, 0
	m.Load(s)
	// Action by action, not by RunCandidates, so that the key can be the
	// action without a store per successor in collect.
	for i, x := range m.Candidates() {
		for ; x != 0; x &= x - 1 {
			a := i*64 + bits.TrailingZeros64(x)
			c.Key = uint64(a)
			m.runAction(a)
		}
	}
	return m.expansionEnd()
}

// CheckPacked checks a new state vec (packed) generated from parent (the
// packed state it was made from, which satisfies every invariant) with
// generated code, where [Program.HasNativeCheck] reports it. The
// conjuncts of all the invariants are numbered from 0 in the order of
// Model.Invariants, and of [Program.Conjuncts] within each; those in the
// bit set sel that read a slot in which vec differs from parent are
// evaluated, in that order, over vec itself (not over CheckSlots, which
// is left as it was): g is the number of the first that is false (ok) or
// fails to evaluate (!ok: [Machine.PredFailure] returns the failure), or
// -1 when none is. The other conjuncts hold in vec as in parent.
func (m *Machine) CheckPacked(vec, parent State, sel uint64) (g int, ok bool) {
	g = m.p.natCheck(m, vec, parent, sel)
	return g, m.err == nil
}

// Slots returns the machine's action state: the state loaded by Load or
// LoadSlots, or, during an OnState call, the new state. The slice is the
// machine's memory: valid until the next call, writable only by a
// callback that restores what it changed.
func (m *Machine) Slots() []int64 { return m.mem[:m.p.n:m.p.n] }

// CheckSlots returns the unpacked state that predicates (invariants,
// the terminal predicate, EvalConjunct, Antecedent) read: the search may
// write a state there, or a canonical copy of Slots, and evaluate over it.
func (m *Machine) CheckSlots() []int64 {
	p := m.p
	return m.mem[p.checkOff : p.checkOff+p.n : p.checkOff+p.n]
}

// UnpackCheck decodes the packed state s into CheckSlots.
func (m *Machine) UnpackCheck(s State) {
	p := m.p
	p.lay.unpack(m.mem[p.checkOff:p.checkOff+p.n], s)
}

// UnpackCheckChanged decodes into CheckSlots, which holds the packed
// state old unpacked, the slots in which s differs from old: CheckSlots
// then holds s unpacked, as after UnpackCheck(s), at the cost of the
// changed slots only.
func (m *Machine) UnpackCheckChanged(s, old State) {
	p := m.p
	p.lay.unpackChanged(m.mem[p.checkOff:p.checkOff+p.n], s, old)
}

// UnpackCheckSlots decodes only the given slots of s into CheckSlots
// (the slots of a Conjunct, say).
func (m *Machine) UnpackCheckSlots(s State, slots []int32) {
	p := m.p
	p.lay.unpackSlots(m.mem[p.checkOff:p.checkOff+p.n], s, slots)
}

// Load unpacks s into the action state, to be expanded by RunAction, and
// restarts the successor ordinals at 0.
func (m *Machine) Load(s State) {
	m.load(s)
	m.ord = 0
}

// LoadSlots is Load from an unpacked state (Slots long).
func (m *Machine) LoadSlots(u []int64) {
	m.heldOK = false
	copy(m.mem[:m.p.n], u)
	m.ord = 0
}

// RunInit resets the action state to the zero state and runs the init
// block, every branch of it, calling the OnState function per initial
// state (ordinals 0, 1, .. in branch order, failing branches included).
// It reports false when a branch failed.
func (m *Machine) RunInit() bool { return m.runInit() }

// RunAction runs action a on the loaded state, every branch of it,
// calling the OnState function per successor; the action state is the
// loaded one again when it returns. It reports false when a failure has
// been raised since ClearFailure: a failing branch takes an ordinal, as a
// successor does, and makes no state.
func (m *Machine) RunAction(a int) bool { return m.runAction(a) }

// RunCandidates runs, in order, the actions of Candidates numbered from
// on, as RunAction does, and stops after the first of them for which
// RunAction reports false: it returns that action + 1 (where to go on
// once the failure is handled), or -1 when none reported false.
func (m *Machine) RunCandidates(from int) int {
	if f := m.p.natExpand; f != nil {
		return f(m, from) // generated (native.go)
	}
	for i, x := range m.Candidates() {
		if i < from/64 {
			continue
		}
		if i == from/64 {
			x &^= 1<<uint(from%64) - 1
		}
		for ; x != 0; x &= x - 1 {
			if a := i*64 + bits.TrailingZeros64(x); !m.runAction(a) {
				return a + 1
			}
		}
	}
	return -1
}

// Candidates returns the actions that may be enabled in the loaded
// state, as a bit set over the action indexes (action a is bit a%64 of
// word a/64). An action left out is disabled there: the first conjunct
// of its guard reads one state slot and is false, without failing, at
// that slot's loaded value, so RunAction would make no successor and
// raise no failure. The guards are not evaluated beyond that table
// look-up. The slice is the machine's, valid until the next call.
func (m *Machine) Candidates() []uint64 {
	p := m.p
	c := m.cand
	if len(c) != p.candWords {
		c = Padded[uint64](p.candWords) // written for every state
		m.cand = c
	}
	if len(c) == 1 {
		// The generated version (native.go) is called by RunCandidates.
		c[0] = m.candTable()
		return c
	}
	copy(c, p.candAlways)
	w := len(c)
	for i := range p.guardTabs {
		g := &p.guardTabs[i]
		row := g.all
		if v := m.mem[g.off] - g.lo; uint64(v) < uint64(g.n) {
			row = g.rows[int(v)*w : int(v+1)*w]
		}
		for j, x := range row {
			c[j] |= x
		}
	}
	return c
}

// candTable is Candidates of one word from the guard tables.
func (m *Machine) candTable() uint64 {
	p := m.p
	x := p.candAlways[0]
	for i := range p.guardTabs {
		g := &p.guardTabs[i]
		if v := m.mem[g.off] - g.lo; uint64(v) < uint64(g.n) {
			x |= g.rows[v]
		} else {
			x |= g.all[0]
		}
	}
	return x
}

// Guard reports whether action a's guard holds in the loaded state; a
// guard whose evaluation fails counts as enabled (RunAction reports the
// failure).
func (m *Machine) Guard(a int) bool {
	g := m.enabledGuard(a)
	m.err = nil
	return g
}

// Action returns the action being run (-1: the init block).
func (m *Machine) Action() int { return m.action }

// Ordinal returns, during an OnState call, the ordinal of the new state
// among the loaded state's successors in (action, branch) order, failing
// branches included; after RunAction, the number of them so far.
func (m *Machine) Ordinal() int { return m.ord }

// Repack writes into dst (Words long) the packed new state, during an
// OnState call: parent (the packed loaded state) with only the slots
// written on this branch re-encoded. Without a canonicalisation it is
// Pack(dst, m.Slots()), at the cost of the writes.
func (m *Machine) Repack(dst, parent State) {
	if len(dst) == 1 {
		m.RepackHash(dst, parent)
		return
	}
	m.repackWords(dst, parent)
}

// RepackHash is Repack, and returns [Hash] of the new state.
func (m *Machine) RepackHash(dst, parent State) uint64 {
	return m.p.lay.repack(m, dst, parent) // Machine.repackHash, or generated (native.go)
}

// repackHash is RepackHash by the slot table.
func (m *Machine) repackHash(dst, parent State) uint64 {
	if len(dst) != 1 {
		m.repackWords(dst, parent)
		return hashWords(dst)
	}
	// One word: re-encoded in a register.
	n := m.p.n
	src := m.mem[:n]
	sl := m.p.lay.slots[:n] // so that an offset below n needs no bounds test
	x := parent[0]
	for _, u := range m.trail {
		if o := uint(u.off); o < uint(n) {
			p := &sl[o]
			sh := p.shift & 63 // below 64: no test for a shift of 64 or more
			x = x&^(p.mask<<sh) | (uint64(src[o]-p.lo)&p.mask)<<sh
		}
	}
	dst[0] = x
	return hashWord(x)
}

// repackWords is Repack of a state of several words.
func (m *Machine) repackWords(dst, parent State) {
	n := m.p.n
	src := m.mem[:n]
	sl := m.p.lay.slots[:n]
	// A loop rather than copy: vectors are a few words, and copy is a
	// call of runtime.memmove.
	parent = parent[:len(dst)]
	for i, x := range parent {
		dst[i] = x
	}
	for _, u := range m.trail {
		if o := uint(u.off); o < uint(n) {
			p := &sl[o]
			sh := p.shift & 63
			dst[p.word] = dst[p.word]&^(p.mask<<sh) | (uint64(src[o]-p.lo)&p.mask)<<sh
		}
	}
}

// Failure returns the first failure raised since ClearFailure, or nil.
func (m *Machine) Failure() *ExecError {
	if m.failed == nil {
		return nil
	}
	return m.failure()
}

// FailOrdinal returns the ordinal (as Ordinal) of the branch of the
// first failure raised since ClearFailure; it keeps that value after
// ClearFailure, and after Init, Successors or SuccessorsOf returned the
// failure, until the next failure.
func (m *Machine) FailOrdinal() int { return m.failOrd }

// FailedStep returns the action of the first failure since ClearFailure
// (-1: init), and, when RecordAnswers is on, the state in which it
// happened and the agent answers taken on its branch. The slices are
// valid until the next failure.
func (m *Machine) FailedStep() (action int, state []int64, asked []Answer) {
	return m.failAction, m.failState, m.failAsked
}

// ClearFailure forgets the failures raised so far and rolls back any
// writes still on the trail.
func (m *Machine) ClearFailure() {
	m.clearFailure()
	m.undo(0)
}

// EvalConjunct evaluates c over CheckSlots. ok is false when the
// evaluation failed: PredFailure then returns the error.
func (m *Machine) EvalConjunct(c *Conjunct) (v int64, ok bool) {
	v = c.eval(m)
	return v, m.err == nil
}

// PredFailure returns the failure of the last predicate evaluation
// (EvalConjunct), which belongs to no action, and clears it. The
// failures raised by branches stay recorded.
func (m *Machine) PredFailure() *ExecError { return m.predFailure() }

// Antecedent reports whether the antecedent of invariant i (see
// Program.HasAntecedent) holds over CheckSlots; a failing evaluation
// counts as false.
func (m *Machine) Antecedent(i int) bool {
	v := m.p.invs[i].ante(m)
	m.err = nil
	return v != 0
}

// LoadedTerminal reports whether the loaded state (Slots) satisfies the
// terminal predicate (false without one, or when its evaluation fails).
// It overwrites CheckSlots.
func (m *Machine) LoadedTerminal() bool {
	p := m.p
	if p.terminal == nil {
		return false
	}
	copy(m.mem[p.checkOff:p.checkOff+p.n], m.mem[:p.n])
	v := p.terminal(m)
	m.err = nil
	return v != 0
}

// Padded returns a zeroed slice of n elements with two cache lines of
// slack on both sides, so that what one goroutine writes there never
// shares a cache line with another allocation. A small buffer that a
// worker writes for every state (a one-word vector, a list of changed
// slots) must be made this way: the allocator packs objects of up to 16
// bytes into shared blocks, and two workers' buffers made one after the
// other would otherwise sit on one line, which each write then takes
// from the other core.
func Padded[T any](n int) []T {
	var z T
	pad := 128/max(int(unsafe.Sizeof(z)), 1) + 1
	b := make([]T, n+2*pad)
	return b[pad : pad+n : pad+n]
}
