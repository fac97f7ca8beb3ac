package machine

import (
	"errors"
	"fmt"
	"math/big"

	"github.com/wrapcheck/wrapcheck/spec"
)

// ExecError is a runtime error or a failed assertion met while executing
// an action or the init block, or evaluating a predicate.
type ExecError struct {
	Kind   Kind // Assertion or RuntimeError
	Pos    spec.Position
	Msg    string
	Action int // index into Model.Actions; -1 for init or a predicate
}

func (e *ExecError) Error() string {
	return fmt.Sprintf("%s: %s: %s", e.Pos, e.Kind, e.Msg)
}

type undo struct {
	off int32
	old int64
}

// Machine evaluates a Program: it owns the flat memory (unpacked state,
// frames, agent frames, scratch) the compiled closures work on. A Machine
// is not safe for concurrent use; create one per goroutine.
type Machine struct {
	_ [64]byte // no other object's fields on the line of the first ones

	p     *Program
	mem   []int64
	trail []undo
	vec   []uint64
	cand  []uint64 // Candidates' result
	// held is the packed state that the action state holds unpacked, when
	// heldOK: load then decodes only the slots in which the next state
	// differs from it (consecutive frontier states differ in a few).
	held   []uint64
	heldOK bool

	err    *site // first failure of the current evaluation
	errVal int64
	errBig *big.Int // the offending value when it does not fit errVal
	// The exact values of lets that may not fit an int64 (exact.go): the
	// cells of OpLet bindings, and the arena of an action's lets.
	cells  []*big.Int
	arena  []*big.Int
	errOff int
	abort  bool // a failure was raised: the current branch ends
	// failed is the first failure raised since clearFailure (nil: none).
	// A failing branch makes no successor; the other branches and actions
	// still run, so that which successors are made does not depend on the
	// branch order (a trace replayed from a permuted state under symmetry
	// finds the stored ones) and the figures are those of the reachable
	// state space.
	failed *ExecError

	action int
	ord    int // successor ordinal within the current state
	leaf   func(m *Machine)
	// col is the Collector of Collect, nil otherwise; colLeaf, made once
	// by NewMachine, is the leaf that collects into it (for generated
	// code, which calls the leaf).
	col     *Collector
	colLeaf func(m *Machine)

	// failure recorded by raise
	failAction, failOrd int

	record bool // keep agent answers and the failing state (traces)
	asked  []Answer
	// askedVals holds the values of asked, a stack as asked is.
	askedVals []int64
	failState []int64
	failAsked []Answer

	branching bool // keep the decisions of each branch (RecordBranches)
	branches  []Branch

	visit func(action, branch int, t State)
	start int
	// pubLeaf is publicLeaf and pubInit the visit of Init, which calls
	// initVisit, made once by NewMachine.
	pubLeaf func(m *Machine)
	// packOne says the public visits pack only the successors of
	// packAction (SuccessorsPacking).
	packOne    bool
	packAction int
	pubInit    func(action, branch int, t State)
	initVisit  func(branch int, t State)

	// Interruption (SetInterrupt): interrupt is polled when countdown,
	// decremented by every quantifier iteration, choose branch and agent
	// answer, reaches 0; halted is set once it reported true, and the
	// evaluation then ends at the next such step, with halt pending.
	interrupt func() bool
	countdown int64
	halted    bool
	halt      site

	_ [64]byte // nor on the line of the last ones
}

// pollEvery is the number of quantifier iterations, choose branches and
// agent answers between two polls of a machine's interrupt function.
const pollEvery = 1 << 16

// ErrInterrupted is returned by a [Machine]'s methods when the function
// given to [Machine.SetInterrupt] reported true during the call: the
// evaluation was abandoned, and what it visited before is incomplete.
var ErrInterrupted = errors.New("machine: evaluation interrupted")

// NewMachine returns a machine for p.
func (p *Program) NewMachine() *Machine {
	n := int(p.memSize.Load())
	m := &Machine{p: p, mem: Padded[int64](n), vec: Padded[uint64](p.lay.words), held: Padded[uint64](p.lay.words), trail: Padded[undo](64)[:0],
		countdown: pollEvery, halt: site{kind: RuntimeError, msg: "evaluation interrupted"}}
	// Made once: a method value or closure made in Init or Successors
	// would be allocated on every call.
	m.pubLeaf = m.publicLeaf
	m.colLeaf = func(m *Machine) { m.collect(m.col) }
	m.pubInit = func(_, b int, t State) { m.initVisit(b, t) }
	return m
}

// SetInterrupt sets the function the machine polls during long
// evaluations: every 65536 quantifier iterations, choose branches and
// agent answers. Once it reports true, the current call (Init,
// Successors, SuccessorsOf, Eval) stops within a few steps and returns
// [ErrInterrupted]; the next call starts afresh. nil (the default) turns
// polling off.
func (m *Machine) SetInterrupt(f func() bool) { m.interrupt = f }

// PollSoon makes the machine poll its interrupt function at its next
// step (a quantifier iteration, a choose branch, an agent answer) instead
// of up to 65536 steps later: for a caller that learns between two polls
// that the evaluation must end (the successors it is handed can no longer
// be stored), from the machine's own goroutine.
func (m *Machine) PollSoon() {
	if m.countdown > 1 {
		m.countdown = 1
	}
}

// tick counts one step of a loop whose length the spec decides and
// reports whether the evaluation must end now: the machine halted, and a
// failure is pending so that the statement around it raises.
func (m *Machine) tick() bool {
	m.countdown--
	if m.countdown > 0 {
		return false
	}
	return m.poll()
}

func (m *Machine) poll() bool {
	if !m.halted {
		m.countdown = pollEvery
		if m.interrupt == nil || !m.interrupt() {
			return false
		}
		m.halted = true
	}
	m.countdown = 0 // from now on every step polls, and ends at once
	m.fail(&m.halt, 0)
	return true
}

// unhalt readies a halted machine for the next call.
func (m *Machine) unhalt() {
	if m.halted {
		m.halted = false
		m.countdown = pollEvery
		m.undo(0)
		m.clearFailure()
	}
}

func (m *Machine) grow() {
	if n := int(m.p.memSize.Load()); n > len(m.mem) {
		mem := Padded[int64](n)
		copy(mem, m.mem)
		m.mem = mem
	}
}

// fail records the first failure of an evaluation.
func (m *Machine) fail(s *site, v int64) {
	if m.err == nil {
		m.err = s
		m.errVal = v
		m.errBig = nil
	}
}

// raise turns the pending failure into the outcome of the current
// branch, which ends there (abort, until the enclosing branching point
// resumes). The first failure since clearFailure is recorded: failed,
// failAction, failOrd and, when recording, the state it happened in. A
// failing branch takes an ordinal, as a successor does.
func (m *Machine) raise() {
	m.abort = true
	if m.failed == nil {
		m.failAction = m.action
		m.failOrd = m.ord
		m.failed = m.pending()
		if m.record {
			m.failState = append(m.failState[:0], m.mem[:m.p.n]...)
			m.failAsked = CloneAnswers(m.asked)
		}
	}
	m.ord++
}

// resume ends the failing branch: the next branch starts afresh.
func (m *Machine) resume() {
	if m.err != nil { // no pointer store (and write barrier) when nil
		m.err = nil
	}
	m.abort = false
}

// failure returns the ExecError of the failure pending in an evaluation
// (an invariant's, say), or else the first failure raised since
// clearFailure.
func (m *Machine) failure() *ExecError {
	if m.err == nil && m.failed != nil {
		return m.failed
	}
	return m.pending()
}

// predFailure returns the ExecError of a failure pending after a
// predicate's evaluation (an invariant, terminal), which belongs to no
// action, and clears it. The failures raised by branches stay recorded.
func (m *Machine) predFailure() *ExecError {
	a := m.failAction
	m.failAction = -1
	e := m.pending()
	m.failAction = a
	m.err = nil
	return e
}

// pending builds the ExecError of the pending failure (m.err).
func (m *Machine) pending() *ExecError {
	s := m.err
	e := &ExecError{Kind: s.kind, Pos: s.pos, Msg: s.msg, Action: m.failAction}
	switch {
	case s.assign:
		sl := m.p.Model.Slots[m.errOff]
		name := m.p.Model.Vars[sl.Var].Name
		if sl.Set {
			e.Msg = fmt.Sprintf("set value %#x out of range of %s", m.errVal, name)
		} else {
			e.Msg = fmt.Sprintf("value %d out of range %d..%d of %s", m.errVal, sl.Lo, sl.Hi, name)
		}
	case s.hasVal && m.errBig != nil:
		e.Msg = fmt.Sprintf(s.msg, spec.IntString(m.errBig))
	case s.hasVal:
		e.Msg = fmt.Sprintf(s.msg, m.errVal)
	}
	return e
}

func (m *Machine) clearFailure() {
	m.err = nil
	m.abort = false
	m.failed = nil
}

// inDomain reports whether set(off, v) passes set's range test: off is
// not a state slot, or v is in the slot's domain.
func (p *Program) inDomain(off int, v int64) bool {
	if off >= p.n {
		return true
	}
	d := &p.dom[off]
	if d.set {
		return uint64(v)&^d.mask == 0
	}
	return v >= d.lo && v <= d.hi
}

// set stores v at mem[off] through the undo trail; a state slot must
// receive a value of its domain, else the branch fails.
func (m *Machine) set(off int, v int64, st *site) bool {
	if off < m.p.n {
		d := &m.p.dom[off]
		if d.set {
			if uint64(v)&^d.mask != 0 {
				m.failAssign(st, off, v)
				return false
			}
		} else if v < d.lo || v > d.hi {
			m.failAssign(st, off, v)
			return false
		}
	}
	m.write(off, v)
	return true
}

// write sets the memory word off to x, its old value on the undo trail.
func (m *Machine) write(off int, x int64) {
	m.trail = append(m.trail, undo{int32(off), m.mem[off]})
	m.mem[off] = x
}

func (m *Machine) failAssign(st *site, off int, v int64) {
	m.fail(st, v)
	m.errOff = off
	m.raise()
}

func (m *Machine) undo(mark int) {
	// In locals: a store into mem could be one into m.mem's header, for
	// all the compiler knows, which it would then reload each time.
	t := m.trail[mark:]
	mem := m.mem
	for i := len(t) - 1; i >= 0; i-- {
		u := &t[i]
		mem[u.off] = u.old
	}
	m.trail = m.trail[:mark] // the form without a write barrier
}

// load unpacks s into the action state: only the slots in which s
// differs from the state loaded before, when nothing has changed the
// action state since (every action undoes its writes; runInit and
// LoadSlots write it whole and clear heldOK).
func (m *Machine) load(s State) {
	l := &m.p.lay
	h := m.held
	switch {
	case len(s) != len(h):
		l.unpack(m.mem[:m.p.n], s)
		m.heldOK = false
		return
	case m.heldOK && len(m.trail) == 0:
		l.unpackChanged(m.mem[:m.p.n], s, h)
	default:
		l.unpack(m.mem[:m.p.n], s)
		m.heldOK = true
	}
	// A loop rather than copy: vectors are a few words.
	for i, x := range s {
		h[i] = x
	}
}

// runAction runs action a on the state in mem[:n], calling m.leaf per
// successor, every branch of it, failing or not. It reports false when a
// failure has been raised since clearFailure (see Machine.failure).
func (m *Machine) runAction(a int) bool {
	ca := &m.p.actions[a]
	m.action = a
	if ca.eqOff >= 0 && m.mem[ca.eqOff] != ca.eqK {
		// ca.guard is `mem[eqOff] == eqK and ..`, false without failing.
		return m.failed == nil
	}
	if ca.run != nil {
		return ca.run(m) // generated (native.go)
	}
	if ca.guard != nil && !(ca.eqOff >= 0 && ca.eqOnly) {
		g := ca.guard(m)
		if m.err != nil {
			m.raise()
			m.resume()
			return false
		}
		if g == 0 {
			return m.failed == nil
		}
	}
	m.arena = m.arena[:0]
	ca.body(m)
	m.undo(0)
	m.resume()
	return m.failed == nil
}

// runInit resets mem[:n] to the zero state and runs the init block, every
// branch of it. It reports false when a branch failed.
func (m *Machine) runInit() bool {
	m.heldOK = false
	copy(m.mem[:m.p.n], m.p.zero)
	m.action = -1
	m.ord = 0
	m.trail = m.trail[:0]
	m.arena = m.arena[:0]
	m.p.init(m)
	m.undo(0)
	m.resume()
	return m.failed == nil
}

// enabledGuard reports whether action a's guard holds in mem[:n]; an
// evaluation failure is raised and reported as enabled.
func (m *Machine) enabledGuard(a int) bool {
	ca := &m.p.actions[a]
	if ca.guard == nil {
		return true
	}
	m.action = a
	g := ca.guard(m)
	if m.err != nil {
		return true
	}
	return g != 0
}

func (m *Machine) publicLeaf(mm *Machine) {
	if m.halted {
		return
	}
	if m.packOne && m.action != m.packAction {
		m.countdown--
		m.visit(m.action, m.ord-m.start, nil)
		return
	}
	m.p.lay.pack(m.vec, m.mem[:m.p.n])
	// Packing a large state costs as much as many loop steps: counted
	// as one step a word, so that the interrupt is polled every few
	// milliseconds also when each of a choose's branches makes a state
	// of thousands of words (a branch per element of a large array).
	m.countdown -= int64(len(m.vec))
	m.visit(m.action, m.ord-m.start, m.vec)
}

// Init calls visit for each initial state, in the init block's branch
// order (duplicates included). t is valid only during the call. A failing
// branch makes no state; the first failure is returned as *ExecError
// once every branch has run.
func (m *Machine) Init(visit func(branch int, t State)) error {
	m.grow()
	m.unhalt()
	m.clearFailure()
	m.initVisit = visit
	m.visit = m.pubInit
	m.leaf, m.col = m.pubLeaf, nil
	m.start = 0
	ok := m.runInit()
	if m.halted {
		m.unhalt()
		return ErrInterrupted
	}
	if !ok {
		e := m.failure()
		m.clearFailure()
		return e
	}
	return nil
}

// Successors calls visit for every successor of s: each branch of each
// enabled action, in (action, branch) order, duplicates included. t is
// valid only during the call. A failing branch makes no successor; the
// first failure is returned as *ExecError once every branch has run.
func (m *Machine) Successors(s State, visit func(action, branch int, t State)) error {
	return m.SuccessorsOf(s, nil, visit)
}

// Eval evaluates a scalar predicate compiled by CompileExpr in state s.
func (m *Machine) Eval(pr *Pred, s State) (int64, error) {
	m.grow()
	m.err = nil // the branches' failures stay recorded: Eval may run during Successors' visits
	p := m.p
	if pr.partial {
		p.lay.unpackSlots(m.mem[p.checkOff:p.checkOff+p.n], s, pr.slots)
	} else {
		p.lay.unpack(m.mem[p.checkOff:p.checkOff+p.n], s)
	}
	var v int64
	if pr.eval != nil {
		v = pr.eval(m)
	} else {
		v = m.mem[pr.ref.at(m)]
	}
	if m.halted {
		m.halted, m.countdown, m.err = false, pollEvery, nil
		return 0, ErrInterrupted
	}
	if m.err != nil {
		return 0, m.predFailure()
	}
	return v, nil
}

// EvalValue evaluates a state expression compiled by CompileExpr, of any
// type, in state s: it returns its slots (the type's width of them, as a
// trace step holds a variable's), appended to dst[:0].
func (m *Machine) EvalValue(pr *Pred, s State, dst []int64) ([]int64, error) {
	if pr.eval != nil {
		v, err := m.Eval(pr, s)
		if err != nil {
			return dst[:0], err
		}
		return append(dst[:0], v), nil
	}
	m.grow()
	m.err = nil
	p := m.p
	p.lay.unpack(m.mem[p.checkOff:p.checkOff+p.n], s)
	off := pr.ref.at(m)
	if m.halted {
		m.halted, m.countdown, m.err = false, pollEvery, nil
		return dst[:0], ErrInterrupted
	}
	if m.err != nil {
		return dst[:0], m.predFailure()
	}
	return append(dst[:0], m.mem[off:off+pr.w]...), nil
}

// IsTerminal reports whether s satisfies the model's terminal predicate
// (false when the model has none).
func (m *Machine) IsTerminal(s State) (bool, error) {
	p := m.p
	if p.terminal == nil {
		return false, nil
	}
	m.grow()
	m.unhalt()
	m.err = nil
	p.lay.unpack(m.mem[p.checkOff:p.checkOff+p.n], s)
	v := p.terminal(m)
	if m.halted {
		m.unhalt()
		return false, ErrInterrupted
	}
	if m.err != nil {
		return false, m.predFailure()
	}
	return v != 0, nil
}

// pushAnswer records an answer taken on the branch being run, its value
// copied onto askedVals (a value pushed before keeps its slots when
// askedVals grows: the old array is not written again), and returns the
// mark popAnswer takes.
func (m *Machine) pushAnswer(agent int, val []int64) int {
	n := len(m.askedVals)
	m.askedVals = append(m.askedVals, val...)
	end := len(m.askedVals)
	m.asked = append(m.asked, Answer{Agent: agent, Value: m.askedVals[n:end:end]})
	return n
}

// popAnswer drops the answer pushAnswer recorded, once its branch ran.
func (m *Machine) popAnswer(mark int) {
	m.asked = m.asked[:len(m.asked)-1]
	m.askedVals = m.askedVals[:mark]
}

// RecordAnswers turns on (or off) the recording of agent answers, which
// Asked then reports during a visit callback of Init or Successors.
// Recording allocates; leave it off in searches.
func (m *Machine) RecordAnswers(on bool) { m.record = on }

// Asked returns the agent answers taken on the branch being visited, in
// the order asked, when RecordAnswers is on. The slice and the answers'
// values are valid only during the callback ([CloneAnswers] keeps them).
func (m *Machine) Asked() []Answer { return m.asked }
