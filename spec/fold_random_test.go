package spec_test

import (
	"math/rand/v2"
	"testing"

	"github.com/wrapcheck/wrapcheck/internal/gen"
	"github.com/wrapcheck/wrapcheck/spec"
)

// TestFoldDifferential compares, on random expressions and frames, the
// evaluation of e with that of Fold(e) and of Fold(Substitute(e, s, v))
// where slot s holds v: whenever e evaluates, the others evaluate to the
// same value. Fold is idempotent and leaves e as it was.
func TestFoldDifferential(t *testing.T) {
	r := rand.New(rand.NewPCG(14, 1))
	eval := func(e *spec.Expr, vals []int64) (int64, error) {
		return spec.EvalFrame(e, vals, 64, 1<<16)
	}
	sexpr := spec.SExpr
	folded := 0
	for i := 0; i < 4000; i++ {
		kind := spec.IntKind
		if i%2 == 1 {
			kind = spec.BoolKind
		}
		e := gen.GenerateIRExpr(r, kind, 5)
		vals := []int64{gen.IRConstant(r), r.Int64N(7) - 3, r.Int64N(2)}
		before := sexpr(e)
		want, err := eval(e, vals)
		f := spec.Fold(e)
		if sexpr(e) != before {
			t.Fatalf("Fold modified %s", before)
		}
		if again := spec.Fold(f); sexpr(again) != sexpr(f) {
			t.Fatalf("Fold is not idempotent on %s: %s, then %s", before, sexpr(f), sexpr(again))
		}
		slot := r.IntN(2)
		s, ok := spec.Substitute(e, slot, gen.Num(vals[slot]))
		if !ok {
			t.Fatalf("Substitute(%s, %d) failed", before, slot)
		}
		fs := spec.Fold(s)
		if fs.Op == spec.OpConst {
			folded++
		}
		if err != nil {
			if !spec.IsEvalFailure(err) {
				t.Fatalf("%s: %v", before, err)
			}
			continue
		}
		for _, x := range []struct {
			what string
			e    *spec.Expr
		}{{"Fold", f}, {"Fold(Substitute)", fs}} {
			got, err := eval(x.e, vals)
			if err != nil || got != want {
				t.Errorf("%s with frame %v = %d; %s = %s: %d, %v", before, vals, want, x.what, sexpr(x.e), got, err)
			}
			if x.e.Op == spec.OpConst && x.e.Big != nil {
				t.Errorf("%s with frame %v = %d; %s: a big constant %s", before, vals, want, x.what, x.e.Big)
			}
		}
	}
	if folded < 400 {
		t.Errorf("only %d of 4000 substituted expressions folded to a constant: the test is too weak", folded)
	}
}
