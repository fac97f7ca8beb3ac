package checker

import (
	"cmp"
	"slices"
	"sync/atomic"

	"github.com/wrapcheck/wrapcheck/machine"
	"github.com/wrapcheck/wrapcheck/spec"
)

// cand is a violation candidate found while expanding a level.
type cand struct {
	kind  Kind
	key   uint64 // tie-break key: (frontier position << ordBits) | ordinal
	state uint32 // invariant: the bad state; error, deadlock: the expanded state
	inv   int    // invariant index
	err   *machine.ExecError
	// atState: the trace ends in state (invariant, deadlock); otherwise
	// it ends with the failing action taken in state (or in init).
	atState bool
	init    bool // a failure of the init block
}

// checkID identifies a check for Options.Continue, which reports the
// first violation of each: an invariant (violated, or failing to
// evaluate), deadlock freedom, or a failing statement (an assertion or a
// runtime error of an action or of init) by its position.
type checkID struct {
	kind Kind
	inv  int // invariant index; -1 for the others
	pos  spec.Position
}

// continuation is the explorer's part for Options.Continue (its fields
// are empty otherwise, doneInv and doneInvErr all false): the checks
// found violated so far (in the order of violations), and per invariant
// whether it was found violated (doneInv) or failing to evaluate
// (doneInvErr) in an earlier level, so that later levels do not collect
// candidates for it. Written between levels only (record), read by the
// workers during a level.
type continuation struct {
	found      []checkID
	violations []*Violation
	doneInv    []bool
	doneInvErr []bool
}

// id returns the check c violates.
func (c *cand) id() checkID {
	switch {
	case c.kind == Deadlock:
		return checkID{kind: Deadlock, inv: -1}
	case c.atState:
		return checkID{kind: c.kind, inv: c.inv}
	}
	return checkID{kind: c.kind, inv: -1, pos: c.err.Pos}
}

// candidates returns, after a level, the violations found in it in the
// order the search picks them: a deadlock in the level (shortest, the
// smallest frontier position), then the failures and bad successors by
// their (parent position, ordinal) key. It clears the workers' lists.
func (e *explorer) candidates() []cand {
	dl := -1
	var cs []cand
	for _, w := range e.workers {
		if w.deadlock >= 0 && (dl < 0 || w.deadlock < dl) {
			dl = w.deadlock
		}
		w.deadlock = -1
		cs = append(cs, w.errs...)
		for i := range w.bad {
			c := w.bad[i]
			c.key = atomic.LoadUint64(e.store.Link(c.state))
			cs = append(cs, c)
		}
		w.errs = w.errs[:0]
		w.bad = w.bad[:0]
	}
	slices.SortStableFunc(cs, func(a, b cand) int { return cmp.Compare(a.key, b.key) })
	if dl >= 0 {
		cs = slices.Insert(cs, 0, cand{kind: Deadlock, key: uint64(dl) << ordBits, state: e.frontierIdx(dl), atState: true})
	}
	return cs
}

// record adds to e.violations, in the order of cs, the violation of each
// check of cs not found before (the first candidate of each), and returns
// the first violation it added (nil: none).
func (e *explorer) record(cs []cand) *Violation {
	var first *Violation
	for i := range cs {
		c := &cs[i]
		id := c.id()
		if slices.Contains(e.found, id) {
			continue
		}
		e.found = append(e.found, id)
		if c.atState && c.kind != Deadlock {
			if c.err != nil {
				e.doneInvErr[c.inv] = true
			} else {
				e.doneInv[c.inv] = true
			}
		}
		v := e.violationOf(*c)
		if v == nil {
			continue // hash compaction's spill failed: the search ends with the error
		}
		e.violations = append(e.violations, v)
		if first == nil {
			first = v
		}
	}
	return first
}
