package machine

import (
	"testing"

	"github.com/wrapcheck/wrapcheck/spec"
)

// TestHoistedConjuncts checks the forall whose instances share a term
// (hoist.go): mutual exclusion over five processes is one conjunct per
// process, not one per pair, and its value in each of the 3^5 states is
// the definition's (at most one process in CS); a forall whose instances
// share a term but may fail (an index that can leave its array) is split
// into its instances as before, and fails as before.
func TestHoistedConjuncts(t *testing.T) {
	src := `spec H
type P = 0..4
type S = {IDLE, WAIT, CS}
var st: [P]S
var k: 0..3
var a: [P]0..2
action step { choose i in P { choose s in S { st[i] := s } } }
invariant Mutex: forall p in P: forall q in P: p != q implies not (st[p] == CS and st[q] == CS)
invariant Shifted: forall p in P: forall q in P: st[p] == CS implies a[q + k] == 0
`
	m, err := spec.ParseFile("h.wrap", []byte(src), spec.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := Compile(m)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(p.Conjuncts(0)); n != 5 {
		t.Errorf("Mutex: %d conjuncts, want 5 (one a process)", n)
	}
	if n := len(p.Conjuncts(1)); n != 25 {
		t.Errorf("Shifted: %d conjuncts, want 25 (its terms may fail: not hoisted)", n)
	}
	mach := p.NewMachine()
	slots := make([]int64, p.Slots())
	vec := make(State, p.Words())
	for code := range 243 {
		inCS := 0
		c := code
		for i := range 5 {
			slots[i] = int64(c % 3) // st[i]: IDLE, WAIT, CS
			if c%3 == 2 {
				inCS++
			}
			c /= 3
		}
		p.Pack(vec, slots)
		mach.UnpackCheck(vec)
		holds := true
		for j := range p.Conjuncts(0) {
			v, ok := mach.EvalConjunct(&p.Conjuncts(0)[j])
			if !ok {
				t.Fatalf("state %d: conjunct %d failed", code, j)
			}
			holds = holds && v != 0
		}
		if holds != (inCS <= 1) {
			t.Fatalf("state %d (%d in CS): Mutex %v", code, inCS, holds)
		}
	}
	// Shifted with k = 3 and st[0] = CS: a[q + 3] leaves the array at q = 2.
	clear(slots)
	slots[0] = 2
	slots[5] = 3 // k
	p.Pack(vec, slots)
	mach.UnpackCheck(vec)
	failed := false
	for j := range p.Conjuncts(1) {
		if _, ok := mach.EvalConjunct(&p.Conjuncts(1)[j]); !ok {
			failed = true
			mach.PredFailure()
		}
	}
	if !failed {
		t.Errorf("Shifted with k = 3: no conjunct failed")
	}
}
