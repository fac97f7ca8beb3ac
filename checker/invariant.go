package checker

import (
	"fmt"

	"github.com/wrapcheck/wrapcheck/machine"
)

// conjunctIndex is the explorer's index of the checked invariants'
// conjuncts, built once by selectInvariants before the search and only
// read after it, by every worker at once.
//
// The conjuncts of the checked invariants are numbered in checking order
// (invariant, then conjunct); cix maps the slots of a packed state to
// those that read them: a successor re-checks only the conjuncts of the
// slots its action changed.
type conjunctIndex struct {
	invs     []int // checked invariants
	vacIdx   []int // checked invariants with an antecedent
	conjRef  []conjRef
	conjs    []*machine.Conjunct // conjunct g is conjs[g]
	allConjs []int32             // 0, 1, .. len(conjRef)-1: every conjunct, in order
	cix      *machine.ConjIndex
	// With generated code for the check (Program.HasNativeCheck), and
	// without Continue: the checked conjuncts as a set over the numbers
	// of Machine.CheckPacked (natSel, 0: not used), and per such number
	// the conjunct's number here (natLocal).
	natSel   uint64
	natLocal []int32
}

func (e *explorer) selectInvariants() error {
	invs, _, unknown := e.prog.Model.Select(e.opts.Only)
	if unknown != "" {
		return fmt.Errorf("checker: Options.Only: no invariant or property named %s", unknown)
	}
	e.invs = invs
	for _, i := range e.invs {
		if e.prog.HasAntecedent(i) {
			e.vacIdx = append(e.vacIdx, i)
		}
	}
	e.indexConjuncts()
	return nil
}

// conjRef names conjunct k of invariant inv.
type conjRef struct{ inv, k int32 }

// indexConjuncts builds conjRef and cix.
func (e *explorer) indexConjuncts() {
	p := e.prog
	for _, i := range e.invs {
		for k := range p.Conjuncts(i) {
			g := int32(len(e.conjRef))
			e.conjRef = append(e.conjRef, conjRef{int32(i), int32(k)})
			e.conjs = append(e.conjs, &p.Conjuncts(i)[k])
			e.allConjs = append(e.allConjs, g)
		}
	}
	e.cix = machine.NewConjIndex(p, e.conjs)
	if p.HasNativeCheck() && !e.opts.Continue {
		// CheckPacked numbers the conjuncts of every invariant in model
		// order; e.invs is ascending, so its order is checkState's.
		// base[i] is the number of invariant i's first conjunct.
		base := make([]int, len(p.Model.Invariants)+1)
		for i := range p.Model.Invariants {
			base[i+1] = base[i] + len(p.Conjuncts(i))
		}
		e.natLocal = make([]int32, base[len(base)-1])
		for n := range e.natLocal {
			e.natLocal[n] = -1
		}
		for g, r := range e.conjRef {
			n := base[r.inv] + int(r.k)
			e.natSel |= 1 << uint(n)
			e.natLocal[n] = int32(g)
		}
	}
}

// checkState checks the invariants of a new state and tracks their
// antecedents. The state is vec; parent is the packed state it was
// generated from, nil for an initial state, which the check area then
// holds unpacked. Conjuncts that read no bit changed from parent hold, as
// they held in parent. For a successor, the check area is made to hold
// parent unpacked (readyCheck), and vec's changed slots are written over
// it for the check and restored after it, so that the check unpacks only
// the slots that changed. With generated code for the check
// (Machine.CheckPacked: the compiled mode) and every antecedent
// witnessed, a successor's changed conjuncts are evaluated over vec
// itself instead, without the check area.
func (w *worker) checkState(m *machine.Machine, idx uint32, vec, parent []uint64) {
	e := w.e
	// A state is only expanded when it satisfies every invariant, so a
	// conjunct that reads no slot changed from parent holds.
	if parent != nil && e.natSel != 0 && w.witnessedN == len(e.vacIdx) {
		// Generated: the changed conjuncts evaluated over vec itself,
		// the check area untouched.
		if g, ok := m.CheckPacked(vec, parent, e.natSel); g >= 0 {
			w.badConjunct(m, idx, e.natLocal[g], ok)
		}
		return
	}
	gs := e.allConjs
	if parent != nil {
		gs = e.cix.Changed(vec, parent, &w.cs)
		if len(gs) == 0 && w.witnessedN == len(e.vacIdx) {
			return
		}
		w.readyCheck(m, parent)
		m.UnpackCheckSlots(vec, w.cs.Slots)
	}
	// Each conjunct is evaluated in checking order; the first false or
	// failing one records the state's violation and ends the check
	// (under Continue, checkContinue checks on).
	if !e.opts.Continue {
		cjs := e.conjs
		for _, g := range gs {
			if v, ok := m.EvalConjunct(cjs[g]); !ok || v == 0 {
				w.badConjunct(m, idx, g, ok)
				break
			}
		}
	} else {
		w.checkContinue(m, idx, gs)
	}
	if w.witnessedN < len(e.vacIdx) {
		for _, i := range e.vacIdx {
			if !w.witnessed[i] && m.Antecedent(i) {
				w.witnessed[i] = true
				w.witnessedN++
			}
		}
	}
	if parent != nil {
		m.UnpackCheckSlots(parent, w.cs.Slots)
	}
}

// badConjunct records that conjunct g is false (ok) or fails to
// evaluate in the state idx being checked.
func (w *worker) badConjunct(m *machine.Machine, idx uint32, g int32, ok bool) {
	e := w.e
	inv := e.conjRef[g].inv
	if !ok {
		ex := m.PredFailure()
		if !e.doneInvErr[inv] {
			w.bad = append(w.bad, cand{kind: RuntimeError, state: idx, inv: int(inv), err: ex, atState: true})
		}
	} else if !e.doneInv[inv] {
		w.bad = append(w.bad, cand{kind: Invariant, state: idx, inv: int(inv), atState: true})
	}
}

// checkContinue is checkState's loop over the conjuncts gs under
// Options.Continue: an invariant's first false or failing conjunct ends
// the check of that invariant only, and an invariant found violated in
// an earlier level is checked for runtime errors alone.
func (w *worker) checkContinue(m *machine.Machine, idx uint32, gs []int32) {
	e := w.e
	badInv := int32(-1)
	for _, g := range gs {
		inv := e.conjRef[g].inv
		if inv == badInv || e.doneInv[inv] && e.doneInvErr[inv] {
			continue
		}
		if v, ok := m.EvalConjunct(e.conjs[g]); !ok || v == 0 {
			badInv = inv
			w.badConjunct(m, idx, g, ok)
		}
	}
}

// readyCheck makes the check area hold parent unpacked, once per parent
// in a flush: only the slots in which parent differs from the state the
// check area holds (checkVec), else a copy of the action state when that
// is the loaded parent (flush at the end of an expansion), else parent
// unpacked.
func (w *worker) readyCheck(m *machine.Machine, parent []uint64) {
	if w.checkReady {
		return
	}
	w.checkReady = true
	switch {
	case w.checkHeld:
		m.UnpackCheckChanged(parent, w.checkVec)
	case w.loaded:
		copy(m.CheckSlots(), m.Slots())
	default:
		m.UnpackCheck(parent)
	}
	cv := w.checkVec[:len(parent)]
	for i, x := range parent {
		cv[i] = x
	}
	w.checkHeld = true
}
