package verdict

import "cmp"

// OrdinalBits is the width of the ordinal in the one-word form of a
// [Key] ([Key.Word]); the parent's position takes the other 40 bits.
const OrdinalBits = 24

// MaxOrdinal is the largest ordinal a [Key] holds: the successors and
// failing branches of a state past it share it (see [Ordinal]).
const MaxOrdinal = 1<<OrdinalBits - 1

// Key is the tie-break key of a successor, or of a failing branch, in a
// level of the breadth-first search: Pos is the position of its parent
// in the level being expanded (the frontier order) and Ord its ordinal
// among the parent's successors and failing branches, in (action,
// branch) order, the ample set's actions first ([Ordinal]).
//
// Keys decide which violation a search reports, so that every worker
// count and every engine (checker's search, the distributed search of
// package cluster) reports the same one: the first level in which one is
// found; in it, a deadlock of the level being expanded first (the
// smallest position: its trace is a step shorter), else the failure or
// bad new state with the smallest key ([Key.Compare]). A state reached
// more than once in a level keeps its smallest key, and the next level
// lists the new states in key order.
type Key struct {
	Pos uint64 // the position of the parent in the level expanded
	Ord uint64 // the ordinal among the parent's successors and failing branches
}

// Ordinal returns the ordinal of a key for the successor or failing
// branch numbered n (from 0) of its parent: n, capped at [MaxOrdinal].
func Ordinal(n int) uint64 { return uint64(min(n, MaxOrdinal)) }

// Compare returns -1, 0 or +1 as k comes before, with or after l: by
// position, then by ordinal. Of two violations found in one level, the
// search reports the one whose key comes first.
func (k Key) Compare(l Key) int {
	if c := cmp.Compare(k.Pos, l.Pos); c != 0 {
		return c
	}
	return cmp.Compare(k.Ord, l.Ord)
}

// Less reports whether k comes before l.
func (k Key) Less(l Key) bool { return k.Compare(l) < 0 }

// Word returns k in one word, the position above [OrdinalBits] bits of
// ordinal: integers in the order of [Key.Compare] while the position is
// below 2⁴⁰, the form checker's search keeps in a state's link.
func (k Key) Word() uint64 { return k.Pos<<OrdinalBits | k.Ord }
