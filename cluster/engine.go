package cluster

import (
	"errors"
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
	slots []int64
	enab  []int
	rest  []int
	all   []int

	// the expansion in progress
	parent []uint64
	vec    []uint64
	off    int // ordinal offset (the second round of partial-order reduction)
	succ   func(ord uint64, action int, t []uint64)
}

func newEngine(prog *machine.Program, opts checker.Options) (*engine, error) {
	m := prog.Model
	e := &engine{prog: prog, opts: opts, m: prog.NewMachine(), words: prog.Words(), nacts: prog.Actions(),
		slots: make([]int64, prog.Slots()), vec: make([]uint64, prog.Words())}
	for i, inv := range m.Invariants {
		if len(opts.Only) > 0 && !slices.Contains(opts.Only, inv.Name) {
			continue
		}
		e.invs = append(e.invs, i)
	}
	for a := range e.nacts {
		e.all = append(e.all, a)
	}
	e.m.OnState(e.onState)
	return e, nil
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
// state: its canonical packed form goes to succ with its ordinal.
func (e *engine) onState(m *machine.Machine) {
	if e.opts.Canon != nil {
		e.canonOf(e.vec, m.Slots())
	} else {
		m.Repack(e.vec, e.parent) // only the slots the branch wrote
	}
	e.succ(verdict.Ordinal(e.off+m.Ordinal()), m.Action(), e.vec)
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
// off, calling succ for each successor (canonical; valid during the call)
// with its ordinal; it returns the number of ordinals the actions took
// (successors and failing branches) and the first failure (nil: none).
func (e *engine) run(acts []int, off int, succ func(ord uint64, action int, t []uint64)) (int, *failure) {
	e.succ, e.off = succ, off
	var first *failure
	for _, a := range acts {
		if !e.m.RunAction(a) {
			if first == nil {
				first = &failure{k: key{Ord: verdict.Ordinal(off + e.m.FailOrdinal())}, ex: e.m.Failure()}
			}
			e.m.ClearFailure()
		}
	}
	return e.m.Ordinal(), first
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
func (e *engine) terminal() bool { return e.m.LoadedTerminal() }

// bad is a violated invariant of a state: the invariant (index into
// Model.Invariants) and, when evaluating it failed, the error.
type bad struct {
	inv int
	ex  *machine.ExecError
}

// check evaluates the conjuncts of the checked invariants in s
// (canonical) in order and returns the first violated invariant (found
// false: none); it sets witnessed[i] for the invariants whose antecedent
// holds. checker checks only the conjuncts that read a slot changed from
// the parent; the others hold in the parent, which satisfied every
// invariant, so the first violated conjunct is the same.
func (e *engine) check(s []uint64, witnessed []bool) (b bad, found bool) {
	m := e.m
	m.UnpackCheck(s)
	for _, i := range e.invs {
		cjs := e.prog.Conjuncts(i)
		for k := range cjs {
			v, ok := m.EvalConjunct(&cjs[k])
			if !ok {
				return e.witness(bad{inv: i, ex: m.PredFailure()}, true, witnessed)
			}
			if v == 0 {
				return e.witness(bad{inv: i}, true, witnessed)
			}
		}
	}
	return e.witness(bad{}, false, witnessed)
}

func (e *engine) witness(b bad, found bool, witnessed []bool) (bad, bool) {
	for _, i := range e.invs {
		if e.prog.HasAntecedent(i) && !witnessed[i] && e.m.Antecedent(i) {
			witnessed[i] = true
		}
	}
	return b, found
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
