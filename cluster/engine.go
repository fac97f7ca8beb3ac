package cluster

import (
	"errors"
	"math/bits"
	"slices"

	"github.com/wrapcheck/wrapcheck/checker"
	"github.com/wrapcheck/wrapcheck/machine"
	"github.com/wrapcheck/wrapcheck/verdict"
)

// key is the tie-break key of a successor or failing branch
// ([verdict.Key]): the position of its parent in the level (the global
// frontier order) and its ordinal among the parent's successors, the
// single-process search's ordinals; it decides, as there, which state
// keeps a duplicate and which violation a level reports.
type key = verdict.Key

// engine is the compiled model as one worker uses it, through the
// machine's interface for a search: expansion in the search's order with
// checker's ordinals, canonical forms, invariant checks and trace replay.
type engine struct {
	prog  *machine.Program
	opts  checker.Options
	m     *machine.Machine
	words int
	nacts int
	invs  []int // checked invariants, ascending
	ante  []int // those of invs with an antecedent
	conjs []conj
	// checkSucc's index from the slots changed to the conjuncts that
	// read them, and its room
	cix   *machine.ConjIndex
	cs    machine.ConjScratch
	valid []uint64 // per word, the bits some slot takes
	slots []int64
	enab  []int
	rest  []int
	all   []int

	// the expansion in progress
	parent []uint64
	vec    []uint64
	off    int // ordinal offset (the second round of partial-order reduction)
	// succ takes the successors of each expansion (set once: a pointer
	// written per state costs a write barrier while the collector marks)
	succ func(vecs []uint64, succs []machine.Succ)
	// collecting: the machine collects successors into col (Collect),
	// not onState, since the last run that changed it
	collecting bool
	// col holds the successors of an expansion, packed and hashed, until
	// they go to succ, colLimit at a time. Without a canonicalisation the
	// machine collects them, with no call each; with one, or with an
	// ordinal offset, onState adds each.
	col machine.Collector

	// keepCol: the successors stay in col from run to run, for the
	// worker to store them from there (one worker: flushHeld), col
	// growing when full; succ is not called
	keepCol bool

	// the figures of the expansions so far: successors, per action
	trans int64
	fired []int64

	// held is the packed state the check area holds unpacked, when
	// heldOK: checkSucc then unpacks only the slots in which the next
	// state differs from it. Anything else that writes the check area
	// (check, terminal) clears heldOK.
	held   []uint64
	heldOK bool
}

// conj is a conjunct of a checked invariant, in checking order.
type conj struct {
	inv int
	c   *machine.Conjunct
}

func newEngine(prog *machine.Program, opts checker.Options) (*engine, error) {
	m := prog.Model
	e := &engine{prog: prog, opts: opts, m: prog.NewMachine(), words: prog.Words(), nacts: prog.Actions(),
		slots: make([]int64, prog.Slots()), vec: make([]uint64, prog.Words()), held: make([]uint64, prog.Words())}
	for i, inv := range m.Invariants {
		if len(opts.Only) > 0 && !slices.Contains(opts.Only, inv.Name) {
			continue
		}
		e.invs = append(e.invs, i)
		if prog.HasAntecedent(i) {
			e.ante = append(e.ante, i)
		}
		for k := range prog.Conjuncts(i) {
			e.conjs = append(e.conjs, conj{inv: i, c: &prog.Conjuncts(i)[k]})
		}
	}
	cjs := make([]*machine.Conjunct, len(e.conjs))
	for g, c := range e.conjs {
		cjs[g] = c.c
	}
	e.cix = machine.NewConjIndex(prog, cjs)
	e.cs = e.cix.Scratch()
	e.valid = make([]uint64, e.words)
	for sl := range prog.Slots() {
		wd, mask := prog.SlotBits(sl)
		e.valid[wd] |= mask
	}
	for a := range e.nacts {
		e.all = append(e.all, a)
	}
	e.fired = make([]int64, e.nacts)
	e.col = machine.Collector{Vecs: make([]uint64, colLimit*e.words), Succs: make([]machine.Succ, colLimit),
		MaxOrd: verdict.MaxOrdinal, Limit: colLimit, Full: e.colFull, Fired: e.fired}
	e.m.OnState(e.onState)
	return e, nil
}

// colLimit is the number of successors the collector holds before they
// go to succ.
const colLimit = 64

// colFull is the collector's Full: its successors go to succ, or,
// held, it doubles.
func (e *engine) colFull(*machine.Machine) {
	if !e.keepCol {
		e.drain()
		return
	}
	e.col.Grow()
}

// drain hands the collected successors to succ (held: it counts them
// alone): their ordinals are their keys (Collector.Key is 0).
func (e *engine) drain() {
	c := &e.col
	e.trans += c.Trans
	c.Trans = 0
	if e.keepCol {
		return
	}
	if c.N > 0 {
		e.succ(c.Vecs[:c.N*e.words], c.Succs[:c.N])
	}
	c.N = 0
}

// canonOf writes the canonical form of the unpacked state u into dst.
func (e *engine) canonOf(dst []uint64, u []int64) {
	if e.opts.Canon == nil {
		e.prog.Pack(dst, u)
		return
	}
	copy(e.slots, u)
	e.opts.Canon(e.slots)
	e.prog.Pack(dst, e.slots)
}

// onState is the machine's callback for each successor of the loaded
// state when it does not collect them: the successor's canonical packed
// form joins the collected ones with its ordinal and hash.
func (e *engine) onState(m *machine.Machine) {
	c := &e.col
	vec := c.Vecs[c.N*e.words : (c.N+1)*e.words]
	var h uint64
	if e.opts.Canon != nil {
		e.canonOf(vec, m.Slots())
		h = machine.Hash(vec)
	} else {
		h = m.RepackHash(vec, e.parent) // only the slots the branch wrote
	}
	c.Trans++
	c.Fired[m.Action()]++
	c.Succs[c.N] = machine.Succ{H: h, Key: verdict.Ordinal(e.off + m.Ordinal())}
	if c.N++; c.N == c.Limit {
		e.colFull(m)
	}
}

// failure is a failing branch: its key and error.
type failure struct {
	k  key
	ex *machine.ExecError
}

// load loads the packed state s for expansion.
func (e *engine) load(s []uint64) {
	e.parent = s
	e.m.Load(s)
}

// run runs actions acts of the loaded state, its ordinals starting at
// off, handing e.succ the successors (canonical; valid during the call)
// with their ordinals (Key) and [machine.Hash]es, a batch at a time, and
// counts them (trans, fired).
// It returns the number of ordinals the actions took (successors and
// failing branches) and the first failure (nil: none).
func (e *engine) run(acts []int, off int) (int, *failure) {
	e.off = off
	collect := e.opts.Canon == nil && off == 0
	if collect {
		e.col.Parent = e.parent
	}
	if collect != e.collecting {
		if collect {
			e.m.Collect(&e.col)
		} else {
			e.m.OnState(e.onState)
		}
		e.collecting = collect
	}
	var first *failure
	// The actions that may be enabled: the others make no successor and
	// take no ordinal, and are not run. Every action (acts ascend, so
	// all of them is as many): the candidates' bits in order, not a test
	// of each action's (a third of the worker's instructions over the
	// local search's on pipeline K=3 N=2).
	cand := e.m.Candidates()
	if len(acts) == e.nacts {
		for i, x := range cand {
			for ; x != 0; x &= x - 1 {
				if !e.m.RunAction(i*64 + bits.TrailingZeros64(x)) {
					first = e.actionFailed(first)
				}
			}
		}
	} else {
		for _, a := range acts {
			if cand[a/64]>>(a%64)&1 != 0 && !e.m.RunAction(a) {
				first = e.actionFailed(first)
			}
		}
	}
	e.drain()
	return e.m.Ordinal(), first
}

// actionFailed clears the machine's failure of the action just run and
// returns first, or the failure if first is nil (the run's first, whose
// ordinal is counted from e.off). Not inlined: run's loop is a call and
// a test an action (a closure for this cost a fifth of run's
// instructions).
//
//go:noinline
func (e *engine) actionFailed(first *failure) *failure {
	if first == nil {
		first = &failure{k: key{Ord: verdict.Ordinal(e.off + e.m.FailOrdinal())}, ex: e.m.Failure()}
	}
	e.m.ClearFailure()
	return first
}

// enabled returns the enabled actions of the loaded state and, under
// partial-order reduction, the ample subset to run first (enabled itself
// when there is no hook).
func (e *engine) enabled() (enabled, sub []int) {
	if e.opts.Ample == nil {
		return e.all, e.all
	}
	e.enab = e.enab[:0]
	for a := range e.nacts {
		if e.m.Guard(a) {
			e.enab = append(e.enab, a)
		}
	}
	if len(e.enab) == 0 {
		return e.enab, e.enab
	}
	in := append(e.rest[:0], e.enab...)
	return e.enab, e.opts.Ample(e.m.Slots(), in)
}

// restOf returns the actions of enabled not in sub (both ascending).
func (e *engine) restOf(enabled, sub []int) []int {
	var rest []int
	j := 0
	for _, a := range enabled {
		for j < len(sub) && sub[j] < a {
			j++
		}
		if j < len(sub) && sub[j] == a {
			continue
		}
		rest = append(rest, a)
	}
	return rest
}

// terminal reports whether the loaded state satisfies the terminal
// predicate (false when its evaluation fails, as in the search).
func (e *engine) terminal() bool {
	e.heldOK = false // LoadedTerminal writes the check area
	return e.m.LoadedTerminal()
}

// bad is a violated invariant of a state: the invariant (index into
// Model.Invariants) and, when evaluating it failed, the error.
type bad struct {
	inv int
	ex  *machine.ExecError
}

// check evaluates the conjuncts of the checked invariants in s
// (canonical) in order and returns the first violated invariant (found
// false: none); it witnesses the antecedents of left that hold in s.
func (e *engine) check(s []uint64, witnessed []bool, left *[]int) (b bad, found bool) {
	e.heldOK = false
	e.m.UnpackCheck(s)
	for g := range e.conjs {
		if b, found = e.evalConj(g); found {
			break
		}
	}
	e.witness(witnessed, left)
	return b, found
}

// checkSucc is check of s, a successor of parent, which satisfied every
// conjunct: only those that read a slot in which s differs from parent
// are evaluated, as checker does, over the check area holding s (hold:
// the slots in which s differs from the state checked before decoded;
// fewer instructions here than checker's parent held and s's changed
// slots written over it and restored, 4,092 against 4,210 million for
// one worker's whole run on pipeline K=3 N=2).
func (e *engine) checkSucc(s, parent []uint64, witnessed []bool, left *[]int) (b bad, found bool) {
	gs := e.cix.Changed(s, parent, &e.cs)
	if len(gs) == 0 && len(*left) == 0 {
		return bad{}, false
	}
	e.hold(s)
	for _, g := range gs {
		if b, found = e.evalConj(int(g)); found {
			break
		}
	}
	e.witness(witnessed, left)
	return b, found
}

// hold makes the check area hold s unpacked: only the slots in which s
// differs from the state it holds are decoded.
func (e *engine) hold(s []uint64) {
	if e.heldOK {
		e.m.UnpackCheckChanged(s, e.held)
	} else {
		e.m.UnpackCheck(s)
		e.heldOK = true
	}
	copy(e.held, s)
}

// evalConj evaluates conjunct g over the check area: found when it is
// false or fails.
func (e *engine) evalConj(g int) (b bad, found bool) {
	c := &e.conjs[g]
	v, ok := e.m.EvalConjunct(c.c)
	if !ok {
		return bad{inv: c.inv, ex: e.m.PredFailure()}, true
	}
	return bad{inv: c.inv}, v == 0
}

// witness sets witnessed[i] for the invariants i of left whose
// antecedent holds in the state the check area holds, and drops them
// from left.
func (e *engine) witness(witnessed []bool, left *[]int) {
	l := (*left)[:0]
	for _, i := range *left {
		if e.m.Antecedent(i) {
			witnessed[i] = true
		} else {
			l = append(l, i)
		}
	}
	if len(l) < len(*left) {
		*left = l // only then: a write barrier while the collector marks
	}
}

// isValid reports whether the packed state s sets no bit outside the
// slots' (a state read from the store is input).
func (e *engine) isValid(s []uint64) bool {
	for i, x := range s {
		if x&^e.valid[i] != 0 {
			return false
		}
	}
	return true
}

// initStates returns the initial states (canonical, first occurrences in
// init-branch order) with their init ordinals, and the first init failure
// (nil: none) with its ordinal.
func (e *engine) initStates() (states [][]uint64, ords []int, fail *failure, err error) {
	dedup := machine.NewStore(e.words)
	m := e.prog.NewMachine()
	var serr error
	m.OnState(func(m *machine.Machine) {
		e.canonOf(e.vec, m.Slots())
		_, isNew, err := dedup.Insert(e.vec, 0)
		if err != nil {
			serr = err
		}
		if isNew {
			states = append(states, slices.Clone(e.vec))
			ords = append(ords, m.Ordinal())
		}
	})
	if !m.RunInit() {
		fail = &failure{k: key{Ord: uint64(m.FailOrdinal())}, ex: m.Failure()}
		m.ClearFailure()
	}
	if serr != nil {
		return nil, nil, nil, serr
	}
	return states, ords, fail, nil
}

// replay rebuilds a concrete trace through the stored (canonical) states
// of path as checker does: from the first initial state whose canonical
// form is path[0], each step takes the first successor, in (action,
// branch) order, whose canonical form is the next stored state. With
// failing set, a last step shows the first failing action of the last
// state (or the failing init block when path is empty).
func (e *engine) replay(path [][]uint64, failing bool) ([]verdict.Step, error) {
	m := e.prog.NewMachine()
	m.RecordAnswers(true)
	vec := make([]uint64, e.words)
	var target []uint64
	found := false
	var got verdict.Step
	m.OnState(func(m *machine.Machine) {
		if found {
			return
		}
		e.canonOf(vec, m.Slots())
		if slices.Equal(vec, target) {
			found = true
			got = verdict.Step{Action: m.Action(), State: slices.Clone(m.Slots()), Asked: machine.CloneAnswers(m.Asked())}
		}
	})
	failStep := func() verdict.Step {
		a, st, asked := m.FailedStep()
		return verdict.Step{Action: a, State: slices.Clone(st), Asked: machine.CloneAnswers(asked)}
	}
	lost := errors.New("wrapcheck internal error: distributed trace replay lost a step")
	if len(path) == 0 {
		found = true // no successor wanted
		if m.RunInit() {
			return nil, lost
		}
		return []verdict.Step{failStep()}, nil
	}
	var steps []verdict.Step
	target = path[0]
	if !m.RunInit() {
		m.ClearFailure()
	}
	if !found {
		return nil, lost
	}
	steps = append(steps, got)
	for _, t := range path[1:] {
		target, found = t, false
		m.LoadSlots(steps[len(steps)-1].State)
		for a := range e.nacts {
			if !m.RunAction(a) {
				m.ClearFailure()
			}
			if found {
				break
			}
		}
		if !found {
			return nil, lost
		}
		steps = append(steps, got)
	}
	if failing {
		found = true // ignore successors
		m.LoadSlots(steps[len(steps)-1].State)
		for a := range e.nacts {
			if !m.RunAction(a) {
				st := failStep()
				m.ClearFailure()
				return append(steps, st), nil
			}
		}
		return nil, lost
	}
	return steps, nil
}
