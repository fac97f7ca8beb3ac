package spec

import (
	"github.com/wrapcheck/wrapcheck/spec/syntax"
)

// Sequences (an extension): seq[N] of T is a record of two fields, len
// (0..N) and elems ([0..N-1]T), marked Seq. Every operation lowers to the
// IR's records, arrays and conditions, so the engines (the machine, its
// generated code, the interval analysis, symmetry, the oracle) see no new
// form. The elements at len and past it hold T's zero value: every
// operation writes them so, and none reads them, so equal sequences have
// one encoding and compare equal slot by slot. The errors are the
// language's range errors: reading at or past len(s) indexes the
// elements at -1, and a length past N or below 0 is out of the len
// field's range where the value is stored.

// maxSeqCap bounds the capacity of a sequence type.
const maxSeqCap = 1 << 10

// seqType resolves seq[N] of T.
func (c *checker) seqType(t *syntax.SeqType, env *env) *Type {
	n, ok := c.constInt(t.Cap, env, "sequence capacity")
	elem := c.resolveType(t.Elem, env)
	if !ok || isInvalid(elem) {
		return c.tInvalid
	}
	if n < 1 || n > maxSeqCap {
		c.errorf(t.Cap.Position(), "sequence capacity %d out of range 1..%d", n, maxSeqCap)
		return c.tInvalid
	}
	w := n * int64(elem.Width)
	if w+1 > maxWidth {
		c.errorf(t.Pos, "sequence type seq[%d] of %s is too large (%d slots)", n, typeString(elem), w+1)
		return c.tInvalid
	}
	idx := &Type{Kind: RangeKind, Lo: 0, Hi: n - 1, Width: 1}
	arr := &Type{Kind: ArrayKind, Index: idx, Elem: elem, Width: int(w)}
	lenT := &Type{Kind: RangeKind, Lo: 0, Hi: n, Width: 1}
	return &Type{Kind: RecordKind, Seq: true, Width: int(w) + 1, Fields: []*Field{
		{Name: "len", Type: lenT, Offset: 0}, {Name: "elems", Type: arr, Offset: 1}}}
}

func isSeq(t *Type) bool { return t != nil && t.Kind == RecordKind && t.Seq }

// seqCap returns the capacity N of the sequence type t.
func seqCap(t *Type) int64 { return t.Fields[1].Type.Index.Size() }

func seqElem(t *Type) *Type { return t.Fields[1].Type.Elem }

func (c *checker) seqLen(s *Expr, pos Position) *Expr {
	return &Expr{Op: OpField, Type: s.Type.Fields[0].Type, Args: []*Expr{s}, Val: 0, Pos: pos}
}

func (c *checker) seqElems(s *Expr, pos Position) *Expr {
	return &Expr{Op: OpField, Type: s.Type.Fields[1].Type, Args: []*Expr{s}, Val: 1, Pos: pos}
}

// seqAt is s's element at i, which the caller knows to be below len(s)
// (or guards).
func (c *checker) seqAt(s, i *Expr, pos Position) *Expr {
	return &Expr{Op: OpIndex, Type: seqElem(s.Type), Args: []*Expr{c.seqElems(s, pos), i}, Pos: pos}
}

// seqIndex is s[i]: i at or past len(s) reads the elements at -1, a
// runtime error (index -1 out of range 0..N-1).
func (c *checker) seqIndex(s, i *Expr, pos Position) *Expr {
	in := c.binop(OpLt, c.tBool, pos, i, c.seqLen(s, pos))
	j := &Expr{Op: OpCond, Type: c.tInt, Args: []*Expr{in, i, c.constExpr(c.tInt, -1, pos)}, Pos: pos}
	return c.seqAt(s, j, pos)
}

func (c *checker) binop(op Op, t *Type, pos Position, x, y *Expr) *Expr {
	return c.fold(&Expr{Op: op, Type: t, Args: []*Expr{x, y}, Pos: pos})
}

// zero returns the zero value of t: each scalar at its lowest value
// (false, the first member or identity, the empty set), as a variable
// without a start value begins.
func (c *checker) zero(t *Type, pos Position) *Expr {
	switch t.Kind {
	case ArrayKind:
		el := make([]*Expr, t.Index.Size())
		for i := range el {
			el[i] = c.zero(t.Elem, pos)
		}
		return &Expr{Op: OpRecordLit, Type: t, Args: el, Pos: pos}
	case RecordKind:
		fs := make([]*Expr, len(t.Fields))
		for i, f := range t.Fields {
			fs[i] = c.zero(f.Type, pos)
		}
		return &Expr{Op: OpRecordLit, Type: t, Args: fs, Pos: pos}
	case SetKind, BoolKind:
		return c.constExpr(t, 0, pos)
	}
	return c.constExpr(t, t.Lo, pos)
}

// share returns x as an expression that may be used many times, and the
// wrapper that binds it: x itself when it is a constant or a location,
// else a frame slot set by an OpLet around the result.
func (c *checker) share(x *Expr) (*Expr, func(*Expr) *Expr) {
	if x.Op == OpConst || x.IsLocation() {
		return x, func(e *Expr) *Expr { return e }
	}
	s := c.alloc(x.Type.Width)
	l := &Expr{Op: OpLocal, Type: x.Type, Slot: s, Pos: x.Pos}
	return l, func(e *Expr) *Expr {
		return &Expr{Op: OpLet, Type: e.Type, Binds: []int{s}, Args: []*Expr{x, e}, Pos: e.Pos}
	}
}

// seqBuild returns the sequence of type t of length n whose element k
// (k < N) is at(k) where k < n, the zero value past it.
func (c *checker) seqBuild(t *Type, n *Expr, at func(k int64) *Expr, pos Position) *Expr {
	capN := seqCap(t)
	el := make([]*Expr, capN)
	for k := range capN {
		switch {
		case n.Op == OpConst && k >= n.Val:
			el[k] = c.zero(seqElem(t), pos)
		case n.Op == OpConst:
			el[k] = at(k)
		default:
			kx := c.constExpr(c.tInt, k, pos)
			el[k] = c.ifThen(c.binop(OpLt, c.tBool, pos, kx, n), at(k), c.zero(seqElem(t), pos), pos)
		}
	}
	arr := &Expr{Op: OpRecordLit, Type: t.Fields[1].Type, Args: el, Pos: pos}
	return &Expr{Op: OpRecordLit, Type: t, Args: []*Expr{n, arr}, Pos: pos}
}

// ifThen is if x then a else b, folded when x is constant.
func (c *checker) ifThen(x, a, b *Expr, pos Position) *Expr {
	if x.Op == OpConst {
		if x.Val != 0 {
			return a
		}
		return b
	}
	return &Expr{Op: OpCond, Type: a.Type, Args: []*Expr{x, a, b}, Pos: pos}
}

// seqArity gives the sequences' builtin functions and their numbers of
// arguments (spec/syntax's table of words lists them, with card).
var seqArity = map[string]int{"len": 1, "head": 1, "tail": 1, "append": 2, "concat": 2}

// seqBuiltin checks len(s), head(s), tail(s), append(s, x) and
// concat(s, t); ok is false when name is none of them.
func (c *checker) seqBuiltin(e *syntax.CallExpr, env *env) (x *Expr, ok bool) {
	n, ok := seqArity[e.Fn.Name]
	if !ok {
		return nil, false
	}
	c.useSeqBuiltin(&e.Fn)
	if len(e.Args) != n {
		for _, a := range e.Args {
			c.expr(a, env, nil)
		}
		c.errorf(e.Pos, "%s takes %d arguments, not %d", e.Fn.Name, n, len(e.Args))
		return c.bad(e.Pos), true
	}
	s := c.expr(e.Args[0], env, nil)
	if isInvalid(s.Type) {
		c.resolveOnly(env, e.Args[1:]...)
		return c.bad(e.Pos), true
	}
	if !isSeq(s.Type) {
		c.resolveOnly(env, e.Args[1:]...)
		c.errorf(e.Args[0].Position(), "invalid argument: %s (type %s) for %s: not a sequence", exprString(e.Args[0]), typeString(s.Type), e.Fn.Name)
		return c.bad(e.Pos), true
	}
	pos := e.Pos
	t := s.Type
	switch e.Fn.Name {
	case "len":
		return c.seqLen(s, pos), true
	case "head":
		return c.seqIndex(s, c.constExpr(c.tInt, 0, pos), pos), true
	}
	if e.Fn.Name == "tail" {
		c.lastSeq = &seqCall{call: e, s: s}
		sv, wrap := c.share(s)
		l := c.seqLen(sv, pos)
		n := c.binop(OpSub, c.tInt, pos, l, c.constExpr(c.tInt, 1, pos))
		return wrap(c.seqBuild(t, n, func(k int64) *Expr {
			return c.seqAt(sv, c.constExpr(c.tInt, k+1, pos), pos)
		}, pos)), true
	}
	var y *Expr
	if e.Fn.Name == "append" {
		y = c.expr(e.Args[1], env, seqElem(t))
		if !c.assignable(y, seqElem(t), e.Args[1], "append") {
			return c.bad(e.Pos), true
		}
	} else {
		y = c.expr(e.Args[1], env, t)
		if isInvalid(y.Type) {
			return c.bad(e.Pos), true
		}
		if !identical(y.Type, t) {
			c.errorf(e.Args[1].Position(), "cannot use %s (type %s) as %s value in concat", exprString(e.Args[1]), typeString(y.Type), typeString(t))
			return c.bad(e.Pos), true
		}
	}
	if e.Fn.Name == "append" {
		c.lastSeq = &seqCall{call: e, s: s, y: y}
	}
	sv, wrapS := c.share(s)
	yv, wrapY := c.share(y)
	l := c.seqLen(sv, pos)
	var r *Expr
	if e.Fn.Name == "append" {
		n := c.binop(OpAdd, c.tInt, pos, l, c.constExpr(c.tInt, 1, pos))
		r = c.seqBuild(t, n, func(k int64) *Expr {
			kx := c.constExpr(c.tInt, k, pos)
			return c.ifThen(c.binop(OpLt, c.tBool, pos, kx, l), c.seqAt(sv, kx, pos), yv, pos)
		}, pos)
	} else {
		ly := c.seqLen(yv, pos)
		n := c.binop(OpAdd, c.tInt, pos, l, ly)
		r = c.seqBuild(t, n, func(k int64) *Expr {
			kx := c.constExpr(c.tInt, k, pos)
			j := c.binop(OpSub, c.tInt, pos, kx, l)
			return c.ifThen(c.binop(OpLt, c.tBool, pos, kx, l), c.seqAt(sv, kx, pos), c.seqAt(yv, j, pos), pos)
		}, pos)
	}
	return wrapS(wrapY(r)), true
}

// seqIn is x in s: some element below len(s) equals x.
func (c *checker) seqIn(x, s *Expr, pos Position) *Expr {
	sv, wrapS := c.share(s)
	xv, wrapX := c.share(x)
	var r *Expr
	for k := seqCap(s.Type) - 1; k >= 0; k-- {
		kx := c.constExpr(c.tInt, k, pos)
		hit := &Expr{Op: OpAnd, Type: c.tBool, Pos: pos, Args: []*Expr{
			c.binop(OpLt, c.tBool, pos, kx, c.seqLen(sv, pos)),
			{Op: OpEq, Type: c.tBool, Args: []*Expr{c.seqAt(sv, kx, pos), xv}, Pos: pos}}}
		if r == nil {
			r = hit
		} else {
			r = &Expr{Op: OpOr, Type: c.tBool, Args: []*Expr{hit, r}, Pos: pos}
		}
	}
	return wrapX(wrapS(r))
}

// seqLit is [e1, ..., ek] where a sequence of type t is expected.
func (c *checker) seqLit(e *syntax.ArrayLit, env *env, t *Type) *Expr {
	el := seqElem(t)
	vals := make([]*Expr, 0, len(e.Elems))
	bad := false
	for _, x := range e.Elems {
		v := c.expr(x, env, el)
		if !c.assignable(v, el, x, "sequence literal") {
			bad = true
		}
		vals = append(vals, v)
	}
	if bad {
		return c.bad(e.Pos)
	}
	if int64(len(vals)) > seqCap(t) {
		c.errorf(e.Pos, "sequence literal has %d elements, more than %s holds", len(vals), typeString(t))
		return c.bad(e.Pos)
	}
	n := c.constExpr(c.tInt, int64(len(vals)), e.Pos)
	return c.seqBuild(t, n, func(k int64) *Expr { return vals[k] }, e.Pos)
}

// forSeq checks and lowers `for x in s` over a sequence s: the value of
// s when the loop starts is kept in a frame slot, and the body, unrolled
// once per element slot k, runs when k < len(s) with x a frame slot set
// to the element.
func (c *checker) forSeq(s *syntax.ForStmt, env *env, out []*Stmt) []*Stmt {
	nt := s.Domain.(*syntax.NamedType)
	sx := c.expr((*syntax.IdentExpr)(nt), env.flat(), nil)
	if isInvalid(sx.Type) {
		return out
	}
	t := sx.Type
	n := seqCap(t)
	if n > int64(MaxForBodies-c.forBodies) {
		if c.quiet == 0 {
			c.tooMany(s.Domain.Position())
		}
		return out
	}
	c.forBodies += int(n)
	pos := s.Pos
	snap := c.alloc(t.Width)
	out = append(out, &Stmt{Op: SLet, Slot: snap, Value: sx, Pos: pos})
	sv := &Expr{Op: OpLocal, Type: t, Slot: snap, Pos: pos}
	slot := c.alloc(max(1, seqElem(t).Width))
	nerr := len(c.errs)
	for k := range n {
		sc := newScope(env.scope)
		c.openScope(sc, s, s.Pos, s.Body.End)
		o := &object{kind: objBound, name: s.Var.Name, pos: s.Var.Pos, typ: seqElem(t), what: "loop variable", used: true, slot: slot}
		c.def(o, &s.Var, ObjQuant, s, nil)
		c.declare(sc, o)
		if k > 0 {
			c.quiet++
		}
		body := c.block(s.Body, env.with(sc))
		if k > 0 {
			c.quiet--
		}
		if len(c.errs) > nerr {
			return out
		}
		kx := c.constExpr(c.tInt, k, pos)
		set := &Stmt{Op: SLet, Slot: slot, Value: c.seqAt(sv, kx, pos), Pos: pos}
		out = append(out, &Stmt{Op: SIf, Cond: c.binop(OpLt, c.tBool, pos, kx, c.seqLen(sv, pos)),
			Body: append([]*Stmt{set}, body...), Pos: pos})
	}
	return out
}

// hasSeq reports whether t is or holds a sequence.
func hasSeq(t *Type) bool {
	switch t.Kind {
	case ArrayKind:
		return hasSeq(t.Elem)
	case RecordKind:
		if t.Seq {
			return true
		}
		for _, f := range t.Fields {
			if hasSeq(f.Type) {
				return true
			}
		}
	}
	return false
}

// seqCall is an append or tail call as seqBuiltin lowered it: its
// syntax, its sequence operand and, for append, its element.
type seqCall struct {
	call *syntax.CallExpr
	s, y *Expr
}

// seqUpdate lowers `q := append(q, x)` and `q := tail(q)`, where q is
// one fixed location (a variable, its fields, constant indexes), as an
// update in place, as a queue of an array and a counter is written:
// append stores len(q) + 1 and then x at len(q) - 1 (x read first
// when it reads the state), tail stores
// len(q) - 1 and moves the elements down one slot, the last getting the
// zero value. The value of the whole sequence rebuilt and stored slot by
// slot cost about twice the instructions per state of the array and
// counter (docs/design/values.md). The errors are the same, at the same
// statement: a length past N or below 0 fails as it is stored, before
// any element is (a failing branch makes no successor). It returns nil
// for any other assignment.
func (c *checker) seqUpdate(s *syntax.AssignStmt, tgt *Expr) []*Stmt {
	sc := c.lastSeq
	c.lastSeq = nil
	if sc == nil || c.opts.valueSeq || syntax.Expr(sc.call) != unparen(s.Value) || !isSeq(tgt.Type) || !sameLocation(sc.s, tgt) {
		return nil
	}
	pos, t := s.Pos, tgt.Type
	at := func(k *Expr) *Expr {
		return &Expr{Op: OpIndex, Type: seqElem(t), Args: []*Expr{c.seqElems(tgt, pos), k}, Pos: pos}
	}
	one := c.constExpr(c.tInt, 1, pos)
	var out []*Stmt
	if sc.y != nil {
		y := sc.y
		if Contains(y, func(e *Expr) bool { return e.Op == OpVar }) { // x is read before q changes
			slot := c.alloc(max(1, y.Type.Width))
			out = append(out, &Stmt{Op: SLet, Slot: slot, Value: y, Pos: pos})
			y = &Expr{Op: OpLocal, Type: y.Type, Slot: slot, Pos: pos}
		}
		// the length first: past N it fails as it is stored
		return append(out,
			&Stmt{Op: SAssign, Target: c.seqLen(tgt, pos), Value: c.binop(OpAdd, c.tInt, pos, c.seqLen(tgt, pos), one), Pos: pos},
			&Stmt{Op: SAssign, Target: at(c.binop(OpSub, c.tInt, pos, c.seqLen(tgt, pos), one)), Value: y, Pos: pos})
	}
	out = append(out, &Stmt{Op: SAssign, Target: c.seqLen(tgt, pos), Value: c.binop(OpSub, c.tInt, pos, c.seqLen(tgt, pos), one), Pos: pos})
	n := seqCap(t)
	for k := range n - 1 {
		out = append(out, &Stmt{Op: SAssign, Target: at(c.constExpr(c.tInt, k, pos)), Value: at(c.constExpr(c.tInt, k+1, pos)), Pos: pos})
	}
	return append(out, &Stmt{Op: SAssign, Target: at(c.constExpr(c.tInt, n-1, pos)), Value: c.zero(seqElem(t), pos), Pos: pos})
}

// sameLocation reports whether a and b are the same fixed location of
// the state: one variable, the same fields, the same constant indexes.
func sameLocation(a, b *Expr) bool {
	if a.Op != b.Op || a.Type.Width != b.Type.Width {
		return false
	}
	switch a.Op {
	case OpVar:
		return a.Slot == b.Slot
	case OpField:
		return a.Val == b.Val && sameLocation(a.Args[0], b.Args[0])
	case OpIndex:
		i, j := a.Args[1], b.Args[1]
		return i.Op == OpConst && j.Op == OpConst && i.Big == nil && j.Big == nil && i.Val == j.Val && sameLocation(a.Args[0], b.Args[0])
	}
	return false
}
