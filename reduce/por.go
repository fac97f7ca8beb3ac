package reduce

import (
	"slices"

	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/verdict"
)

// por is the precomputed, immutable data of the ample-set choice.
type por struct {
	// Per process instance, its actions [lo, hi) in Model.Actions
	// (consecutive by the IR's contract).
	lo, hi []int
	// Per action: may it be in an ample set when enabled (independent of
	// every action of every other process, and invisible), and may it be
	// left out while disabled (no other process writes what its guard
	// reads, so it stays disabled while only others move).
	okEnabled, okDisabled []bool
	proc                  []int // per action, its process
}

// POR returns the ample-set hook for m: in a state, the enabled actions of
// the first process instance (in Model.Processes order) that form a proper
// subset of the enabled actions and satisfy
//
//   - C1 (static independence): every action of the instance that is
//     enabled neither writes a slot that an action of another instance
//     reads or writes nor reads a slot that one writes; every action of
//     the instance that is disabled has a guard that reads no slot that
//     another instance writes;
//   - C2 (invisibility): no enabled action of the instance writes a slot
//     in visible (the slots read by the checked invariants and, for LTL,
//     the atoms of the checked properties; see [Visible]).
//
// When no instance qualifies it returns every enabled action. The cycle
// proviso C3 is applied by the checker. It returns nil when no instance can
// ever qualify (for example when every action touches a shared variable),
// so that the checker skips the hook. The returned function is safe for
// concurrent use and allocates nothing.
func POR(m *spec.Model, visible []int) verdict.AmpleFunc {
	p := newPOR(m, visible)
	if p == nil {
		return nil
	}
	return p.ample
}

type bitset []uint64

func newBitset(n int) bitset { return make(bitset, (n+63)/64) }

func (b bitset) add(i int) { b[i/64] |= 1 << (i % 64) }
func (b bitset) addAll(xs []int) {
	for _, x := range xs {
		b.add(x)
	}
}
func (b bitset) or(o bitset) {
	for i := range b {
		b[i] |= o[i]
	}
}
func (b bitset) meets(o bitset) bool {
	for i := range b {
		if b[i]&o[i] != 0 {
			return true
		}
	}
	return false
}

func newPOR(m *spec.Model, visible []int) *por {
	np, na, ns := len(m.Processes), len(m.Actions), len(m.Slots)
	if np < 2 || na < 2 {
		return nil
	}
	p := &por{
		lo: make([]int, np), hi: make([]int, np),
		okEnabled: make([]bool, na), okDisabled: make([]bool, na),
		proc: make([]int, na),
	}
	reads := make([]bitset, na)
	writes := make([]bitset, na)
	guard := make([]bitset, na)
	for a, act := range m.Actions {
		reads[a], writes[a], guard[a] = newBitset(ns), newBitset(ns), newBitset(ns)
		reads[a].addAll(act.Reads)
		writes[a].addAll(act.Writes)
		guard[a].addAll(ExprSlots(nil, act.Guard))
		p.proc[a] = act.Process
	}
	for i, pr := range m.Processes {
		if len(pr.Actions) == 0 {
			p.lo[i], p.hi[i] = 0, 0
			continue
		}
		p.lo[i], p.hi[i] = pr.Actions[0], pr.Actions[len(pr.Actions)-1]+1
		if p.hi[i]-p.lo[i] != len(pr.Actions) {
			return nil // not consecutive: outside the IR's contract
		}
	}
	vis := newBitset(ns)
	for _, s := range visible {
		if s >= 0 && s < ns {
			vis.add(s)
		}
	}
	any := false
	for i := range m.Processes {
		// What the other instances read and write.
		oR, oW := newBitset(ns), newBitset(ns)
		for a := range m.Actions {
			if p.proc[a] != i {
				oR.or(reads[a])
				oW.or(writes[a])
			}
		}
		qualifies := true
		for a := p.lo[i]; a < p.hi[i]; a++ {
			p.okEnabled[a] = !writes[a].meets(oR) && !writes[a].meets(oW) &&
				!reads[a].meets(oW) && !guard[a].meets(oW) && !writes[a].meets(vis)
			p.okDisabled[a] = !guard[a].meets(oW)
			if !p.okEnabled[a] && !p.okDisabled[a] {
				qualifies = false
			}
		}
		if qualifies && p.hi[i] > p.lo[i] && slices.Contains(p.okEnabled[p.lo[i]:p.hi[i]], true) {
			any = true
		}
	}
	if !any {
		return nil
	}
	return p
}

// ample implements [verdict.AmpleFunc].
func (p *por) ample(_ []int64, enabled []int) []int {
	for x := 0; x < len(enabled); {
		i := p.proc[enabled[x]]
		y := x
		for y < len(enabled) && p.proc[enabled[y]] == i {
			y++
		}
		// enabled[x:y] are the enabled actions of instance i.
		if y-x < len(enabled) && p.qualifies(i, enabled[x:y]) {
			return enabled[x:y]
		}
		x = y
	}
	return enabled
}

// qualifies reports whether the enabled actions en of instance i form an
// ample set: C1 for its enabled and disabled actions, C2 for the enabled.
func (p *por) qualifies(i int, en []int) bool {
	k := 0
	for a := p.lo[i]; a < p.hi[i]; a++ {
		if k < len(en) && en[k] == a {
			k++
			if !p.okEnabled[a] {
				return false
			}
		} else if !p.okDisabled[a] {
			return false
		}
	}
	return true
}

// ExprSlots appends to dst the state slots that e reads (every slot of a
// compound variable, and of a whole array indexed by a computed index)
// and returns the extended slice, unsorted and possibly with duplicates.
// e may be nil.
func ExprSlots(dst []int, e *spec.Expr) []int {
	spec.Walk(e, func(x *spec.Expr) bool {
		if x.Op != spec.OpVar {
			return true
		}
		for s := x.Slot; s < x.Slot+x.Type.Width; s++ {
			dst = append(dst, s)
		}
		return false
	})
	return dst
}

// Visible returns the slots, sorted and unique, that the safety search
// observes: those read by the invariants selected by only (every
// invariant when only is empty). The terminal predicate need not be
// visible for the safety search: it is evaluated only in states without a
// successor, and ample sets that satisfy C1 reach every reachable such
// state (see the package documentation). An engine that checks LTL
// properties adds the slots of their atoms, and of the terminal predicate
// when maximal finite paths matter, with [ExprSlots] before calling [POR].
func Visible(m *spec.Model, only []string) []int {
	var s []int
	for _, inv := range m.Invariants {
		if len(only) == 0 || slices.Contains(only, inv.Name) {
			s = ExprSlots(s, inv.Expr)
		}
	}
	slices.Sort(s)
	return slices.Compact(s)
}
