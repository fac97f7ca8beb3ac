package gen

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"strings"

	"github.com/wrapcheck/wrapcheck/spec"
)

// The Exact shape: random integer expressions over variables near the
// int64 bounds and extreme constants (past int64 too), with the outcome a
// direct math/big evaluation gives them.

// exactVar is a variable of the random specs: its domain and value.
type exactVar struct {
	name   string
	lo, hi string
	val    *big.Int
}

// exactGen builds random integer expressions and their exact values.
type exactGen struct {
	r    *rand.Rand
	vars []exactVar
	// konst: use constants (const declarations) for the variables, so
	// that the front end folds the whole expression.
	konst bool
	// usedVar: the last expression reads a variable.
	usedVar bool
}

// exactConsts returns the extreme constants of the Exact shape.
func exactConsts() []string {
	return []string{
		"0", "1", "2", "3", "7", "-1", "3000000000", "4000000000", "4294967296",
		"9223372036854775807", "9223372036854775808", "4611686018427387904",
		"18446744073709551616", "123456789012345678901234567890",
		"170141183460469231731687303715884105728",
	}
}

func bigOf(s string) *big.Int {
	v, ok := new(big.Int).SetString(s, 10)
	if !ok {
		panic("bad constant " + s)
	}
	return v
}

// expr returns the source of a random integer expression and its value
// (nil when it divides by zero, in left-to-right evaluation order).
func (g *exactGen) expr(depth int) (string, *big.Int) {
	if depth == 0 || g.r.IntN(4) == 0 {
		if g.r.IntN(2) == 0 {
			g.usedVar = g.usedVar || !g.konst
			v := g.vars[g.r.IntN(len(g.vars))]
			return v.name, new(big.Int).Set(v.val)
		}
		cs := exactConsts()
		c := cs[g.r.IntN(len(cs))]
		return c, bigOf(c)
	}
	switch k := g.r.IntN(8); k {
	case 0:
		s, v := g.expr(depth - 1)
		if v == nil {
			return "-(" + s + ")", nil
		}
		return "-(" + s + ")", new(big.Int).Neg(v)
	case 1:
		// if-then-else: only the taken branch is evaluated.
		cs, cv := g.expr(depth - 1)
		ts, tv := g.expr(depth - 1)
		es, ev := g.expr(depth - 1)
		src := fmt.Sprintf("(if %s > 0 then %s else %s)", cs, ts, es)
		switch {
		case cv == nil:
			return src, nil
		case cv.Sign() > 0:
			return src, tv
		}
		return src, ev
	}
	ops := []string{"+", "-", "*", "/", "%", "*"}
	op := ops[g.r.IntN(len(ops))]
	as, av := g.expr(depth - 1)
	bs, bv := g.expr(depth - 1)
	src := "(" + as + " " + op + " " + bs + ")"
	if av == nil || bv == nil {
		return src, nil
	}
	r := new(big.Int)
	switch op {
	case "+":
		r.Add(av, bv)
	case "-":
		r.Sub(av, bv)
	case "*":
		r.Mul(av, bv)
	case "/", "%":
		if bv.Sign() == 0 {
			return src, nil
		}
		// Truncated division (toward zero), remainder of the dividend's sign.
		if op == "/" {
			r.Quo(av, bv)
		} else {
			r.Rem(av, bv)
		}
	}
	return src, r
}

// exactSpec returns a random spec with the outcome the exact semantics
// give it: "holds", "static" (then also the front end's error, its
// position line:col without the file name), or the kind of the violation.
func (g *exactGen) exactSpec(i int) (src, want, msg string) {
	var b strings.Builder
	fmt.Fprintf(&b, "spec Exact%d\n", i)
	for _, v := range g.vars {
		if g.konst {
			fmt.Fprintf(&b, "const %s = %s\n", v.name, v.val)
		} else {
			fmt.Fprintf(&b, "var %s: %s..%s = %s\n", v.name, v.lo, v.hi, v.val)
		}
	}
	fmt.Fprintf(&b, "var done: bool = false\n")
	g.usedVar = false
	e, v := g.expr(1 + g.r.IntN(4))
	constant := !g.usedVar
	cmpOps := []string{"==", "!=", "<", "<=", ">", ">="}
	op := cmpOps[g.r.IntN(len(cmpOps))]
	f, w := g.expr(g.r.IntN(3))
	switch g.r.IntN(3) {
	case 0:
		// an invariant comparing two expressions exactly
		fmt.Fprintf(&b, "action step { done := true }\ninvariant I: %s %s %s\n", e, op, f)
		switch {
		case v == nil || w == nil:
			return b.String(), "runtime-error", ""
		case compareBig(v, op, w):
			return b.String(), "holds", ""
		}
		return b.String(), "invariant", ""
	case 1:
		// a let binding is exact too, and may be reassigned
		fmt.Fprintf(&b, "action step when not done {\n  let x = %s\n  assert x == %s \"exact\"\n  x := x * x - %s\n  assert x == %s \"reassigned\"\n  done := true\n}\nterminal done\n", e, exactLit(v), f, exactLit(sq(v, w)))
		if v == nil || w == nil {
			return b.String(), "runtime-error", ""
		}
		return b.String(), "holds", ""
	}
	// an assignment to a state variable: the value must fit its range
	const sRange = "-1152921504606846976..1152921504606846976"
	fmt.Fprintf(&b, "var s: %s = 0\n", sRange)
	line := strings.Count(b.String(), "\n") + 2 // the line of s := e, e at column 8
	fmt.Fprintf(&b, "action step when not done {\n  s := %s\n  done := true\n}\ninvariant S: done implies s == %s\nterminal done\n", e, exactLit(v))
	switch {
	case v != nil && !fitsS(v) && constant:
		// a constant out of the range: a front-end error
		msg := fmt.Sprintf("%d:8: cannot use %s (constant %s) as %s value in assignment to s (out of range %s)", line, operand(e), spec.IntString(v), sRange, sRange)
		return b.String(), "static", msg
	case v == nil || !fitsS(v):
		return b.String(), "runtime-error", ""
	}
	return b.String(), "holds", ""
}

// operand returns the expression e as the front end's messages show an
// operand: its text, cut to 57 bytes and "..." when longer than 60.
func operand(e string) string {
	if len(e) > 60 {
		return e[:57] + "..."
	}
	return e
}

// fitsS reports whether v fits the range of the spec's variable s.
func fitsS(v *big.Int) bool { return new(big.Int).Abs(v).Cmp(big.NewInt(1<<60)) <= 0 }

// sq returns v*v - w, or nil when either is nil.
func sq(v, w *big.Int) *big.Int {
	if v == nil || w == nil {
		return nil
	}
	r := new(big.Int).Mul(v, v)
	return r.Sub(r, w)
}

func exactLit(v *big.Int) string {
	if v == nil {
		return "0"
	}
	return "(" + v.String() + ")"
}

func compareBig(a *big.Int, op string, b *big.Int) bool {
	c := a.Cmp(b)
	switch op {
	case "==":
		return c == 0
	case "!=":
		return c != 0
	case "<":
		return c < 0
	case "<=":
		return c <= 0
	case ">":
		return c > 0
	}
	return c >= 0
}

func exactVars(r *rand.Rand) []exactVar {
	pick := func(lo, hi string) *big.Int {
		l, h := bigOf(lo), bigOf(hi)
		d := new(big.Int).Sub(h, l)
		return d.Add(l, big.NewInt(r.Int64N(d.Int64()+1)))
	}
	vs := []exactVar{
		{name: "a", lo: "-3", hi: "3"},
		{name: "b", lo: "1152921504606846970", hi: "1152921504606846976"}, // ranges lie within ±2^60
		{name: "c", lo: "-1152921504606846976", hi: "-1152921504606846970"},
		{name: "d", lo: "0", hi: "4000000000"},
	}
	for i := range vs {
		if vs[i].name == "d" {
			vs[i].val = big.NewInt(r.Int64N(4000000001))
			continue
		}
		vs[i].val = pick(vs[i].lo, vs[i].hi)
	}
	return vs
}
