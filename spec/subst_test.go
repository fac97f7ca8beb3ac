package spec

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Hand-built types and expressions for the IR algorithms' tests.
var (
	tInt  = &Type{Kind: IntKind, Width: 1}
	tBool = &Type{Kind: BoolKind, Lo: 0, Hi: 1, Width: 1}
	tR03  = &Type{Kind: RangeKind, Lo: 0, Hi: 3, Width: 1}
	tSet  = &Type{Kind: SetKind, Elem: tR03, Width: 1}
	tPair = &Type{Kind: RecordKind, Width: 2, Fields: []*Field{{Name: "a", Type: tInt}, {Name: "b", Type: tInt, Offset: 1}}}
)

func xc(t *Type, v int64) *Expr  { return &Expr{Op: OpConst, Type: t, Val: v} }
func xl(t *Type, slot int) *Expr { return &Expr{Op: OpLocal, Type: t, Slot: slot} }
func xop(op Op, t *Type, args ...*Expr) *Expr {
	return &Expr{Op: op, Type: t, Args: args}
}
func xquant(op Op, slot int, body *Expr) *Expr {
	t := tBool
	if op == OpCount {
		t = tInt
	}
	return &Expr{Op: op, Type: t, Slot: slot, Dom: tR03, Args: []*Expr{body}}
}
func xlet(binds []int, args ...*Expr) *Expr {
	return &Expr{Op: OpLet, Type: args[len(args)-1].Type, Binds: binds, Args: args}
}

// TestSubstitute: free reads are replaced, reads under a binder of the
// slot are not, a let's binding hides the slot from what follows it but
// not from its own value, and a compound local covering the slot cannot
// be substituted.
func TestSubstitute(t *testing.T) {
	seven := xc(tInt, 7)
	for _, tt := range []struct {
		name string
		e    *Expr
		want string // "" when ok is false
	}{
		{"local", xl(tInt, 0), "7"},
		{"other-local", xl(tInt, 1), "@1"},
		{"nested", xop(OpAdd, tInt, xl(tInt, 0), xop(OpMul, tInt, xl(tInt, 0), xl(tInt, 1))), "(+ 7 (* 7 @1))"},
		{"not-folded", xop(OpAdd, tInt, xl(tInt, 0), xc(tInt, 1)), "(+ 7 1)"},
		{"quantifier-rebinds", xop(OpAnd, tBool, xquant(OpForall, 0, xop(OpEq, tBool, xl(tInt, 0), xc(tInt, 1))), xop(OpEq, tBool, xl(tInt, 0), xc(tInt, 2))),
			"(and (forall @0:0..3 (== @0 1)) (== 7 2))"},
		{"quantifier-other", xquant(OpExists, 2, xop(OpEq, tBool, xl(tInt, 0), xl(tR03, 2))), "(exists @2:0..3 (== 7 @2))"},
		{"let-hides", xlet([]int{3, 0, 4}, xl(tInt, 0), xl(tInt, 0), xl(tInt, 0), xop(OpAdd, tInt, xl(tInt, 0), xl(tInt, 3))),
			"(let [3 0 4] 7 7 @0 (+ @0 @3))"},
		{"let-compound-binding-hides", xlet([]int{0}, &Expr{Op: OpRecordLit, Type: tPair, Args: []*Expr{xc(tInt, 1), xc(tInt, 2)}}, xl(tInt, 1)),
			"(let [0] (recordlit 1 2) @1)"},
		{"compound-local", &Expr{Op: OpField, Type: tInt, Val: 1, Args: []*Expr{xl(tPair, 0)}}, ""},
		{"compound-local-covering", &Expr{Op: OpField, Type: tInt, Val: 0, Args: []*Expr{xl(tPair, 1)}}, ""},
		{"compound-local-elsewhere", &Expr{Op: OpField, Type: tInt, Args: []*Expr{xl(tPair, 1)}}, "(field +0 @1)"},
	} {
		slot := 0
		if tt.name == "compound-local-covering" {
			slot = 2
		}
		before := sexpr(tt.e)
		got, ok := Substitute(tt.e, slot, seven)
		if sexpr(tt.e) != before {
			t.Errorf("%s: Substitute modified its operand: %s, was %s", tt.name, sexpr(tt.e), before)
		}
		if tt.want == "" {
			if ok {
				t.Errorf("%s: ok, got %s, want a failure", tt.name, sexpr(got))
			}
			continue
		}
		if !ok {
			t.Errorf("%s: failed, want %s", tt.name, tt.want)
			continue
		}
		if diff := cmp.Diff(tt.want, sexpr(got)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
	// What does not read the slot is shared, not copied.
	keep := xop(OpMul, tInt, xl(tInt, 1), xl(tInt, 2))
	e := xop(OpAdd, tInt, xl(tInt, 0), keep)
	got, _ := Substitute(e, 0, seven)
	if got.Args[1] != keep {
		t.Error("Substitute copied a subexpression that does not read the slot")
	}
	if got, _ := Substitute(keep, 0, seven); got != keep {
		t.Error("Substitute copied an expression that does not read the slot")
	}
	if got, ok := Substitute(nil, 0, seven); got != nil || !ok {
		t.Errorf("Substitute(nil) = %v, %v; want nil, true", got, ok)
	}
}
