package checker

import (
	"fmt"
	"math/bits"
	"slices"

	"github.com/wrapcheck/wrapcheck/machine"
)

// conjunctIndex is the explorer's index of the checked invariants'
// conjuncts, built once by selectInvariants before the search and only
// read after it, by every worker at once.
//
// The conjuncts of the checked invariants are numbered in checking order
// (invariant, then conjunct), and per slot the numbers of those that read
// it are kept, ascending: a successor re-checks only the conjuncts of the
// slots its action changed. With at most maxConjBits conjuncts the same
// sets are also kept as bit sets, conjWords words per slot
// (slotConjBits), which changedConjuncts ORs instead of merging lists.
type conjunctIndex struct {
	invs         []int // checked invariants
	vacIdx       []int // checked invariants with an antecedent
	conjRef      []conjRef
	conjs        []*machine.Conjunct // conjunct g is conjs[g]
	allConjs     []int32             // 0, 1, .. len(conjRef)-1: every conjunct, in order
	slotConjs    [][]int32
	conjWords    int      // words per slot in slotConjBits; 0: no bit sets
	slotConjBits []uint64 // slot sl's conjuncts: words sl*conjWords.., bit g%64 of word g/64
	bitSlot      []int32  // per bit of the packed vector: its slot, -1: none
	slotMask     []uint64 // per slot: its bits in its word (Program.SlotBits)
	// For changedConjunctWord, per word: the top bit of each slot's bits
	// (top) and the slots' other bits (below), and per top bit
	// (word*64+bit) its slot and the slot's conjuncts (one word).
	top, below []uint64
	topSlot    []topSlot
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

// indexConjuncts builds conjRef, slotConjs and bitSlot.
func (e *explorer) indexConjuncts() {
	p := e.prog
	e.slotConjs = make([][]int32, p.Slots())
	for _, i := range e.invs {
		for k, cj := range p.Conjuncts(i) {
			g := int32(len(e.conjRef))
			e.conjRef = append(e.conjRef, conjRef{int32(i), int32(k)})
			e.conjs = append(e.conjs, &p.Conjuncts(i)[k])
			e.allConjs = append(e.allConjs, g)
			for _, sl := range cj.Slots() {
				e.slotConjs[sl] = append(e.slotConjs[sl], g)
			}
		}
	}
	if n := len(e.conjRef); n <= maxConjBits {
		cw := (n + 63) / 64
		e.conjWords = cw
		e.slotConjBits = make([]uint64, p.Slots()*cw)
		for sl, gs := range e.slotConjs {
			for _, g := range gs {
				e.slotConjBits[sl*cw+int(g)/64] |= 1 << (uint(g) % 64)
			}
		}
	}
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
	e.bitSlot = make([]int32, p.Words()*64)
	for b := range e.bitSlot {
		e.bitSlot[b] = -1
	}
	e.slotMask = make([]uint64, p.Slots())
	e.top = make([]uint64, p.Words())
	e.below = make([]uint64, p.Words())
	e.topSlot = make([]topSlot, p.Words()*64)
	for i := range p.Slots() {
		word, mask := p.SlotBits(i)
		e.slotMask[i] = mask
		for b := 0; b < 64; b++ {
			if mask>>b&1 != 0 {
				e.bitSlot[word*64+b] = int32(i)
			}
		}
		if mask != 0 {
			t := 63 - bits.LeadingZeros64(mask)
			e.top[word] |= 1 << t
			e.below[word] |= mask &^ (1 << t)
			e.topSlot[word*64+t].slot = int32(i)
			if e.conjWords == 1 {
				e.topSlot[word*64+t].conjs = e.slotConjBits[i]
			}
		}
	}
}

// topSlot is a slot as changedConjunctWord finds it from its top bit.
type topSlot struct {
	conjs uint64 // slotConjBits of the slot, with one word of conjuncts
	slot  int32
}

// changedTops returns the top bits (top) of the slots in which the
// difference d of two packed words has a bit set: adding the all-ones
// below each top bit (below) to d's bits there carries into the top bit
// exactly when one of them is set, and never past it.
func changedTops(d, top, below uint64) uint64 {
	return ((d & below) + below | d) & top
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
		gs = w.changedConjuncts(vec, parent)
		if len(gs) == 0 && w.witnessedN == len(e.vacIdx) {
			return
		}
		w.readyCheck(m, parent)
		m.UnpackCheckSlots(vec, w.changed)
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
		m.UnpackCheckSlots(parent, w.changed)
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

// maxConjBits is the most conjuncts for which the explorer keeps the
// conjuncts of each slot as a bit set: a few words per slot to OR, and
// as many to scan per state.
const maxConjBits = 256

// changedConjuncts returns, in checking order, the conjuncts that read a
// slot in which vec differs from parent.
func (w *worker) changedConjuncts(vec, parent []uint64) []int32 {
	switch cw := w.e.conjWords; {
	case cw == 1:
		return w.changedConjunctWord(vec, parent) // one call, not two
	case cw > 0:
		return w.changedConjunctBits(vec, parent)
	}
	return w.changedConjunctList(vec, parent)
}

// changedConjunctBits is changedConjuncts over slotConjBits: the union
// of the changed slots' sets, read out in ascending order, needs neither
// stamps nor a sort.
func (w *worker) changedConjunctBits(vec, parent []uint64) []int32 {
	e := w.e
	cw := e.conjWords
	if cw == 1 {
		return w.changedConjunctWord(vec, parent)
	}
	if len(w.conjBits) != cw {
		w.conjBits = machine.Padded[uint64](cw)
	}
	acc := w.conjBits
	ch := w.changed[:0]
	for wd := range vec {
		d := vec[wd] ^ parent[wd]
		for d != 0 {
			b := bits.TrailingZeros64(d)
			sl := e.bitSlot[wd*64+b]
			if sl < 0 {
				d &= d - 1
				continue
			}
			d &^= e.slotMask[sl]
			ch = append(ch, sl)
			o := int(sl) * cw
			for j, x := range e.slotConjBits[o : o+cw] {
				acc[j] |= x
			}
		}
	}
	w.changed = ch
	c := w.cands[:0]
	for j, x := range acc {
		for x != 0 {
			c = append(c, int32(j*64+bits.TrailingZeros64(x)))
			x &= x - 1
		}
		acc[j] = 0
	}
	w.cands = c
	return c
}

// changedConjunctWord is changedConjunctBits for at most 64 conjuncts:
// one word to OR per changed slot (found from its top bit, changedTops),
// read out into a fixed array.
func (w *worker) changedConjunctWord(vec, parent []uint64) []int32 {
	e := w.e
	var acc uint64
	ch := w.changed[:0]
	parent = parent[:len(vec)]
	for wd, x := range vec {
		c := changedTops(x^parent[wd], e.top[wd], e.below[wd])
		ts := e.topSlot[wd*64 : wd*64+64]
		for ; c != 0; c &= c - 1 {
			t := &ts[bits.TrailingZeros64(c)&63]
			ch = append(ch, t.slot)
			acc |= t.conjs
		}
	}
	w.changed = ch
	c := &w.candWord
	n := 0
	for ; acc != 0; acc &= acc - 1 {
		c[n&63] = int32(bits.TrailingZeros64(acc))
		n++
	}
	return c[:n]
}

// changedConjunctList is changedConjuncts over slotConjs, for models
// with more than maxConjBits conjuncts.
func (w *worker) changedConjunctList(vec, parent []uint64) []int32 {
	e := w.e
	if len(w.stamp) != len(e.conjRef) {
		w.stamp = machine.Padded[uint32](len(e.conjRef))
	}
	w.stampCur++
	if w.stampCur == 0 {
		clear(w.stamp)
		w.stampCur = 1
	}
	cur := w.stampCur
	c := w.cands[:0]
	ch := w.changed[:0]
	sorted := true
	for wd := range vec {
		d := vec[wd] ^ parent[wd]
		for d != 0 {
			b := bits.TrailingZeros64(d)
			sl := e.bitSlot[wd*64+b]
			if sl < 0 {
				d &= d - 1
				continue
			}
			d &^= e.slotMask[sl]
			ch = append(ch, sl)
			for _, g := range e.slotConjs[sl] {
				if w.stamp[g] != cur {
					w.stamp[g] = cur
					sorted = sorted && (len(c) == 0 || c[len(c)-1] < g)
					c = append(c, g)
				}
			}
		}
	}
	if !sorted {
		slices.Sort(c)
	}
	w.changed = ch
	w.cands = c
	return c
}
