package spec

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestWalk: pre-order, left to right; false skips the expressions inside
// a node, not its siblings; nil arguments are not visited; Contains stops
// at the first match.
func TestWalk(t *testing.T) {
	c := func(v int64) *Expr { return &Expr{Op: OpConst, Val: v} }
	// (1 + (2 * 3)) == not(4), with a nil argument under the not
	e := &Expr{Op: OpEq, Args: []*Expr{
		{Op: OpAdd, Args: []*Expr{c(1), {Op: OpMul, Args: []*Expr{c(2), c(3)}}}},
		{Op: OpNot, Args: []*Expr{c(4), nil}},
	}}
	name := func(x *Expr) string {
		if x.Op == OpConst {
			return string(rune('0' + x.Val))
		}
		return x.Op.String()
	}
	for _, tt := range []struct {
		name string
		skip Op // Walk does not enter nodes of this operator
		want []string
	}{
		{"all", OpVar, []string{"==", "+", "1", "*", "2", "3", "not", "4"}},
		{"skip-mul", OpMul, []string{"==", "+", "1", "*", "not", "4"}},
		{"skip-root", OpEq, []string{"=="}},
	} {
		var got []string
		Walk(e, func(x *Expr) bool {
			got = append(got, name(x))
			return x.Op != tt.skip
		})
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
	var seen []string
	found := Contains(e, func(x *Expr) bool {
		seen = append(seen, name(x))
		return x.Op == OpConst && x.Val == 2
	})
	if diff := cmp.Diff([]string{"==", "+", "1", "*", "2"}, seen); !found || diff != "" {
		t.Errorf("Contains found %v, visited (-want +got):\n%s", found, diff)
	}
	if Contains(e, func(x *Expr) bool { return x.Op == OpVar }) {
		t.Error("Contains: a var found in an expression without one")
	}
	if Contains(nil, func(*Expr) bool { return true }) {
		t.Error("Contains(nil): true")
	}
}
