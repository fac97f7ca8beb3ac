package spec

import (
	"strings"

	"github.com/wrapcheck/wrapcheck/spec/syntax"
)

func (c *checker) unary(e *syntax.UnaryExpr, env *env) *Expr {
	switch e.Op {
	case syntax.Not:
		x := c.expr(e.X, env, c.tBool)
		if isInvalid(x.Type) {
			return x
		}
		if x.Type.Kind != BoolKind {
			c.errorf(e.Pos, "invalid operation: operator not not defined on %s (type %s)", exprString(e.X), typeString(x.Type))
			return c.bad(e.Pos)
		}
		return c.fold(&Expr{Op: OpNot, Type: c.tBool, Args: []*Expr{x}, Pos: e.Pos})
	case syntax.Neg:
		x := c.expr(e.X, env.flat(), nil)
		if isInvalid(x.Type) {
			return x
		}
		if !isInt(x.Type) {
			c.errorf(e.Pos, "invalid operation: operator - not defined on %s (type %s)%s", exprString(e.X), typeString(x.Type), symHint(x.Type))
			return c.bad(e.Pos)
		}
		return c.fold(&Expr{Op: OpNeg, Type: c.tInt, Args: []*Expr{x}, Pos: e.Pos})
	case syntax.Once, syntax.Historically, syntax.Previously:
		return c.pastTime(e, e.Op, []syntax.Expr{e.X}, e.Pos, env)
	case syntax.Always, syntax.Eventually, syntax.Next:
		if !c.temporalOK(e.Pos, e.Op, env) {
			c.resolveOnly(env, e.X)
			return c.bad(e.Pos)
		}
		x := c.expr(e.X, env, c.tBool)
		if isInvalid(x.Type) {
			return x
		}
		if x.Type.Kind != BoolKind {
			c.errorf(e.Pos, "invalid operation: operator %s not defined on %s (type %s)", e.Op, exprString(e.X), typeString(x.Type))
			return c.bad(e.Pos)
		}
		op := map[syntax.Token]Op{syntax.Always: OpAlways, syntax.Eventually: OpEventually, syntax.Next: OpNext}[e.Op]
		return &Expr{Op: op, Type: c.tBool, Args: []*Expr{x}, Pos: e.Pos}
	}
	c.errorf(e.Pos, "unexpected unary operator %s", e.Op)
	return c.bad(e.Pos)
}

func (c *checker) temporalOK(pos Position, op syntax.Token, env *env) bool {
	if env.temporal {
		return true
	}
	if strings.HasPrefix(env.where, "property") {
		c.errorf(pos, "temporal operator %s not allowed here: in a property, temporal operators may appear only under not, and, or, implies, forall, exists and other temporal operators", op)
	} else {
		c.errorf(pos, "temporal operator %s not allowed in %s: only properties may use temporal operators", op, env.where)
	}
	return false
}

func symHint(t *Type) string {
	if t.Kind == SymmetricKind {
		return ": symmetric values may only be compared with == and !="
	}
	return ""
}

// needsContext reports whether e's type comes from its context.
func needsContext(e syntax.Expr) bool {
	switch e := e.(type) {
	case *syntax.ParenExpr:
		return needsContext(e.X)
	case *syntax.SetLit, *syntax.RecordLit, *syntax.ArrayLit, *syntax.ArrayComp:
		return true
	case *syntax.BinaryExpr:
		// a set operation over literals only: {1} union {2}
		switch e.Op {
		case syntax.Union, syntax.Minus, syntax.Intersect:
			return needsContext(e.X) && needsContext(e.Y)
		}
	case *syntax.CondExpr:
		return needsContext(e.Then) && needsContext(e.Else)
	}
	return false
}

// pair checks two operands, typing a literal from the other operand.
func (c *checker) pair(x, y syntax.Expr, env *env) (*Expr, *Expr) {
	if needsContext(x) && !needsContext(y) {
		ye := c.expr(y, env, nil)
		xe := c.expr(x, env, ye.Type)
		return xe, ye
	}
	xe := c.expr(x, env, nil)
	ye := c.expr(y, env, xe.Type)
	return xe, ye
}

// setPair checks the operands of a set operation. A set literal takes
// its element type from its context: the type the operation's result
// must have (want), else the other operand's type, else, when both are
// literals, the integers (or the enum) spanned by all their elements.
func (c *checker) setPair(e *syntax.BinaryExpr, env *env, want *Type) (*Expr, *Expr) {
	if want != nil && want.Kind == SetKind {
		var xe, ye *Expr
		if needsContext(e.X) {
			xe = c.expr(e.X, env, want)
		}
		if needsContext(e.Y) {
			ye = c.expr(e.Y, env, want)
		}
		switch {
		case xe != nil && ye != nil:
			return xe, ye
		case xe != nil:
			return xe, c.expr(e.Y, env, xe.Type)
		case ye != nil:
			return c.expr(e.X, env, ye.Type), ye
		}
	}
	if needsContext(e.X) && needsContext(e.Y) {
		if t := c.jointSetType(e, env); t != nil {
			return c.expr(e.X, env, t), c.expr(e.Y, env, t)
		}
	}
	return c.pair(e.X, e.Y, env)
}

// jointSetType infers the set type of a combination of set literals
// (set operations, if-then-else) without context from all their
// elements, or returns nil (the operands are then checked one after the
// other, which reports the errors).
func (c *checker) jointSetType(e syntax.Expr, env *env) *Type {
	var lits []*syntax.SetLit
	var walk func(x syntax.Expr) bool
	walk = func(x syntax.Expr) bool {
		switch x := x.(type) {
		case *syntax.ParenExpr:
			return walk(x.X)
		case *syntax.SetLit:
			lits = append(lits, x)
			return true
		case *syntax.BinaryExpr:
			switch x.Op {
			case syntax.Union, syntax.Minus, syntax.Intersect, syntax.Subset:
				return walk(x.X) && walk(x.Y)
			}
		case *syntax.CondExpr:
			return walk(x.Then) && walk(x.Else)
		}
		return false
	}
	if !walk(e) {
		return nil
	}
	all := &syntax.SetLit{Pos: e.Position()}
	for _, l := range lits {
		all.Elems = append(all.Elems, l.Elems...)
	}
	if len(all.Elems) == 0 {
		return nil
	}
	c.quiet++
	defer func() { c.quiet-- }()
	elems := make([]*Expr, len(all.Elems))
	for i, el := range all.Elems {
		elems[i] = c.expr(el, env.flat(), nil)
		if isInvalid(elems[i].Type) {
			return nil
		}
	}
	elem := c.inferElem(all, elems)
	if elem == nil {
		return nil
	}
	return &Type{Kind: SetKind, Elem: elem, Width: 1}
}

// binOps maps a binary operator token to its Op (OpConst: none); an
// array, not a map, so that it is static data rather than code run at
// every process's start.
var binOps = [256]Op{
	syntax.Implies: OpImplies, syntax.Or: OpOr, syntax.And: OpAnd,
	syntax.Eq: OpEq, syntax.Ne: OpNe, syntax.Lt: OpLt, syntax.Le: OpLe, syntax.Gt: OpGt, syntax.Ge: OpGe,
	syntax.In: OpIn, syntax.Subset: OpSubset, syntax.Add: OpAdd, syntax.Sub: OpSub,
	syntax.Union: OpUnion, syntax.Minus: OpMinus, syntax.Mul: OpMul, syntax.Div: OpDiv, syntax.Mod: OpMod,
	syntax.Intersect: OpIntersect, syntax.Until: OpUntil, syntax.WeakUntil: OpWeakUntil,
	syntax.Release: OpRelease, syntax.LeadsTo: OpLeadsTo,
	syntax.BitAnd: OpBitAnd, syntax.BitOr: OpBitOr, syntax.BitXor: OpBitXor, syntax.Shl: OpShl,
	syntax.Shr: OpShr, syntax.EMod: OpEMod,
}

func (c *checker) binary(e *syntax.BinaryExpr, env *env, want *Type) *Expr {
	if e.Op == syntax.Since {
		return c.pastTime(e, e.Op, []syntax.Expr{e.X, e.Y}, e.Pos, env)
	}
	op := binOps[e.Op]
	if op == OpConst {
		c.errorf(e.OpPos, "unexpected binary operator %s", e.Op)
		return c.bad(e.Pos)
	}
	mismatch := func(x, y *Expr) *Expr {
		c.errorf(e.Pos, "invalid operation: %s (mismatched types %s and %s)", exprString(e), typeString(x.Type), typeString(y.Type))
		return c.bad(e.Pos)
	}
	undefined := func(x *Expr, xs syntax.Expr) *Expr {
		c.errorf(e.Pos, "invalid operation: operator %s not defined on %s (type %s)%s", e.Op, exprString(xs), typeString(x.Type), symHint(x.Type))
		return c.bad(e.Pos)
	}
	switch e.Op {
	case syntax.And, syntax.Or, syntax.Implies, syntax.Until, syntax.WeakUntil, syntax.Release, syntax.LeadsTo:
		if e.Op.IsTemporal() && !c.temporalOK(e.OpPos, e.Op, env) {
			c.resolveOnly(env, e.X, e.Y)
			return c.bad(e.Pos)
		}
		x := c.expr(e.X, env, c.tBool)
		y := c.expr(e.Y, env, c.tBool)
		if isInvalid(x.Type) || isInvalid(y.Type) {
			return c.bad(e.Pos)
		}
		if x.Type.Kind != BoolKind {
			if y.Type.Kind == BoolKind {
				return mismatch(x, y)
			}
			return undefined(x, e.X)
		}
		if y.Type.Kind != BoolKind {
			return mismatch(x, y)
		}
		return c.fold(&Expr{Op: op, Type: c.tBool, Args: []*Expr{x, y}, Pos: e.Pos})
	}
	env = env.flat()
	switch e.Op {
	case syntax.Eq, syntax.Ne:
		x, y := c.pair(e.X, e.Y, env)
		if isInvalid(x.Type) || isInvalid(y.Type) {
			return c.bad(e.Pos)
		}
		if !comparable(x.Type, y.Type) {
			return mismatch(x, y)
		}
		return c.fold(&Expr{Op: op, Type: c.tBool, Args: []*Expr{x, y}, Pos: e.Pos})
	case syntax.Lt, syntax.Le, syntax.Gt, syntax.Ge, syntax.Add, syntax.Sub, syntax.Mul, syntax.Div, syntax.Mod,
		syntax.BitAnd, syntax.BitOr, syntax.BitXor, syntax.Shl, syntax.Shr, syntax.EMod:
		x := c.expr(e.X, env, nil)
		y := c.expr(e.Y, env, nil)
		if isInvalid(x.Type) || isInvalid(y.Type) {
			return c.bad(e.Pos)
		}
		if !isInt(x.Type) || !isInt(y.Type) {
			if isInt(x.Type) || isInt(y.Type) || !identical(x.Type, y.Type) {
				return mismatch(x, y)
			}
			return undefined(x, e.X)
		}
		t := c.tInt
		if op <= OpGe {
			t = c.tBool
		}
		return c.fold(&Expr{Op: op, Type: t, Args: []*Expr{x, y}, Pos: e.Pos})
	case syntax.In:
		if lit, ok := unparen(e.Y).(*syntax.SetLit); ok {
			return c.inLiteral(e, lit, env)
		}
		y := c.expr(e.Y, env, nil)
		var elemWant *Type
		if y.Type.Kind == SetKind {
			elemWant = y.Type.Elem
		} else if isSeq(y.Type) {
			elemWant = seqElem(y.Type)
		}
		x := c.expr(e.X, env, elemWant)
		if isInvalid(x.Type) || isInvalid(y.Type) {
			return c.bad(e.Pos)
		}
		if isSeq(y.Type) {
			if !comparable(x.Type, seqElem(y.Type)) {
				c.errorf(e.Pos, "invalid operation: %s (mismatched types %s and %s)", exprString(e), typeString(x.Type), typeString(y.Type))
				return c.bad(e.Pos)
			}
			return c.seqIn(x, y, e.Pos)
		}
		if y.Type.Kind != SetKind {
			c.errorf(e.Pos, "invalid operation: %s (%s (type %s) is not a set)", exprString(e), exprString(e.Y), typeString(y.Type))
			return c.bad(e.Pos)
		}
		if !assignableTo(x.Type, y.Type.Elem) {
			c.errorf(e.Pos, "invalid operation: %s (mismatched types %s and %s)", exprString(e), typeString(x.Type), typeString(y.Type))
			return c.bad(e.Pos)
		}
		return c.inSet(x, y, e.Pos)
	case syntax.Subset, syntax.Union, syntax.Minus, syntax.Intersect:
		if e.Op == syntax.Subset {
			want = nil // the result is a bool
		}
		x, y := c.setPair(e, env, want)
		if isInvalid(x.Type) || isInvalid(y.Type) {
			return c.bad(e.Pos)
		}
		if x.Type.Kind != SetKind {
			if y.Type.Kind == SetKind {
				return mismatch(x, y)
			}
			return undefined(x, e.X)
		}
		if !identical(x.Type, y.Type) {
			return mismatch(x, y)
		}
		t := x.Type
		if op == OpSubset {
			t = c.tBool
		}
		return c.fold(&Expr{Op: op, Type: t, Args: []*Expr{x, y}, Pos: e.Pos})
	}
	c.errorf(e.OpPos, "unexpected binary operator %s", e.Op)
	return c.bad(e.Pos)
}

// inSet lowers x in y, guarding an integer element that may lie outside
// the set's element domain (it is then not a member).
func (c *checker) inSet(x, y *Expr, pos Position) *Expr {
	el := y.Type.Elem
	in := &Expr{Op: OpIn, Type: c.tBool, Args: []*Expr{x, y}, Pos: pos}
	if isInt(x.Type) {
		if x.Op == OpConst && (x.Big != nil || x.Val < el.Lo || x.Val > el.Hi) {
			return c.constExpr(c.tBool, 0, pos)
		}
		if x.Op != OpConst && !(x.Type.Kind == RangeKind && x.Type.Lo >= el.Lo && x.Type.Hi <= el.Hi) {
			lo := &Expr{Op: OpGe, Type: c.tBool, Args: []*Expr{x, c.constExpr(c.tInt, el.Lo, pos)}, Pos: pos}
			hi := &Expr{Op: OpLe, Type: c.tBool, Args: []*Expr{x, c.constExpr(c.tInt, el.Hi, pos)}, Pos: pos}
			rng := &Expr{Op: OpAnd, Type: c.tBool, Args: []*Expr{lo, hi}, Pos: pos}
			return &Expr{Op: OpAnd, Type: c.tBool, Args: []*Expr{rng, in}, Pos: pos}
		}
	}
	return c.fold(in)
}

// inLiteral lowers x in {a, b} to x == a or x == b.
func (c *checker) inLiteral(e *syntax.BinaryExpr, lit *syntax.SetLit, env *env) *Expr {
	x := c.expr(e.X, env, nil)
	if isInvalid(x.Type) {
		for _, el := range lit.Elems {
			c.expr(el, env, nil)
		}
		return c.bad(e.Pos)
	}
	var eqs []*Expr
	bad := false
	for _, el := range lit.Elems {
		y := c.expr(el, env, x.Type)
		if isInvalid(y.Type) {
			bad = true
			continue
		}
		if !comparable(x.Type, y.Type) {
			c.errorf(el.Position(), "invalid operation: %s (mismatched types %s and %s in set literal)", exprString(e), typeString(x.Type), typeString(y.Type))
			bad = true
			continue
		}
		eqs = append(eqs, c.fold(&Expr{Op: OpEq, Type: c.tBool, Args: []*Expr{x, y}, Pos: el.Position()}))
	}
	if bad {
		return c.bad(e.Pos)
	}
	if len(eqs) == 0 {
		return c.constExpr(c.tBool, 0, e.Pos)
	}
	at := make([]Position, len(eqs))
	for i := range at {
		at[i] = e.Pos
	}
	return c.disjunction(eqs, at)
}

// disjunction returns xs[0] or xs[1] or ..., folded, as a tree of height
// about log2(len(xs)) rather than a chain as long as xs: the number of
// elements of a set literal, or of terminal declarations, is bounded by
// nothing but the size of the file, and every pass over the IR recurses.
// `or` short-circuits left to right, so grouping does not change what is
// evaluated. Up to three operands the tree is the left-nested chain. The
// `or` joining a group that starts with xs[i] on its right has position
// at[i].
func (c *checker) disjunction(xs []*Expr, at []Position) *Expr {
	for len(xs) > 1 {
		nx, nat := xs[:0:0], at[:0:0]
		for i := 0; i < len(xs); i += 2 {
			if i+1 < len(xs) {
				nx = append(nx, c.fold(&Expr{Op: OpOr, Type: c.tBool, Args: []*Expr{xs[i], xs[i+1]}, Pos: at[i+1]}))
			} else {
				nx = append(nx, xs[i])
			}
			nat = append(nat, at[i])
		}
		xs, at = nx, nat
	}
	return xs[0]
}

func (c *checker) cond(e *syntax.CondExpr, env *env, want *Type) *Expr {
	env = env.flat()
	cnd := c.boolExpr(e.Cond, env, "condition in if-then-else")
	var a, b *Expr
	if want == nil && needsContext(e.Then) && needsContext(e.Else) {
		want = c.jointSetType(e, env) // two set literals: their joint type
	}
	if want == nil && needsContext(e.Then) && !needsContext(e.Else) {
		b = c.expr(e.Else, env, nil)
		a = c.expr(e.Then, env, b.Type)
	} else {
		a = c.expr(e.Then, env, want)
		w := want
		if w == nil {
			w = a.Type
		}
		b = c.expr(e.Else, env, w)
	}
	if isInvalid(cnd.Type) || isInvalid(a.Type) || isInvalid(b.Type) {
		return c.bad(e.Pos)
	}
	var t *Type
	switch {
	case identical(a.Type, b.Type):
		t = a.Type
	case isInt(a.Type) && isInt(b.Type):
		t = c.tInt
	default:
		c.errorf(e.Pos, "invalid operation: %s (mismatched types %s and %s)", exprString(e), typeString(a.Type), typeString(b.Type))
		return c.bad(e.Pos)
	}
	return c.fold(&Expr{Op: OpCond, Type: t, Args: []*Expr{cnd, a, b}, Pos: e.Pos})
}
