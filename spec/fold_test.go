package spec

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestFold: each folding rule, what must stay unfolded, and exact
// integers past int64.
func TestFold(t *testing.T) {
	x, y := xl(tInt, 0), xl(tBool, 1)
	for _, tt := range []struct {
		name string
		e    *Expr
		want string
	}{
		{"add", xop(OpAdd, tInt, xc(tInt, 1), xop(OpMul, tInt, xc(tInt, 2), xc(tInt, 3))), "7"},
		{"partial", xop(OpAdd, tInt, x, xop(OpMul, tInt, xc(tInt, 2), xc(tInt, 3))), "(+ @0 6)"},
		{"and-false", xop(OpAnd, tBool, xc(tBool, 0), y), "0"},
		{"and-true", xop(OpAnd, tBool, xc(tBool, 1), y), "@1"},
		{"and-right-const", xop(OpAnd, tBool, y, xc(tBool, 0)), "(and @1 0)"},
		{"or-true", xop(OpOr, tBool, xop(OpLt, tBool, xc(tInt, 1), xc(tInt, 2)), y), "1"},
		{"or-false", xop(OpOr, tBool, xc(tBool, 0), y), "@1"},
		{"implies-false", xop(OpImplies, tBool, xc(tBool, 0), y), "1"},
		{"implies-true", xop(OpImplies, tBool, xc(tBool, 1), y), "@1"},
		{"not", xop(OpNot, tBool, xop(OpEq, tBool, xc(tInt, 2), xc(tInt, 2))), "0"},
		{"cond", xop(OpCond, tInt, xop(OpGe, tBool, xc(tInt, 3), xc(tInt, 2)), x, xc(tInt, 5)), "@0"},
		{"cond-const", xop(OpCond, tInt, xc(tBool, 0), x, xc(tInt, 5)), "5"},
		{"div-by-zero", xop(OpDiv, tInt, xc(tInt, 1), xc(tInt, 0)), "(/ 1 0)"},
		{"mod-by-zero", xop(OpMod, tInt, xc(tInt, 1), xop(OpSub, tInt, xc(tInt, 2), xc(tInt, 2))), "(% 1 0)"},
		{"mod-minus-one", xop(OpMod, tInt, xc(tInt, math.MinInt64), xc(tInt, -1)), "0"},
		{"in", xop(OpIn, tBool, xc(tR03, 2), xc(tSet, 0b0100)), "1"},
		{"in-outside", xop(OpIn, tBool, xc(tInt, 9), xc(tSet, 0b1111)), "0"},
		{"card", xop(OpCard, tInt, xop(OpUnion, tSet, xc(tSet, 0b0011), xc(tSet, 0b0110))), "3"},
		{"subset", xop(OpSubset, tBool, xc(tSet, 0b0010), xc(tSet, 0b0110)), "1"},
		{"let-const", xlet([]int{2}, xc(tInt, 4), xop(OpAdd, tInt, xl(tInt, 2), x)), "(+ 4 @0)"},
		{"let-folds-to-const", xlet([]int{2, 3}, xop(OpSub, tInt, xc(tInt, 5), xc(tInt, 1)), xc(tInt, 1), xop(OpMul, tInt, xl(tInt, 2), xl(tInt, 3))), "4"},
		{"let-not-const", xlet([]int{2}, x, xop(OpAdd, tInt, xl(tInt, 2), xc(tInt, 1))), "(let [2] @0 (+ @2 1))"},
		{"quantifier-kept", xquant(OpForall, 2, xop(OpLe, tBool, xl(tR03, 2), xop(OpAdd, tInt, xc(tInt, 1), xc(tInt, 2)))), "(forall @2:0..3 (<= @2 3))"},
		{"nil", nil, "nil"},
	} {
		before := sexpr(tt.e)
		got := Fold(tt.e)
		if diff := cmp.Diff(tt.want, sexpr(got)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
		if sexpr(tt.e) != before {
			t.Errorf("%s: Fold modified its operand: %s, was %s", tt.name, sexpr(tt.e), before)
		}
	}
	unchanged := xop(OpAdd, tInt, x, xop(OpMul, tInt, x, xc(tInt, 2)))
	if Fold(unchanged) != unchanged {
		t.Error("Fold copied an expression with nothing to fold")
	}
	for _, tt := range []struct {
		name string
		e    *Expr
		want string
	}{
		{"add", xop(OpAdd, tInt, xc(tInt, math.MaxInt64), xc(tInt, 1)), "9223372036854775808"},
		{"neg", xop(OpNeg, tInt, xc(tInt, math.MinInt64)), "9223372036854775808"},
		{"div", xop(OpDiv, tInt, xc(tInt, math.MinInt64), xc(tInt, -1)), "9223372036854775808"},
		{"back-in-range", xop(OpSub, tInt, xop(OpMul, tInt, xc(tInt, math.MaxInt64), xc(tInt, 4)), xop(OpMul, tInt, xc(tInt, math.MaxInt64), xc(tInt, 3))), "9223372036854775807"},
		{"compare", xop(OpGt, tBool, xop(OpAdd, tInt, xc(tInt, math.MaxInt64), xc(tInt, 1)), xc(tInt, math.MaxInt64)), "1"},
	} {
		got := Fold(tt.e)
		if got.Op != OpConst {
			t.Errorf("exact %s: %s, want a constant", tt.name, sexpr(got))
			continue
		}
		if s := got.BigVal().String(); s != tt.want {
			t.Errorf("exact %s: %s, want %s", tt.name, s, tt.want)
		}
		if fits := got.BigVal().IsInt64(); fits != (got.Big == nil) {
			t.Errorf("exact %s: Big set %v for a value that fits %v", tt.name, got.Big != nil, fits)
		}
	}
}
