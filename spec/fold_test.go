package spec

import (
	"errors"
	"math"
	"math/rand/v2"
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

// exprGen generates random scalar IR expressions over the frame slots
// 0 and 1 (integers) and 2 (a bool), binding further slots with lets and
// quantifiers (each once, as the front end allocates them).
type exprGen struct {
	r    *rand.Rand
	next int   // next free frame slot
	ints []int // the integer locals in scope
}

var genConsts = []int64{0, 1, 2, 3, -1, -7, 1 << 40, math.MaxInt64, math.MinInt64}

func (g *exprGen) intExpr(d int) *Expr {
	if d <= 0 || g.r.IntN(4) == 0 {
		if g.r.IntN(2) == 0 {
			return xc(tInt, genConsts[g.r.IntN(len(genConsts))])
		}
		return xl(tInt, g.ints[g.r.IntN(len(g.ints))])
	}
	switch g.r.IntN(10) {
	case 0:
		return xop(OpNeg, tInt, g.intExpr(d-1))
	case 1:
		return xop(OpCond, tInt, g.boolExpr(d-1), g.intExpr(d-1), g.intExpr(d-1))
	case 2:
		s := g.next
		g.next++
		body := g.boolExpr(d - 1)
		return xquant(OpCount, s, body)
	case 3:
		s := g.next
		g.next++
		v := g.intExpr(d - 1)
		g.ints = append(g.ints, s)
		body := g.intExpr(d - 1)
		g.ints = g.ints[:len(g.ints)-1]
		return xlet([]int{s}, v, body)
	case 4:
		return xop(OpCard, tInt, xc(tSet, g.r.Int64N(16)))
	}
	ops := []Op{OpAdd, OpSub, OpMul, OpDiv, OpMod}
	return xop(ops[g.r.IntN(len(ops))], tInt, g.intExpr(d-1), g.intExpr(d-1))
}

func (g *exprGen) boolExpr(d int) *Expr {
	if d <= 0 || g.r.IntN(5) == 0 {
		if g.r.IntN(2) == 0 {
			return xc(tBool, g.r.Int64N(2))
		}
		return xl(tBool, 2)
	}
	switch g.r.IntN(8) {
	case 0:
		return xop(OpNot, tBool, g.boolExpr(d-1))
	case 1, 2:
		ops := []Op{OpAnd, OpOr, OpImplies}
		return xop(ops[g.r.IntN(len(ops))], tBool, g.boolExpr(d-1), g.boolExpr(d-1))
	case 3:
		ops := []Op{OpForall, OpExists}
		s := g.next
		g.next++
		g.ints = append(g.ints, s)
		body := g.boolExpr(d - 1)
		g.ints = g.ints[:len(g.ints)-1]
		return xquant(ops[g.r.IntN(len(ops))], s, body)
	case 4:
		return xop(OpIn, tBool, g.intExpr(d-1), xc(tSet, g.r.Int64N(16)))
	}
	ops := []Op{OpEq, OpNe, OpLt, OpLe, OpGt, OpGe}
	return xop(ops[g.r.IntN(len(ops))], tBool, g.intExpr(d-1), g.intExpr(d-1))
}

// TestFoldDifferential compares, on random expressions and frames, the
// evaluation of e with that of Fold(e) and of Fold(Substitute(e, s, v))
// where slot s holds v: whenever e evaluates, the others evaluate to the
// same value. Fold is idempotent and leaves e as it was.
func TestFoldDifferential(t *testing.T) {
	r := rand.New(rand.NewPCG(14, 1))
	const frame = 64
	eval := func(e *Expr, vals []int64) (int64, error) {
		ev := &frameEval{frame: make([]int64, frame), steps: 1 << 16}
		copy(ev.frame, vals)
		return ev.scalar(e)
	}
	folded := 0
	for i := 0; i < 4000; i++ {
		g := &exprGen{r: r, next: 3, ints: []int{0, 1}}
		var e *Expr
		if i%2 == 0 {
			e = g.intExpr(5)
		} else {
			e = g.boolExpr(5)
		}
		vals := []int64{genConsts[r.IntN(len(genConsts))], r.Int64N(7) - 3, r.Int64N(2)}
		before := sexpr(e)
		want, err := eval(e, vals)
		f := Fold(e)
		if sexpr(e) != before {
			t.Fatalf("Fold modified %s", before)
		}
		if again := Fold(f); sexpr(again) != sexpr(f) {
			t.Fatalf("Fold is not idempotent on %s: %s, then %s", before, sexpr(f), sexpr(again))
		}
		slot := r.IntN(2)
		s, ok := Substitute(e, slot, xc(tInt, vals[slot]))
		if !ok {
			t.Fatalf("Substitute(%s, %d) failed", before, slot)
		}
		fs := Fold(s)
		if fs.Op == OpConst {
			folded++
		}
		if err != nil {
			if !errors.Is(err, errRuntime) && !errors.Is(err, errOverflow) {
				t.Fatalf("%s: %v", before, err)
			}
			continue
		}
		for _, x := range []struct {
			what string
			e    *Expr
		}{{"Fold", f}, {"Fold(Substitute)", fs}} {
			got, err := eval(x.e, vals)
			if err != nil || got != want {
				t.Errorf("%s with frame %v = %d; %s = %s: %d, %v", before, vals, want, x.what, sexpr(x.e), got, err)
			}
			if x.e.Op == OpConst && x.e.Big != nil {
				t.Errorf("%s with frame %v = %d; %s: a big constant %s", before, vals, want, x.what, x.e.Big)
			}
		}
	}
	if folded < 400 {
		t.Errorf("only %d of 4000 substituted expressions folded to a constant: the test is too weak", folded)
	}
}
