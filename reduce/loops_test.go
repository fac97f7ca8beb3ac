package reduce

import (
	"context"
	"testing"

	"github.com/wrapcheck/wrapcheck/checker"
	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/verdict"
)

// TestSymmetryByHand checks state and transition counts worked out by
// hand, without and with symmetry reduction, on specs where this round's
// forms meet a symmetric type, and the unreduced counts against the
// reference search (internal/oracle).
func TestSymmetryByHand(t *testing.T) {
	tests := []struct {
		name                string
		src                 string
		states, transitions int64 // without symmetry
		orbits, orbitTrans  int64 // with symmetry
	}{
		{
			// q holds distinct identities: [], [Id1], [Id2], [Id1, Id2],
			// [Id2, Id1]: 5 states; 2 pushes from [], a push and a pop
			// from each one-element q, a pop from each two-element q: 8.
			// Symmetry folds [Id1] with [Id2] and [Id1, Id2] with
			// [Id2, Id1]: 3 orbits, 5 transitions from their
			// representatives. Before the canonical form ignored the
			// slots past the length, the zero identity there told Id1
			// apart.
			name: "queue",
			src: `spec SeqSym
type Id = symmetric 2
var q: seq[2] of Id
var held: set of Id
action push when len(q) < 2 {
  choose i in Id where not (i in held) {
    q := append(q, i)
    held := held union {i}
  }
}
action pop when len(q) > 0 {
  held := held minus {head(q)}
  q := tail(q)
}
`,
			states: 5, transitions: 8, orbits: 3, orbitTrans: 5,
		},
		{
			// scan's for keeps the first element of q: its effect
			// depends on the order of q, which a permutation keeps (it
			// moves the identities, not the positions). found = false
			// only with first = Id1 (its start): 5 states, one per q;
			// found = true with first either identity: 10. Per q, push
			// + pop + scan make 2 ([]) + 3 + 3 (one element) + 2 + 2
			// (two) = 12 transitions, for each of the 3 (first, found)
			// pairs: 36. With symmetry: the found = false states are 5
			// orbits (first = Id1 tells them apart), the found = true
			// ones pair up (q, first) with their images: 5 orbits; 12 +
			// 12 transitions.
			name: "scan",
			src: `spec ScanQ
type Id = symmetric 2
var q: seq[2] of Id
var first: Id
var found: bool
action push when len(q) < 2 { choose i in Id where not (i in q) { q := append(q, i) } }
action pop when len(q) > 0 { q := tail(q) }
action scan when len(q) > 0 {
  found := false
  for x in q { if not found { first := x
    found := true } }
}
`,
			states: 15, transitions: 36, orbits: 10, orbitTrans: 24,
		},
		{
			// a start value and a reset by literals: [true, false] names
			// the identities (a start value may), [false, false] gives
			// them one value (anywhere). All 4 values of g are reached,
			// each with 2 flips and a reset: 12 transitions; the orbits
			// are {FF}, {TT}, {TF, FT}: 3, with 9 transitions.
			name: "literal",
			src: `spec SymLit
type Run = symmetric 2
var g: [Run]bool = [true, false]
action flip { choose r in Run { g[r] := not g[r] } }
action reset { g := [false, false] }
`,
			states: 4, transitions: 12, orbits: 3, orbitTrans: 9,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := spec.ParseFile(tt.name+".wrap", []byte(tt.src), spec.Options{})
			if err != nil {
				t.Fatal(err)
			}
			ref, ok := reachable(t, m, 1000, nil)
			if !ok || int64(len(ref)) != tt.states {
				t.Errorf("reference search: %d states (complete %v), want %d", len(ref), ok, tt.states)
			}
			for _, c := range []struct {
				name   string
				opts   checker.Options
				states int64
				trans  int64
			}{
				{"unreduced", checker.Options{}, tt.states, tt.transitions},
				{"symmetry", checker.Options{Canon: symmetry(t, m)}, tt.orbits, tt.orbitTrans},
			} {
				r, err := checker.Run(context.Background(), m, c.opts)
				if err != nil {
					t.Fatal(err)
				}
				if r.Verdict != verdict.Holds || r.Stats.States != c.states || r.Stats.Transitions != c.trans {
					t.Errorf("%s: %s, %d states, %d transitions; want holds, %d, %d", c.name, r.Verdict, r.Stats.States, r.Stats.Transitions, c.states, c.trans)
				}
			}
			checkOrbits(t, m, 1000)
		})
	}
}
