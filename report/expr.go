package report

import (
	"fmt"
	"strings"

	"github.com/wrapcheck/wrapcheck/machine"
	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/spec/syntax"
)

// The parts of a violated invariant: the operands of its top-level
// implies, and, or or comparison, printed back from the IR and evaluated
// in the last state of the trace with machine.Program.Eval. Only state
// expressions the printer knows are shown (no quantifiers, no bound
// names): the section is a help, never a second semantics.

// binaryTokens maps the binary operators of state expressions to their
// source operators, whose spelling (Token.String) and precedence
// (syntax.BinaryPrec) the printer uses; syntax.Illegal for the others. An
// array, not a map: static data, no code at every process's start.
var binaryTokens = [256]syntax.Token{
	spec.OpImplies: syntax.Implies, spec.OpOr: syntax.Or, spec.OpAnd: syntax.And,
	spec.OpEq: syntax.Eq, spec.OpNe: syntax.Ne, spec.OpLt: syntax.Lt, spec.OpLe: syntax.Le,
	spec.OpGt: syntax.Gt, spec.OpGe: syntax.Ge, spec.OpIn: syntax.In, spec.OpSubset: syntax.Subset,
	spec.OpAdd: syntax.Add, spec.OpSub: syntax.Sub, spec.OpUnion: syntax.Union, spec.OpMinus: syntax.Minus,
	spec.OpMul: syntax.Mul, spec.OpDiv: syntax.Div, spec.OpMod: syntax.Mod, spec.OpIntersect: syntax.Intersect,
	spec.OpBitAnd: syntax.BitAnd, spec.OpBitOr: syntax.BitOr, spec.OpBitXor: syntax.BitXor, spec.OpShl: syntax.Shl,
	spec.OpShr: syntax.Shr, spec.OpEMod: syntax.EMod,
}

// binaryOp returns the spelling, precedence and associativity of the
// binary operator op, if it is one the printer prints.
func binaryOp(op spec.Op) (text string, prec int, right, ok bool) {
	tok := binaryTokens[op]
	if tok == syntax.Illegal {
		return "", 0, false, false
	}
	prec, right, _ = syntax.BinaryPrec(tok)
	return tok.String(), prec, right, true
}

// exprText prints e as wrap source, or reports false for a form it does
// not print (quantifiers, bound names, element loads folded to a slot).
func exprText(m *spec.Model, e *spec.Expr) (string, bool) {
	s, _, ok := exprPrec(m, e)
	return s, ok
}

func exprPrec(m *spec.Model, e *spec.Expr) (string, int, bool) {
	const atom = syntax.PrecNeg + 1
	if text, prec, right, ok := binaryOp(e.Op); ok && len(e.Args) == 2 {
		l, lp, ok1 := exprPrec(m, e.Args[0])
		r, rp, ok2 := exprPrec(m, e.Args[1])
		if !ok1 || !ok2 {
			return "", 0, false
		}
		// A right-associative operator (implies) groups to the right, a
		// comparison not at all, the others to the left.
		if lp < prec || lp == prec && (right || prec == syntax.PrecCmp) {
			l = "(" + l + ")"
		}
		if rp < prec || rp == prec && !right {
			r = "(" + r + ")"
		}
		return l + " " + text + " " + r, prec, true
	}
	switch e.Op {
	case spec.OpConst:
		switch {
		case e.Big != nil:
			return e.Big.String(), atom, true
		case e.Type.IsScalar():
			return scalarName(e.Type, e.Val), atom, true
		case e.Type.Kind == spec.SetKind:
			return valueNode(e.Type, []int64{e.Val}).String(), atom, true
		}
	case spec.OpVar:
		if e.Slot < 0 || e.Slot >= len(m.Slots) {
			break
		}
		v := m.Vars[m.Slots[e.Slot].Var]
		if v.Slot == e.Slot && v.Type.Width == e.Type.Width {
			return v.Name, atom, true
		}
	case spec.OpIndex:
		a, ap, ok1 := exprPrec(m, e.Args[0])
		i, _, ok2 := exprPrec(m, e.Args[1])
		if ok1 && ok2 && ap == atom {
			return a + "[" + i + "]", atom, true
		}
	case spec.OpField:
		a, ap, ok := exprPrec(m, e.Args[0])
		if !ok || ap != atom || e.Args[0].Type.Kind != spec.RecordKind {
			break
		}
		if e.Args[0].Type.Seq {
			// a sequence's fields are storage: its length prints as
			// wrap writes it, its element slots not at all
			if e.Val == 0 {
				return "len(" + a + ")", atom, true
			}
			break
		}
		for _, f := range e.Args[0].Type.Fields {
			if int64(f.Offset) == e.Val {
				return a + "." + f.Name, atom, true
			}
		}
	case spec.OpNot, spec.OpNeg:
		a, ap, ok := exprPrec(m, e.Args[0])
		if !ok {
			break
		}
		if e.Op == spec.OpNeg {
			if ap < syntax.PrecNeg {
				a = "(" + a + ")"
			}
			return "-" + a, syntax.PrecNeg, true
		}
		if ap < syntax.PrecNot {
			a = "(" + a + ")"
		}
		return "not " + a, syntax.PrecNot, true
	case spec.OpCard:
		a, _, ok := exprPrec(m, e.Args[0])
		if ok {
			return "card(" + a + ")", atom, true
		}
	case spec.OpSetLit:
		parts := make([]string, len(e.Args))
		for i, a := range e.Args {
			s, _, ok := exprPrec(m, a)
			if !ok {
				return "", 0, false
			}
			parts[i] = s
		}
		return "{" + strings.Join(parts, ", ") + "}", atom, true
	}
	return "", 0, false
}

// invariantParts returns `text: value` lines for the operands of the
// top-level operator of expr, evaluated in state (unpacked). Operands
// that are a bare variable or constant are left out (the reads show
// them), and so is anything exprText cannot print or Eval cannot
// evaluate. prog is m compiled, or nil: invariantParts compiles m.
func invariantParts(m *spec.Model, prog *machine.Program, expr *spec.Expr, state []int64) []string {
	_, prec, _, ok := binaryOp(expr.Op)
	if !ok || prec > syntax.PrecCmp || len(expr.Args) != 2 {
		return nil
	}
	var operands []*spec.Expr
	var collect func(e *spec.Expr)
	collect = func(e *spec.Expr) {
		// flatten chains of the same and/or: a and b and c
		if (e.Op == spec.OpAnd || e.Op == spec.OpOr) && e.Op == expr.Op && len(e.Args) == 2 {
			collect(e.Args[0])
			collect(e.Args[1])
			return
		}
		operands = append(operands, e)
	}
	if expr.Op == spec.OpAnd || expr.Op == spec.OpOr {
		collect(expr)
	} else {
		operands = expr.Args
	}
	if prog == nil || prog.Model != m {
		var err error
		if prog, err = machine.Compile(m); err != nil {
			return nil
		}
	}
	packed := make(machine.State, prog.Words())
	prog.Pack(packed, state)
	var out []string
	for _, e := range operands {
		if e.Op == spec.OpVar || e.Op == spec.OpConst || !e.Type.IsScalar() {
			continue
		}
		text, ok := exprText(m, e)
		if !ok {
			continue
		}
		v, err := prog.Eval(e, packed)
		if err != nil {
			continue
		}
		out = append(out, text+": "+scalarName(e.Type, v))
	}
	return out
}

// ExprString prints the state expression e of m as wrap source, or returns
// fallback for a form it cannot print (quantifiers, bound names).
func ExprString(m *spec.Model, e *spec.Expr, fallback string) string {
	if s, ok := exprText(m, e); ok {
		return s
	}
	return fallback
}

// AtomNames names the atoms of an LTL formula over m (ltl.FromProperty,
// ltl.ParseFormula) for Formula.Format and Automaton.Format: each as wrap
// source, or p0, p1, ... for a form the printer does not print.
func AtomNames(m *spec.Model, atoms []*spec.Expr) []string {
	names := make([]string, len(atoms))
	for i, a := range atoms {
		names[i] = ExprString(m, a, fmt.Sprintf("p%d", i))
	}
	return names
}
