package ltl

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wrapcheck/wrapcheck/spec"
)

func TestSimplify(t *testing.T) {
	p, q := Atom(0), Atom(1)
	tests := []struct {
		name string
		f    *Formula
		want string
	}{
		{"and-true", And(p, True()), "p0"},
		{"and-false", And(p, False()), "false"},
		{"or-true", Or(p, True()), "true"},
		{"idempotent", And(p, p), "p0"},
		{"excluded-middle", Or(p, Not(p)), "true"},
		{"contradiction", And(Not(q), q), "false"},
		{"FF", Eventually(Eventually(p)), "F p0"},
		{"GG", Always(Always(p)), "G p0"},
		{"X-true", Next(True()), "true"},
		{"X-false", Next(False()), "false"},
		{"FGF", Eventually(Always(Eventually(p))), "G F p0"},
		{"GFG", Always(Eventually(Always(p))), "F G p0"},
		{"U-idem", Until(p, p), "p0"},
		{"not-U", Not(Until(p, q)), "!p0 R !p1"},
		{"not-G", Not(Always(p)), "F !p0"},
		{"not-X", Not(Next(p)), "X !p0"},
		{"XX-and", And(Next(p), Next(q)), "X (p0 && p1)"},
		{"GG-and", And(Always(p), Always(q)), "G (p0 && p1)"},
		{"FF-or", Or(Eventually(p), Eventually(q)), "F (p0 || p1)"},
		{"weak-until", WeakUntil(p, q), "p1 R (p0 || p1)"},
		{"leadsto", LeadsTo(p, q), "G (!p0 || F p1)"},
		{"implies", Implies(p, q), "!p0 || p1"},
		{"false-U", Until(False(), q), "p1"},
		{"false-R", Release(False(), q), "G p1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.f.String()
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestHasNext(t *testing.T) {
	p := Atom(0)
	tests := []struct {
		name string
		f    *Formula
		want bool
	}{
		{"atom", p, false},
		{"G", Always(p), false},
		{"X", Until(p, Next(p)), true},
		{"X-true", Next(True()), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, tt.f.HasNext()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestFromProperty converts a hand-built IR formula:
// forall i in 0..1: (pc[i] == 1 leadsto pc[i] == 2) and always ok.
func TestFromProperty(t *testing.T) {
	boolT := &spec.Type{Kind: spec.BoolKind, Lo: 0, Hi: 1, Width: 1}
	proc := &spec.Type{Kind: spec.RangeKind, Lo: 0, Hi: 1, Width: 1}
	pcT := &spec.Type{Kind: spec.RangeKind, Lo: 0, Hi: 3, Width: 1}
	arr := &spec.Type{Kind: spec.ArrayKind, Index: proc, Elem: pcT, Width: 2}
	pcAt := func() *spec.Expr {
		return &spec.Expr{Op: spec.OpIndex, Type: pcT, Args: []*spec.Expr{
			{Op: spec.OpVar, Type: arr, Slot: 0},
			{Op: spec.OpLocal, Type: proc, Slot: 0},
		}}
	}
	eq := func(a *spec.Expr, v int64) *spec.Expr {
		return &spec.Expr{Op: spec.OpEq, Type: boolT, Args: []*spec.Expr{a, {Op: spec.OpConst, Type: pcT, Val: v}}}
	}
	lt := &spec.Expr{Op: spec.OpLeadsTo, Type: boolT, Args: []*spec.Expr{eq(pcAt(), 1), eq(pcAt(), 2)}}
	all := &spec.Expr{Op: spec.OpForall, Type: boolT, Slot: 0, Dom: proc, Args: []*spec.Expr{lt}}
	ok := &spec.Expr{Op: spec.OpVar, Type: boolT, Slot: 2}
	g := &spec.Expr{Op: spec.OpAlways, Type: boolT, Args: []*spec.Expr{ok}}
	root := &spec.Expr{Op: spec.OpAnd, Type: boolT, Args: []*spec.Expr{all, g}}
	f, atoms, err := FromProperty(&spec.Property{Name: "P", Formula: root})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff("G ((!p0 || F p1) && (!p2 || F p3) && p4)", f.String()); diff != "" {
		t.Errorf("formula (-want +got):\n%s", diff)
	}
	if len(atoms) != 5 {
		t.Fatalf("want 5 atoms, got %d", len(atoms))
	}
	// Atom 2 is pc[1] == 1: the local was replaced by the constant 1.
	idx := atoms[2].Args[0].Args[1]
	if idx.Op != spec.OpConst || idx.Val != 1 {
		t.Errorf("atom 2 index: got op %v val %d, want const 1", idx.Op, idx.Val)
	}
	// Bad: a temporal operand of an arithmetic operator.
	bad := &spec.Expr{Op: spec.OpLt, Type: boolT, Args: []*spec.Expr{g, g}}
	if _, _, err := FromProperty(&spec.Property{Name: "Bad", Formula: bad}); err == nil {
		t.Error("want an error for a temporal operand of <")
	}
}
