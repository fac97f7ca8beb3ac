package spec

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestWellTyped: each broken IR invariant is reported, the first one in
// pre-order when there are several, and a sound model gives "".
func TestWellTyped(t *testing.T) {
	at := func(line int, e *Expr) *Expr {
		e.Pos = Position{Filename: "x.wrap", Line: line, Col: 1}
		return e
	}
	ok := xop(OpAnd, tBool, xop(OpEq, tBool, &Expr{Op: OpVar, Type: tInt, Slot: 0}, xc(tInt, 1)), xl(tBool, 1))
	for _, tt := range []struct {
		name string
		inv  *Expr
		want string
	}{
		{"sound", ok, ""},
		{"nil-operand", xop(OpNot, tBool, xop(OpAnd, tBool, xc(tBool, 1), nil)), "nil expression"},
		{"no-type", xop(OpNot, tBool, at(3, &Expr{Op: OpConst})), "x.wrap:3:1: const has no valid type"},
		{"state-slot", at(4, &Expr{Op: OpVar, Type: tBool, Slot: 5}), "x.wrap:4:1: state slot 5 out of range"},
		{"frame-slot", xop(OpOr, tBool, xl(tBool, 1), at(5, xl(tBool, 2))), "x.wrap:5:1: frame slot 2 out of frame 2"},
		{"bad-let", at(6, &Expr{Op: OpLet, Type: tBool, Args: []*Expr{xc(tBool, 1)}, Binds: []int{0}}), "x.wrap:6:1: bad let"},
		{"first-of-two", xop(OpOr, tBool, at(7, xl(tBool, 9)), xop(OpNot, tBool, nil)), "x.wrap:7:1: frame slot 9 out of frame 2"},
		{"nil-after-fault-in-sibling", xop(OpOr, tBool, xop(OpNot, tBool, nil), at(8, xl(tBool, 9))), "nil expression"},
	} {
		m := &Model{Slots: make([]Slot, 1), Frame: 2, Invariants: []*Invariant{{Name: "i", Expr: tt.inv}}}
		if diff := cmp.Diff(tt.want, wellTyped(m)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
	m := &Model{Slots: make([]Slot, 1), Frame: 2, Init: []*Stmt{{Op: SAsk, Args: []*Expr{nil}}}}
	if diff := cmp.Diff("nil expression", wellTyped(m)); diff != "" {
		t.Errorf("nil statement argument (-want +got):\n%s", diff)
	}
}
