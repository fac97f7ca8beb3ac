package machine

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/wrapcheck/wrapcheck/spec"
)

// flatSpec's variables: ordered ranges with negative values, an enum,
// booleans, two sets (== and != only) and the widest range the language
// allows.
const flatSpec = `spec F
var a: -2..2
var b: -2..2
var e: {R, G, B}
var f: bool
var g: bool
var s: set of 0..1
var t: set of 0..1
var w: -1152921504606846976..1152921504606846976
action step { a := a }
`

// flatAtoms are the atoms of TestFlatBooleans's formulas; the last one
// is not flatOr's (a membership).
var flatAtoms = []string{
	"a < b", "a <= 1", "-1 < a", "b >= 0", "a == b", "a != -2", "2 > b", "b > a", "a >= b", "-2 >= b",
	"e == G", "e != R", "B == e", "f", "not g", "f == g", "f != g", "s == t", "s != t",
	"w > 0", "w == 1152921504606846976", "w <= -1152921504606846976", "w < -1152921504606846975", "w >= a", "b < w",
	"0 in s",
}

// flatValues are the values each slot of flatSpec takes in the states
// TestFlatBooleans enumerates (w at its bounds and around 0).
var flatValues = [][]int64{
	{-2, -1, 0, 1, 2}, {-2, -1, 0, 1, 2}, {0, 1, 2}, {0, 1}, {0, 1}, {0, 1, 2, 3}, {0, 1, 2, 3},
	{-1152921504606846976, -1152921504606846975, -1, 0, 1, 1152921504606846976},
}

// TestFlatBooleans compares, in every one of flatSpec's 28,800 states of
// flatValues, the value of random and, or, implies and not formulas over
// flatAtoms as the machine compiles them (a flat closure where flatBool
// applies, the closures of its subformulas elsewhere) with a reference
// evaluation of the formula, and checks that the flat closures are made
// where they should be: the pure conjunctions and disjunctions of atoms
// of flatOr, and none with a membership.
func TestFlatBooleans(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	var formula func(depth int) string
	formula = func(depth int) string {
		if depth == 0 || r.IntN(4) == 0 {
			return flatAtoms[r.IntN(len(flatAtoms))]
		}
		x, y := formula(depth-1), formula(depth-1)
		switch r.IntN(4) {
		case 0:
			return "(" + x + " and " + y + ")"
		case 1:
			return "(" + x + " or " + y + ")"
		case 2:
			return "(" + x + " implies " + y + ")"
		}
		return "not (" + x + " and " + y + ")"
	}
	var src strings.Builder
	src.WriteString(flatSpec)
	var forms []string
	for range 200 {
		forms = append(forms, formula(3))
	}
	// Pure shapes, flat unless they hold the membership.
	for range 100 {
		n := 2 + r.IntN(4)
		var xs []string
		for range n {
			xs = append(xs, flatAtoms[r.IntN(len(flatAtoms))])
		}
		forms = append(forms, strings.Join(xs, []string{" and ", " or "}[r.IntN(2)]))
	}
	for i, f := range forms {
		src.WriteString("invariant I" + string(rune('A'+i/26)) + string(rune('a'+i%26)) + ": " + f + "\n")
	}
	m, err := spec.ParseFile("f.wrap", []byte(src.String()), spec.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := Compile(m)
	if err != nil {
		t.Fatal(err)
	}
	c := &compiler{p: p}
	preds := make([]*Pred, len(m.Invariants))
	flat := 0
	for i, inv := range m.Invariants {
		if preds[i], err = p.CompileExpr(inv.Expr); err != nil {
			t.Fatal(err)
		}
		e := spec.Fold(inv.Expr)
		_, ok := c.flatBool(e, frameCtx{})
		if want := i >= 200 && !strings.Contains(forms[i], " in "); i >= 200 && ok != want {
			t.Errorf("%s: flat %v, want %v", forms[i], ok, want)
		}
		if ok {
			flat++
		}
	}
	if flat < 60 {
		t.Errorf("%d of %d formulas flat: too few to test anything", flat, len(forms))
	}
	mach := p.NewMachine()
	slots := make([]int64, p.Slots())
	vec := make(State, p.Words())
	var each func(k int)
	states := 0
	each = func(k int) {
		if k < len(flatValues) {
			for _, v := range flatValues[k] {
				slots[k] = v
				each(k + 1)
			}
			return
		}
		states++
		p.Pack(vec, slots)
		for i, inv := range m.Invariants {
			got, err := mach.Eval(preds[i], vec)
			if err != nil {
				t.Fatalf("%s: %v", forms[i], err)
			}
			if want := refBool(t, inv.Expr, slots); got != want {
				t.Fatalf("%s at %v: %d, want %d", forms[i], slots, got, want)
			}
		}
	}
	each(0)
	if states != 28800 {
		t.Fatalf("%d states evaluated", states)
	}
}

// refBool evaluates e, a formula of TestFlatBooleans over the state
// variables at slots, from its definition.
func refBool(t *testing.T, e *spec.Expr, slots []int64) int64 {
	b := func(x bool) int64 {
		if x {
			return 1
		}
		return 0
	}
	val := func(x *spec.Expr) int64 {
		switch x.Op {
		case spec.OpConst:
			return x.Val
		case spec.OpVar:
			return slots[x.Slot]
		}
		return refBool(t, x, slots)
	}
	switch e.Op {
	case spec.OpConst, spec.OpVar:
		return val(e)
	case spec.OpNot:
		return 1 - refBool(t, e.Args[0], slots)
	case spec.OpAnd:
		return b(refBool(t, e.Args[0], slots) != 0 && refBool(t, e.Args[1], slots) != 0)
	case spec.OpOr:
		return b(refBool(t, e.Args[0], slots) != 0 || refBool(t, e.Args[1], slots) != 0)
	case spec.OpImplies:
		return b(refBool(t, e.Args[0], slots) == 0 || refBool(t, e.Args[1], slots) != 0)
	case spec.OpIn:
		return (val(e.Args[1]) >> uint(val(e.Args[0]))) & 1
	}
	x, y := val(e.Args[0]), val(e.Args[1])
	switch e.Op {
	case spec.OpEq:
		return b(x == y)
	case spec.OpNe:
		return b(x != y)
	case spec.OpLt:
		return b(x < y)
	case spec.OpLe:
		return b(x <= y)
	case spec.OpGt:
		return b(x > y)
	case spec.OpGe:
		return b(x >= y)
	}
	t.Fatalf("refBool: op %s", e.Op)
	return 0
}
