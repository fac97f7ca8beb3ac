package machine

import (
	"errors"
	"sync"
	"sync/atomic"

	"github.com/wrapcheck/wrapcheck/spec"
)

// Program is a model compiled for execution: the packed state layout and
// every action, init block, invariant and terminal predicate lowered to
// closures once. A Program is immutable (except through CompileExpr) and
// safe for concurrent use; each goroutine evaluates through its own
// [Machine].
type Program struct {
	Model *spec.Model

	lay  layout
	n    int       // state slots
	dom  []slotDom // per state slot: the values a write may store
	zero []int64   // the zero state

	frameOff      int // action frame
	checkOff      int // unpacked state for predicates
	checkFrameOff int // frame for predicates
	agentOff      []int

	init     stepFn
	stutter  stepFn // Model.Stutter; nil when there are no monitors
	actions  []compiledAction
	invs     []compiledInv
	terminal evalFn

	// The guard tables (Machine.Candidates): candAlways holds the actions
	// in no table, guardTabs one table per state slot that the first
	// conjunct of some guards reads alone. candWords is the words of a
	// bit set over the actions.
	candWords  int
	candAlways []uint64
	guardTabs  []guardTab

	mu   sync.Mutex // guards comp, the stores into memSize, and exactExprs
	comp *compiler
	// memSize is the memory a machine needs (it grows with CompileExpr);
	// read without the lock, once per Eval.
	memSize atomic.Int64
	// exactExprs counts the expressions compiled to the exact (math/big)
	// path: their bounds do not fit an int64 (exact.go).
	exactExprs int

	nsites      []site                         // the failure sites of the generated code (native.go)
	nativeUnits int                            // units running generated code
	natCand     func(m *Machine) uint64        // generated Candidates of one word (native.go); nil: the tables
	natExpand   func(m *Machine, from int) int // generated RunCandidates (native.go); nil: the loop
	// natCheck is the generated CheckPacked (native.go); nil: none.
	natCheck func(m *Machine, vec, parent State, sel uint64) int
}

type slotDom struct {
	lo, hi int64
	set    bool
	mask   uint64 // set: the valid bits
}

type compiledAction struct {
	guard evalFn // nil: always enabled
	body  stepFn
	// A guard of the form `x == k`, x at a static offset and k a
	// constant (the commonest shape), is also kept as that pair, which
	// runAction tests inline instead of calling guard: eqOff is x's
	// offset in mem, -1 for any other guard. For a guard `x == k and ..`
	// (eqOnly false) the pair is a necessary condition, tested before
	// guard is called (see compiler.eqConstGuard).
	eqOff  int
	eqK    int64
	eqOnly bool
	// run, when not nil, is generated code doing all of runAction for this
	// action (native.go).
	run func(m *Machine) bool
}

// guardTab is the table of the actions whose guard's first conjunct
// reads one state slot, slot off of domain lo..lo+n-1 only: for each
// value v of it, rows[(v-lo)*candWords:] is the bit set of those actions
// whose first conjunct holds at v or fails there (all: those actions,
// for a value outside the domain). The other actions' guards are false
// at v without failing.
type guardTab struct {
	off  int
	lo   int64
	n    int
	rows []uint64
	all  []uint64
}

// maxGuardTab is the largest slot domain a guard table covers.
const maxGuardTab = 256

type compiledInv struct {
	name  string
	pos   spec.Position
	conjs []Conjunct // the invariant is the conjunction, evaluated in order
	ante  evalFn     // for `forall..: a implies b`: exists..: a; nil otherwise
}

// Conjunct is one conjunct of an invariant (a top-level `and` operand or
// an unrolled forall instance) with the state slots it may read. A state
// is only expanded when it satisfies every invariant, so a successor need
// not re-evaluate a conjunct whose slots it did not change. Evaluate it
// with [Machine.EvalConjunct].
type Conjunct struct {
	eval  evalFn
	slots []int32 // the state slots it may read, ascending
}

// Pred is an expression compiled by [Program.CompileExpr], evaluated over
// a state with [Machine.Eval].
type Pred struct {
	eval evalFn
	ref  ref
	w    int
	// partial: Eval decodes only slots, the state slots eval may read.
	partial bool
	slots   []int32
}

// Compile lowers m for execution. The error reports IR the engine cannot
// run (an internal error of the front end).
func Compile(m *spec.Model) (*Program, error) {
	if m == nil {
		return nil, errors.New("machine: nil model")
	}
	p := &Program{Model: m, lay: newLayout(m), n: len(m.Slots)}
	p.dom = make([]slotDom, p.n)
	p.zero = make([]int64, p.n)
	for i, s := range m.Slots {
		d := slotDom{lo: s.Lo, hi: s.Hi, set: s.Set}
		if s.Set {
			b := slotBits(s)
			d.mask = ^uint64(0)
			if b < 64 {
				d.mask = 1<<uint(b) - 1
			}
		} else {
			p.zero[i] = s.Lo
		}
		p.dom[i] = d
	}
	p.frameOff = p.n
	p.checkOff = p.frameOff + m.Frame
	p.checkFrameOff = p.checkOff + p.n
	off := p.checkFrameOff + m.Frame
	p.agentOff = make([]int, len(m.Agents))
	for i, a := range m.Agents {
		p.agentOff[i] = off
		off += a.Frame
	}
	c := &compiler{p: p, mem: off}
	p.comp = c
	act := frameCtx{state: 0, frame: p.frameOff}
	chk := frameCtx{state: p.checkOff, frame: p.checkFrameOff}

	emit := func(m *Machine) {
		if c := m.col; c != nil {
			m.collect(c) // a direct call, not the leaf's two
		} else {
			m.leaf(m)
		}
		m.ord++
	}
	init := simplifyStmts(m.Init)
	c.analyse(act, nil, init)
	p.init = c.block(init, act, emit)
	if len(m.Stutter) > 0 {
		stutter := simplifyStmts(m.Stutter)
		c.analyse(act, nil, stutter)
		p.stutter = c.block(stutter, act, emit)
	}
	p.actions = make([]compiledAction, len(m.Actions))
	var firsts []firstConj
	for i, a := range m.Actions {
		body, guard := c.actionParts(a, act)
		ca := compiledAction{body: c.block(body, act, emit), eqOff: -1}
		if guard != nil {
			ca.guard = c.scalar(guard, act)
			ca.eqOff, ca.eqK, ca.eqOnly = c.eqConstGuard(guard, act)
			if f, ok := c.firstConjunct(guard, act); ok {
				f.action = i
				firsts = append(firsts, f)
			}
		}
		p.actions[i] = ca
	}
	p.invs = make([]compiledInv, len(m.Invariants))
	for i, inv := range m.Invariants {
		e, ante := c.invariantParts(inv, chk)
		ci := compiledInv{name: inv.Name, pos: inv.Pos, conjs: c.conjuncts(e, chk, nil)}
		if ante != nil {
			ci.ante = c.scalar(ante, chk)
		}
		p.invs[i] = ci
	}
	if m.Terminal != nil {
		// A terminal condition whose evaluation fails does not hold: the
		// stuck state is reported, as that runtime error (terminalFailure).
		term := spec.Fold(m.Terminal)
		c.analyse(chk, nil, nil, term)
		p.terminal = terminalOf(c.scalar(term, chk))
	}
	p.memSize.Store(int64(c.mem))
	if c.err != nil {
		return nil, c.err
	}
	p.guardTables(firsts)
	p.useNative()
	return p, nil
}

// terminalOf returns the terminal predicate of its expression's
// evaluation t: false when t fails.
func terminalOf(t evalFn) evalFn {
	return func(m *Machine) int64 {
		if v := t(m); m.err == nil {
			return v
		}
		return 0
	}
}

// firstConj is the first conjunct of an action's guard when it reads one
// state slot only: its closure, the slot and the slot's domain.
type firstConj struct {
	action int
	eval   evalFn
	off    int
	lo, hi int64
}

// firstConjunct returns the first conjunct of guard g (the leftmost
// operand of its `and`s: the one evaluated first, so that g is false,
// without failing, when it is false without failing) compiled on its
// own, when it reads exactly one state slot of a domain of at most
// maxGuardTab values.
func (c *compiler) firstConjunct(g *spec.Expr, cx frameCtx) (firstConj, bool) {
	first := g
	for first.Op == spec.OpAnd && len(first.Args) == 2 {
		first = first.Args[0]
	}
	if !isScalar(first.Type) || c.wide(first, cx) {
		return firstConj{}, false
	}
	read := make([]bool, c.p.n)
	c.reads(first, read)
	off := -1
	for s, r := range read {
		if r {
			if off >= 0 {
				return firstConj{}, false
			}
			off = s
		}
	}
	if off < 0 {
		return firstConj{}, false
	}
	d := c.p.dom[off]
	lo, hi := d.lo, d.hi
	if d.set {
		lo, hi = 0, int64(d.mask)
		if d.mask >= maxGuardTab {
			return firstConj{}, false
		}
	}
	if hi < lo || hi-lo >= maxGuardTab {
		return firstConj{}, false
	}
	return firstConj{eval: c.scalar(first, cx), off: cx.state + off, lo: lo, hi: hi}, true
}

// guardTables builds the guard tables from the first conjuncts of the
// guards, evaluating each at every value of its slot on a machine of
// its own (an evaluation reads that slot and the frame slots it binds
// itself, nothing else). An evaluation is given guardTabSteps loop steps
// (quantifier iterations): a first conjunct that takes more at some
// value gets no table, so that compiling stays quick.
func (p *Program) guardTables(firsts []firstConj) {
	w := (len(p.actions) + 63) / 64
	p.candWords = w
	p.candAlways = make([]uint64, w)
	for a := range p.actions {
		p.candAlways[a/64] |= 1 << uint(a%64)
	}
	if len(firsts) == 0 {
		return
	}
	m := p.NewMachine()
	m.SetInterrupt(func() bool { return true })
	tab := map[int]int{} // slot -> index in guardTabs
	var holds []bool
	for _, f := range firsts {
		holds = holds[:0]
		for v := f.lo; v <= f.hi; v++ {
			m.unhalt()
			m.countdown = guardTabSteps
			m.mem[f.off] = v
			m.err = nil
			m.action = f.action
			r := f.eval(m)
			if m.halted {
				break
			}
			holds = append(holds, r != 0 || m.err != nil)
		}
		m.unhalt()
		m.err = nil
		if len(holds) != int(f.hi-f.lo+1) {
			continue // too long to evaluate: no table
		}
		ti, ok := tab[f.off]
		if !ok {
			n := len(holds)
			ti = len(p.guardTabs)
			tab[f.off] = ti
			p.guardTabs = append(p.guardTabs, guardTab{off: f.off, lo: f.lo, n: n,
				rows: make([]uint64, n*w), all: make([]uint64, w)})
		}
		g := &p.guardTabs[ti]
		bit, word := uint64(1)<<uint(f.action%64), f.action/64
		p.candAlways[word] &^= bit
		g.all[word] |= bit
		for i, h := range holds {
			if h {
				g.rows[i*w+word] |= bit
			}
		}
	}
}

// guardTabSteps is the number of loop steps guardTables allows one
// evaluation of a first conjunct.
const guardTabSteps = 4096

// Words returns the number of uint64 words of a packed state.
func (p *Program) Words() int { return p.lay.words }

// Slots returns the number of slots of an unpacked state.
func (p *Program) Slots() int { return p.n }

// Pack encodes the unpacked state src into dst (Words long).
func (p *Program) Pack(dst State, src []int64) { p.lay.pack(dst, src) }

// Unpack decodes the packed state src into dst (Slots long).
func (p *Program) Unpack(dst []int64, src State) { p.lay.unpack(dst, src) }

// CompileExpr compiles a state expression (over state slots and the
// predicate frame, e.g. an LTL atom) for [Machine.Eval]. It may be called
// after machines were created: they grow their memory as needed. Safe for
// concurrent use.
func (p *Program) CompileExpr(e *spec.Expr) (*Pred, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	c := p.comp
	c.err = nil
	chk := frameCtx{state: p.checkOff, frame: p.checkFrameOff}
	pr := &Pred{w: width(e.Type)}
	e = spec.Fold(e)
	c.analyse(chk, nil, nil, e)
	if isScalar(e.Type) {
		pr.eval = c.scalar(e, chk)
		pr.slots, pr.partial = c.readSlots(e), true
	} else {
		pr.ref = c.ref(e, chk)
	}
	p.memSize.Store(int64(c.mem))
	if c.err != nil {
		return nil, c.err
	}
	return pr, nil
}

// Eval evaluates a scalar state expression in state s. It compiles e on
// every call and allocates a machine: use CompileExpr and Machine.Eval
// in loops.
func (p *Program) Eval(e *spec.Expr, s State) (int64, error) {
	pr, err := p.CompileExpr(e)
	if err != nil {
		return 0, err
	}
	if pr.eval == nil {
		return 0, errors.New("machine: Eval of a compound expression")
	}
	return p.NewMachine().Eval(pr, s)
}

// conjuncts splits an invariant into its conjuncts, left to right
// (conjunctExprs), and compiles them. Evaluating them in order and
// stopping at the first false one is the short-circuit evaluation of the
// whole.
func (c *compiler) conjuncts(e *spec.Expr, cx frameCtx, out []Conjunct) []Conjunct {
	for _, x := range conjunctExprs(e, cx, nil) {
		out = append(out, Conjunct{eval: c.scalar(x, cx), slots: c.readSlots(x)})
	}
	return out
}

// readSlots returns the state slots e may read, ascending.
func (c *compiler) readSlots(e *spec.Expr) []int32 {
	read := make([]bool, len(c.p.lay.slots))
	c.reads(e, read)
	var slots []int32
	for s, r := range read {
		if r {
			slots = append(slots, int32(s))
		}
	}
	return slots
}

// reads marks in read every state slot e may read (every slot of an
// array indexed by a computed index).
func (c *compiler) reads(e *spec.Expr, read []bool) {
	spec.Walk(e, func(e *spec.Expr) bool {
		switch e.Op {
		case spec.OpVar:
			markSlots(read, e.Slot, width(e.Type))
			return false
		case spec.OpIndex, spec.OpField:
			if off, ok := staticOff(e, frameCtx{state: 0, frame: -1 << 40}); ok && off >= 0 {
				markSlots(read, off, width(e.Type))
				return false
			}
		}
		return true
	})
}

func markSlots(read []bool, first, w int) {
	for s := first; s < first+w && s < len(read); s++ {
		read[s] = true
	}
}
