package gen

import (
	"math/rand/v2"

	"github.com/wrapcheck/wrapcheck/spec/syntax"
)

// GenerateExpr builds a random expression tree of the syntax, depth deep,
// drawing from r: every binary and prefix operator, index, selector,
// if-then-else, quantifiers and aggregates, calls, set and array literals
// and array comprehensions over the identifiers
// a to e and small literals. The trees need not type-check: they are for
// the printer and the parser, which must agree on them.
func GenerateExpr(r *rand.Rand, depth int) syntax.Expr {
	if depth == 0 {
		switch r.IntN(3) {
		case 0:
			return &syntax.IdentExpr{Name: string(rune('a' + r.IntN(5)))}
		case 1:
			return &syntax.IntLit{Value: int64(r.IntN(10))}
		}
		return &syntax.BoolLit{Value: r.IntN(2) == 0}
	}
	d := depth - 1
	switch r.IntN(12) {
	case 0, 1, 2, 3:
		ops := treeBinary()
		return &syntax.BinaryExpr{Op: ops[r.IntN(len(ops))], X: GenerateExpr(r, d), Y: GenerateExpr(r, d)}
	case 4, 5:
		ops := treeUnary()
		return &syntax.UnaryExpr{Op: ops[r.IntN(len(ops))], X: GenerateExpr(r, d)}
	case 6:
		return &syntax.IndexExpr{X: GenerateExpr(r, d), Index: GenerateExpr(r, d)}
	case 7:
		return &syntax.SelectorExpr{X: GenerateExpr(r, d), Field: syntax.Ident{Name: "f"}}
	case 8:
		return &syntax.CondExpr{Cond: GenerateExpr(r, d), Then: GenerateExpr(r, d), Else: GenerateExpr(r, d)}
	case 9:
		return &syntax.QuantExpr{Kind: syntax.QuantKind(r.IntN(6)), Var: syntax.Ident{Name: "x"},
			Domain: &syntax.RangeType{Lo: GenerateExpr(r, 0), Hi: &syntax.BinaryExpr{Op: syntax.Sub, X: GenerateExpr(r, 0), Y: &syntax.UnaryExpr{Op: syntax.Neg, X: GenerateExpr(r, 0)}}},
			Body:   GenerateExpr(r, d)}
	case 10:
		return &syntax.CallExpr{Fn: syntax.Ident{Name: "f"}, Args: []syntax.Expr{GenerateExpr(r, d), GenerateExpr(r, d)}}
	}
	switch r.IntN(3) {
	case 1:
		return &syntax.ArrayLit{Elems: []syntax.Expr{GenerateExpr(r, d), GenerateExpr(r, d)}}
	case 2:
		return &syntax.ArrayComp{Var: syntax.Ident{Name: "x"}, Domain: &syntax.NamedType{Name: "T"}, Body: GenerateExpr(r, d)}
	}
	return &syntax.SetLit{Elems: []syntax.Expr{GenerateExpr(r, d)}}
}

// treeBinary returns the binary operators of [GenerateExpr].
func treeBinary() []syntax.Token {
	return []syntax.Token{syntax.Implies, syntax.Or, syntax.And, syntax.Eq, syntax.Ne, syntax.Lt, syntax.Le, syntax.Gt, syntax.Ge,
		syntax.In, syntax.Subset, syntax.Add, syntax.Sub, syntax.Union, syntax.Minus, syntax.Mul, syntax.Div, syntax.Mod,
		syntax.Intersect, syntax.Until, syntax.WeakUntil, syntax.Release, syntax.LeadsTo, syntax.Since,
		syntax.BitAnd, syntax.BitOr, syntax.BitXor, syntax.Shl, syntax.Shr, syntax.EMod}
}

// treeUnary returns the prefix operators of [GenerateExpr].
func treeUnary() []syntax.Token {
	return []syntax.Token{syntax.Not, syntax.Neg, syntax.Always, syntax.Eventually, syntax.Next, syntax.Once,
		syntax.Historically, syntax.Previously}
}
