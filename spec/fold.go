package spec

import "math/big"

// Fold returns e with its constant subexpressions folded: an operator
// whose operands are constants becomes an OpConst (integers exactly, with
// math/big past int64), and, bottom up, a short-circuit operator or a
// conditional with a constant first operand becomes the operand it
// selects. A let whose bindings are all scalar constants becomes its body
// with the constants substituted ([Substitute]) and folded. Operations
// whose evaluation is a runtime error (division by zero) are kept, to
// fail at run time. e is not modified; the subexpressions that do not
// change are shared with it. The recursion is as deep as e is tall,
// which the front end bounds.
//
// The front end folds each operator as it builds it, by the same rules,
// so Fold finds work where a later substitution made operands constant:
// the engine's compiler folds each instance of an unrolled quantifier and
// each inlined fn call whose arguments became constants.
func Fold(e *Expr) *Expr {
	if e == nil || len(e.Args) == 0 {
		return e
	}
	x := *e
	x.Args = make([]*Expr, len(e.Args))
	changed := false
	for i, a := range e.Args {
		x.Args[i] = Fold(a)
		changed = changed || x.Args[i] != a
	}
	if x.Op == OpLet {
		if b, ok := foldLet(&x); ok {
			return b
		}
	}
	if !changed {
		x.Args = e.Args
	}
	f := foldNode(&x)
	if f == &x && !changed {
		return e
	}
	return f
}

// foldLet substitutes the constant scalar bindings of the let e into its
// body, folded; ok is false when a binding is not such a constant.
func foldLet(e *Expr) (*Expr, bool) {
	n := len(e.Args) - 1
	for _, a := range e.Args[:n] {
		if a.Op != OpConst || a.Big != nil || !scalarType(a.Type) {
			return nil, false
		}
	}
	body := e.Args[n]
	for i, a := range e.Args[:n] {
		b, ok := Substitute(body, e.Binds[i], a)
		if !ok {
			return nil, false
		}
		body = b
	}
	return Fold(body), true
}

// foldNode replaces e, whose operands are folded, by an OpConst when its
// value is known statically, or by the operand it selects when it is a
// short-circuit operator or a conditional with a constant first operand.
// It returns e itself when it folds nothing. It keeps operations whose
// evaluation is a runtime error (division by zero, a result that does not
// fit MaxIntBits bits).
func foldNode(e *Expr) *Expr {
	r, _ := foldNodeSize(e)
	return r
}

// foldNodeSize is foldNode; tooLarge reports that e was kept because its
// exact value does not fit [MaxIntBits] bits.
func foldNodeSize(e *Expr) (r *Expr, tooLarge bool) {
	if len(e.Args) == 0 {
		return e, false
	}
	a := e.Args[0]
	k := func(v int64) *Expr { return &Expr{Op: OpConst, Type: e.Type, Val: v, Pos: e.Pos} }
	// short-circuit operators fold on a constant left operand
	switch e.Op {
	case OpAnd:
		if a.Op == OpConst {
			if a.Val == 0 {
				return k(0), false
			}
			return e.Args[1], false
		}
	case OpOr:
		if a.Op == OpConst {
			if a.Val != 0 {
				return k(1), false
			}
			return e.Args[1], false
		}
	case OpImplies:
		if a.Op == OpConst {
			if a.Val == 0 {
				return k(1), false
			}
			return e.Args[1], false
		}
	case OpCond:
		if a.Op == OpConst {
			b := e.Args[2]
			if a.Val != 0 {
				b = e.Args[1]
			}
			if b.Op == OpConst {
				return bigConst(e.Type, b.BigVal(), e.Pos), false
			}
			return b, false
		}
		return e, false
	}
	for _, x := range e.Args {
		if x.Op != OpConst || !scalarType(x.Type) {
			return e, false
		}
	}
	huge := false
	for _, x := range e.Args {
		huge = huge || x.Big != nil
	}
	vals := make([]int64, len(e.Args))
	for i, x := range e.Args {
		vals[i] = x.Val
	}
	v, err := int64(0), errOverflow
	if !huge {
		v, err = evalOp(e, vals)
	}
	if err == errOverflow && IsExactOp(e.Op) {
		// Integers are exact: fold past int64 with math/big.
		var b *big.Int
		a := e.Args[0].BigVal()
		if len(e.Args) > 1 {
			b = e.Args[1].BigVal()
		}
		r, err := EvalExact(e.Op, a, b)
		if err != nil {
			return e, err == ErrIntTooLarge
		}
		return bigConst(e.Type, r, e.Pos), false
	}
	if err != nil {
		return e, false
	}
	return k(v), false
}
