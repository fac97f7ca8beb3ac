package spec

import (
	"math/big"
	"strconv"
	"strings"

	"github.com/wrapcheck/wrapcheck/spec/syntax"
)

// unitKind says what an expression may see.
type unitKind uint8

const (
	uConst  unitKind = iota // constants only
	uFn                     // fn body: parameters and constants
	uAssume                 // agent assume: parameters, result, constants, fns
	uState                  // guards, bodies, init, invariants, properties, terminal
)

// env is the context an expression is checked in.
type env struct {
	kind     unitKind
	scope    *scope
	proc     *procInfo // the enclosing process, or nil
	inst     int       // the instance of proc being lowered
	temporal bool      // a temporal operator is allowed here
	where    string    // what is being checked, for messages ("invariant Safe")
	fn       *fnInfo
	agent    *agentInfo
	// pastMark is the first frame slot allocated inside the operand of
	// the innermost past-time operator pastOp (0 outside one): a let
	// binding below it may not be read there.
	pastMark int
	pastOp   syntax.Token
}

func (c *checker) globalEnv() *env {
	return &env{kind: uConst, scope: c.global, where: "constant expression"}
}

// constEnv is env restricted to constants (family indices included).
func (e *env) constEnv() *env {
	if e.kind == uConst && !e.temporal {
		return e
	}
	n := *e
	n.kind = uConst
	n.temporal = false
	return &n
}

// flat is env without temporal operators.
func (e *env) flat() *env {
	if !e.temporal {
		return e
	}
	n := *e
	n.temporal = false
	return &n
}

func (e *env) with(s *scope) *env {
	n := *e
	n.scope = s
	return &n
}

func (c *checker) bad(pos Position) *Expr {
	return &Expr{Op: OpConst, Type: c.tInvalid, Pos: pos}
}

func (c *checker) constExpr(t *Type, v int64, pos Position) *Expr {
	return &Expr{Op: OpConst, Type: t, Val: v, Pos: pos}
}

// boolExpr checks e as a condition.
func (c *checker) boolExpr(e syntax.Expr, env *env, what string) *Expr {
	x := c.expr(e, env, c.tBool)
	if isInvalid(x.Type) {
		return x
	}
	if x.Type.Kind != BoolKind {
		c.errorf(e.Position(), "non-boolean %s: %s (type %s)", what, exprString(e), typeString(x.Type))
		return c.bad(x.Pos)
	}
	return x
}

// expr checks and lowers e. want is the type the context expects (used
// only to type set and record literals); it may be nil.
func (c *checker) expr(e syntax.Expr, env *env, want *Type) (x *Expr) {
	if c.info != nil {
		defer func() { c.recordType(e, x) }()
	}
	// The parser bounds the height of every tree it builds, but an
	// inlined fn body is checked on top of its call: bound the recursion
	// (and so the height of the IR built by it) here too.
	c.exprDepth++
	defer func() { c.exprDepth-- }()
	c.step()
	if c.inlineDep > 0 {
		// An inlined fn body: the expansion, whose size the spec controls
		// (a body of n operators called k times in a body called j times
		// ... is n*k*j operators), has a budget.
		if c.expanded++; c.expanded > maxExpanded {
			return c.bad(Position{})
		}
	}
	if c.exprDepth > syntax.MaxExprHeight+1 && e != nil {
		pos := e.Position()
		if b, ok := e.(*syntax.BinaryExpr); ok {
			pos = b.OpPos
		}
		q := c.quiet
		c.quiet = 0
		c.errorf(pos, "expression too deep once fn calls are expanded: more than %d levels of operators", syntax.MaxExprHeight)
		c.quiet = q
		return c.bad(pos)
	}
	switch e := e.(type) {
	case *syntax.ParenExpr:
		return c.expr(e.X, env, want)
	case *syntax.IntLit:
		if e.Huge {
			return bigConst(c.tInt, e.BigValue(), e.Pos)
		}
		return c.constExpr(c.tInt, e.Value, e.Pos)
	case *syntax.BoolLit:
		v := int64(0)
		if e.Value {
			v = 1
		}
		return c.constExpr(c.tBool, v, e.Pos)
	case *syntax.IdentExpr:
		return c.ident(e, env)
	case *syntax.UnaryExpr:
		return c.unary(e, env)
	case *syntax.BinaryExpr:
		return c.binary(e, env, want)
	case *syntax.IndexExpr:
		return c.index(e, env)
	case *syntax.SelectorExpr:
		return c.selector(e, env)
	case *syntax.CallExpr:
		return c.call(e, env)
	case *syntax.AskExpr:
		c.errorf(e.Pos, "ask %s(...) may appear only as the whole right-hand side of let or :=", e.Agent.Name)
		c.lookup(env.scope, &e.Agent)
		c.resolveOnly(env, e.Args...)
		return c.bad(e.Pos)
	case *syntax.CondExpr:
		return c.cond(e, env, want)
	case *syntax.QuantExpr:
		return c.quant(e, env)
	case *syntax.SetLit:
		return c.setLit(e, env, want)
	case *syntax.RecordLit:
		return c.recordLit(e, env, want)
	case *syntax.ArrayLit:
		return c.arrayLit(e, env, want)
	case *syntax.ArrayComp:
		return c.arrayComp(e, env, want)
	}
	if e == nil {
		c.errorf(Position{Filename: c.file.Filename}, "missing expression")
		return c.bad(Position{})
	}
	c.errorf(e.Position(), "unexpected expression")
	return c.bad(e.Position())
}

// stateAccess reports whether env may read the state variable called
// name; it reports the error otherwise.
func (c *checker) stateAccess(pos Position, name string, env *env) bool {
	switch env.kind {
	case uConst:
		c.errorf(pos, "%s is not constant (it is a state variable)", name)
		return false
	case uFn:
		if env.fn != nil && env.fn.readsState == "" {
			env.fn.readsState = name
		}
		return true
	case uAssume:
		a := env.agent.decl
		c.errorNotes(pos, []syntax.Note{note(a.ParamsPos, "%s's parameters are declared here", a.Name.Name)},
			"agent %s cannot see state variable %s: assume may use only its parameters, result, constants and functions", a.Name.Name, name)
		return false
	}
	return true
}

func (c *checker) ident(e *syntax.IdentExpr, env *env) *Expr {
	o := c.lookup(env.scope, e.Ident())
	if o == nil {
		if e.Name == "card" {
			c.errorf(e.Pos, "card is a builtin function and must be called: card(s)")
			return c.bad(e.Pos)
		}
		if t := c.symIdentity(e.Name); t != nil {
			c.errorNotes(e.Pos, []syntax.Note{note(c.global.names[t.Name].pos, "%s declared here", t.Name)},
				"%s is not a value: the identities of symmetric type %s have no literals (they print as %s1..%s%d); "+
					"use choose x in %s { ... }, or a quantifier, to name one", e.Name, t.Name, t.Name, t.Name, t.Size(), t.Name)
			return c.bad(e.Pos)
		}
		c.errorf(e.Pos, "undefined: %s%s", e.Name, didYouMean(c.suggest(e.Name, env.scope)))
		return c.bad(e.Pos)
	}
	o.used = true
	if c.dupNames[e.Name] && c.global.names[e.Name] == o {
		return c.bad(e.Pos)
	}
	switch o.kind {
	case objConst:
		v, t := c.constVal(o)
		if isInvalid(t) {
			return c.bad(e.Pos)
		}
		x := c.constExpr(t, v, e.Pos)
		x.Big = o.big
		return x
	case objMember:
		return c.constExpr(o.typ, o.val, e.Pos)
	case objConstArg:
		x := c.constExpr(o.typ, o.val, e.Pos)
		x.Big = o.big
		if o.dep {
			c.instDep[x] = true
		}
		return x
	case objIndex:
		x := c.constExpr(o.typ, int64(env.inst)+o.typ.Lo, e.Pos)
		c.instDep[x] = true
		return x
	case objType:
		c.errorf(e.Pos, "%s (type) is not an expression", e.Name)
	case objFn:
		c.errorf(e.Pos, "fn %s must be called: %s(...)", e.Name, e.Name)
	case objAgent:
		c.errorf(e.Pos, "agent %s is not a value: ask it with let x = ask %s(...)", e.Name, e.Name)
	case objProcess:
		c.errorf(e.Pos, "process %s is not a value", e.Name)
	case objVar:
		if !c.stateAccess(e.Pos, e.Name, env) || isInvalid(o.typ) {
			return c.bad(e.Pos)
		}
		return &Expr{Op: OpVar, Type: o.typ, Slot: o.slot, Pos: e.Pos}
	case objLocalVar:
		if !c.stateAccess(e.Pos, e.Name, env) || isInvalid(o.typ) {
			return c.bad(e.Pos)
		}
		return &Expr{Op: OpVar, Type: o.typ, Slot: o.slot + env.inst*o.typ.Width, Pos: e.Pos}
	case objLet, objBound:
		if o.kind == objLet && o.slot < env.pastMark {
			c.errorf(e.Pos, "cannot use %s inside %s: it is a let binding, whose past values are not kept (only state variables, constants and variables bound by forall, exists, count or choose may appear)", e.Name, env.pastOp)
			return c.bad(e.Pos)
		}
		if env.kind == uConst {
			c.errorf(e.Pos, "%s is not constant (it is a %s)", e.Name, o.what)
			return c.bad(e.Pos)
		}
		if isInvalid(o.typ) {
			return c.bad(e.Pos)
		}
		return &Expr{Op: OpLocal, Type: o.typ, Slot: o.slot, Pos: e.Pos}
	}
	return c.bad(e.Pos)
}

// constVal resolves a const declaration, once.
func (c *checker) constVal(o *object) (int64, *Type) {
	switch o.state {
	case 2:
		return o.val, o.typ
	case 1:
		c.errorf(o.pos, "invalid constant cycle: %s refers to itself", o.name)
		o.typ = c.tInvalid
		o.state = 2
		return 0, c.tInvalid
	}
	o.state = 1
	x := c.expr(o.cdecl.Value, c.globalEnv(), nil)
	if o.state == 2 {
		return o.val, o.typ
	}
	o.state = 2
	o.typ = c.tInvalid
	if isInvalid(x.Type) {
		return 0, c.tInvalid
	}
	if x.Op != OpConst || !(isInt(x.Type) || x.Type.Kind == BoolKind) {
		c.errorf(o.cdecl.Value.Position(), "const %s must be an integer constant, not %s (type %s)", o.name, exprString(o.cdecl.Value), typeString(x.Type))
		return 0, c.tInvalid
	}
	o.val, o.big = x.Val, x.Big
	o.typ = c.tInt
	if x.Type.Kind == BoolKind {
		o.typ = c.tBool
	}
	if v, ok := c.opts.Defines[o.name]; ok {
		if o.typ.Kind == BoolKind && v != 0 && v != 1 {
			c.errorf(o.pos, "-D %s=%d: %s is a bool constant (use 0 or 1)", o.name, v, o.name)
		}
		o.val, o.big = v, nil
	}
	if v, ok := c.opts.BigDefines[o.name]; ok && v != nil {
		if o.typ.Kind == BoolKind {
			c.errorf(o.pos, "-D %s=%s: %s is a bool constant (use 0 or 1)", o.name, v, o.name)
		}
		k := bigConst(o.typ, new(big.Int).Set(v), o.pos)
		o.val, o.big = k.Val, k.Big
	}
	return o.val, o.typ
}

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

// symIdentity returns the symmetric type whose identity would print as
// name (Person2 for Person), or nil.
func (c *checker) symIdentity(name string) *Type {
	for _, o := range c.types {
		if o.state != 2 || o.typ == nil || o.typ.Kind != SymmetricKind || o.typ.Name != o.name {
			continue
		}
		rest, ok := strings.CutPrefix(name, o.name)
		if !ok || rest == "" || strings.Trim(rest, "0123456789") != "" {
			continue
		}
		return o.typ
	}
	return nil
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
		}
		x := c.expr(e.X, env, elemWant)
		if isInvalid(x.Type) || isInvalid(y.Type) {
			return c.bad(e.Pos)
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

func unparen(e syntax.Expr) syntax.Expr {
	for {
		p, ok := e.(*syntax.ParenExpr)
		if !ok {
			return e
		}
		e = p.X
	}
}

func (c *checker) index(e *syntax.IndexExpr, env *env) *Expr {
	env = env.flat()
	if id, ok := unparen(e.X).(*syntax.IdentExpr); ok {
		if o := c.lookup(env.scope, id.Ident()); o != nil && o.kind == objProcess {
			c.errorf(e.Pos, "%s is a process, not a value: read its locals as %s.x", exprString(e), exprString(e))
			return c.bad(e.Pos)
		}
	}
	return c.indexInto(c.expr(e.X, env, nil), e, env)
}

// indexInto checks e.Index against the array x (e.X already checked, as a
// value or as an assignment target) and builds the element access.
func (c *checker) indexInto(x *Expr, e *syntax.IndexExpr, env *env) *Expr {
	if isInvalid(x.Type) {
		c.expr(e.Index, env, nil)
		return c.bad(e.Pos)
	}
	if x.Type.Kind != ArrayKind {
		c.expr(e.Index, env, nil)
		c.errorf(e.Pos, "invalid operation: cannot index %s (type %s)", exprString(e.X), typeString(x.Type))
		return c.bad(e.Pos)
	}
	i := c.expr(e.Index, env, x.Type.Index)
	if isInvalid(i.Type) {
		return c.bad(e.Pos)
	}
	if !assignableTo(i.Type, x.Type.Index) {
		c.errorf(e.Index.Position(), "cannot use %s (type %s) as %s value in index of %s", exprString(e.Index), typeString(i.Type), typeString(x.Type.Index), exprString(e.X))
		return c.bad(e.Pos)
	}
	return &Expr{Op: OpIndex, Type: x.Type.Elem, Args: []*Expr{x, i}, Pos: e.Pos}
}

func (c *checker) selector(e *syntax.SelectorExpr, env *env) *Expr {
	env = env.flat()
	// P.x and P[v].x
	switch x := unparen(e.X).(type) {
	case *syntax.IdentExpr:
		if o := c.lookup(env.scope, x.Ident()); o != nil && o.kind == objProcess {
			o.used = true
			return c.procLocal(e, o.proc, nil, env)
		}
	case *syntax.IndexExpr:
		if id, ok := unparen(x.X).(*syntax.IdentExpr); ok {
			if o := c.lookup(env.scope, id.Ident()); o != nil && o.kind == objProcess {
				o.used = true
				return c.procLocal(e, o.proc, x.Index, env)
			}
		}
	}
	x := c.expr(e.X, env, nil)
	if isInvalid(x.Type) {
		return x
	}
	if x.Type.Kind != RecordKind {
		c.errorf(e.Field.Pos, "%s.%s undefined (type %s has no field %s)", exprString(e.X), e.Field.Name, typeString(x.Type), e.Field.Name)
		return c.bad(e.Pos)
	}
	f := x.Type.FieldByName(e.Field.Name)
	if f == nil {
		names := make([]string, len(x.Type.Fields))
		for i, f := range x.Type.Fields {
			names[i] = f.Name
		}
		c.errorf(e.Field.Pos, "%s.%s undefined (type %s has no field %s)%s", exprString(e.X), e.Field.Name, typeString(x.Type), e.Field.Name, didYouMean(nearest(e.Field.Name, names)))
		return c.bad(e.Pos)
	}
	c.useField(&e.Field, f)
	return &Expr{Op: OpField, Type: f.Type, Args: []*Expr{x}, Val: int64(f.Offset), Pos: e.Pos}
}

func nearest(name string, names []string) string {
	best, bestD := "", 3
	for _, n := range names {
		if d := editDistance(name, n); d < bestD {
			best, bestD = n, d
		}
	}
	return best
}

// procLocal lowers P.x (idx nil) or P[idx].x.
func (c *checker) procLocal(e *syntax.SelectorExpr, p *procInfo, idx syntax.Expr, env *env) *Expr {
	o := p.scope.names[e.Field.Name]
	if o == nil || o.kind != objLocalVar {
		names := make([]string, len(p.locals))
		for i, l := range p.locals {
			names[i] = l.name
		}
		c.errorf(e.Field.Pos, "process %s has no variable %s%s", p.name, e.Field.Name, didYouMean(nearest(e.Field.Name, names)))
		c.resolveOnly(env, idx)
		return c.bad(e.Pos)
	}
	c.use(&e.Field, o)
	o.used = true
	if p.idxType == nil && idx != nil {
		c.errorf(e.Pos, "process %s is not a family: write %s.%s", p.name, p.name, e.Field.Name)
		c.resolveOnly(env, idx)
		return c.bad(e.Pos)
	}
	if p.idxType != nil && idx == nil {
		c.errorf(e.Pos, "%s is a family of processes: write %s[v].%s", p.name, p.name, e.Field.Name)
		return c.bad(e.Pos)
	}
	name := exprString(e)
	if !c.stateAccess(e.Pos, name, env) || isInvalid(o.typ) {
		if idx != nil {
			c.expr(idx, env, nil)
		}
		return c.bad(e.Pos)
	}
	if idx == nil {
		return &Expr{Op: OpVar, Type: o.typ, Slot: o.slot, Pos: e.Pos}
	}
	if isInvalid(p.idxType) {
		return c.bad(e.Pos)
	}
	v := c.expr(idx, env, p.idxType)
	if isInvalid(v.Type) {
		return c.bad(e.Pos)
	}
	if !assignableTo(v.Type, p.idxType) {
		c.errorf(idx.Position(), "cannot use %s (type %s) as %s value in index of process family %s", exprString(idx), typeString(v.Type), typeString(p.idxType), p.name)
		return c.bad(e.Pos)
	}
	if v.Op == OpConst && v.Val >= p.idxType.Lo && v.Val <= p.idxType.Hi {
		k := int(v.Val - p.idxType.Lo)
		return &Expr{Op: OpVar, Type: o.typ, Slot: o.slot + k*o.typ.Width, Pos: e.Pos}
	}
	if v.Op == OpConst && !c.instDep[v] {
		c.errorf(idx.Position(), "index %s out of range for process family %s (%s)", exprString(idx), p.name, typeString(p.idxType))
		return c.bad(e.Pos)
	}
	arr := &Type{Kind: ArrayKind, Index: p.idxType, Elem: o.typ, Width: p.n * o.typ.Width}
	base := &Expr{Op: OpVar, Type: arr, Slot: o.slot, Pos: e.Pos}
	return &Expr{Op: OpIndex, Type: o.typ, Args: []*Expr{base, v}, Pos: e.Pos}
}

func (c *checker) call(e *syntax.CallExpr, env *env) *Expr {
	env = env.flat()
	o := c.lookup(env.scope, &e.Fn)
	if o == nil && e.Fn.Name == "card" {
		c.useBuiltin(&e.Fn)
		if len(e.Args) != 1 {
			for _, a := range e.Args {
				c.expr(a, env, nil)
			}
			c.errorf(e.Pos, "card takes exactly one set argument, not %d", len(e.Args))
			return c.bad(e.Pos)
		}
		x := c.expr(e.Args[0], env, nil)
		if isInvalid(x.Type) {
			return c.bad(e.Pos)
		}
		if x.Type.Kind != SetKind {
			c.errorf(e.Args[0].Position(), "invalid argument: %s (type %s) for card: not a set", exprString(e.Args[0]), typeString(x.Type))
			return c.bad(e.Pos)
		}
		return c.fold(&Expr{Op: OpCard, Type: c.tInt, Args: []*Expr{x}, Pos: e.Pos})
	}
	if o == nil {
		for _, a := range e.Args {
			c.expr(a, env, nil)
		}
		c.errorf(e.Fn.Pos, "undefined: %s%s", e.Fn.Name, didYouMean(c.suggestKind(e.Fn.Name, objFn)))
		return c.bad(e.Pos)
	}
	o.used = true
	switch o.kind {
	case objFn:
	case objAgent:
		c.errorf(e.Pos, "cannot call agent %s like a function: use let x = ask %s(...)", o.name, o.name)
		return c.bad(e.Pos)
	default:
		c.errorf(e.Fn.Pos, "invalid operation: cannot call non-function %s", o.name)
		return c.bad(e.Pos)
	}
	fi := o.fn
	c.checkFnSig(fi)
	c.checkFnBody(fi)
	if fi.readsState != "" {
		switch env.kind {
		case uConst:
			c.errorf(e.Pos, "%s is not constant: fn %s reads state variable %s", exprString(e), o.name, fi.readsState)
			c.resolveOnly(env, e.Args...)
			return c.bad(e.Pos)
		case uAssume:
			a := env.agent.decl
			c.errorNotes(e.Pos, []syntax.Note{note(a.ParamsPos, "%s's parameters are declared here", a.Name.Name)},
				"agent %s cannot see state variable %s (read by fn %s): assume may use only its parameters, result, constants and functions", a.Name.Name, fi.readsState, o.name)
			c.resolveOnly(env, e.Args...)
			return c.bad(e.Pos)
		case uFn:
			if env.fn != nil && env.fn.readsState == "" {
				env.fn.readsState = fi.readsState
			}
		}
	}
	args, ok := c.args(e.Args, fi.params, len(fi.decl.Params), e.Pos, env, "call to "+o.name, "argument to "+o.name)
	if !ok {
		return c.bad(e.Pos)
	}
	if fi.bad || isInvalid(fi.result) {
		return c.bad(e.Pos)
	}
	return c.inline(fi, args, e.Pos)
}

// maxInline bounds the nesting of inlined fn calls.
const maxInline = 200

// maxInlined bounds the number of fn calls inlined in one spec.
const maxInlined = 1 << 18

// maxExpanded bounds the number of operators (expressions) that the fn
// calls of one spec expand to, all calls together: a step budget that
// bounds the time and memory of the expansion, whose size is the product
// of the bodies' sizes along a chain of calls.
const maxExpanded = 1 << 19

// inline expands a call of fi: parameters bound to constants are
// substituted, the others are stored in fresh frame slots by an OpLet.
func (c *checker) inline(fi *fnInfo, args []*Expr, pos Position) *Expr {
	if c.inlined++; c.inlined > maxInlined {
		if c.inlined == maxInlined+1 {
			q := c.quiet
			c.quiet = 0
			c.errorf(pos, "fn calls expand to too large a program (more than %d inlined calls)", maxInlined)
			c.quiet = q
		}
		return c.bad(pos)
	}
	if c.expanded > maxExpanded {
		return c.bad(pos) // reported at the outermost call being expanded
	}
	if c.inlineDep >= maxInline {
		q := c.quiet
		c.quiet = 0
		c.errorf(pos, "fn calls nested too deeply (more than %d)", maxInline)
		c.quiet = q
		return c.bad(pos)
	}
	c.inlineDep++
	defer func() { c.inlineDep-- }()
	sc := newScope(c.global)
	var binds []int
	var vals []*Expr
	for i, p := range fi.decl.Params {
		t := fi.params[i]
		a := args[i]
		o := &object{name: p.Name.Name, pos: p.Name.Pos, typ: t, used: true}
		c.def(o, &p.Name, ObjParam, p, nil)
		if a.Op == OpConst && t.IsScalar() {
			// The body was checked for every value of the parameter's
			// type, so the constant must not turn its range checks into
			// errors (reported nowhere: the inlined body is quiet), as a
			// family index does not: they are left to run time.
			o.kind = objConstArg
			o.val, o.big = a.Val, a.Big
			o.dep = true
		} else {
			o.kind = objBound
			o.what = "parameter"
			o.slot = c.alloc(t.Width)
			binds = append(binds, o.slot)
			vals = append(vals, a)
		}
		sc.names[o.name] = o
	}
	c.quiet++
	body := c.expr(fi.decl.Body, &env{kind: uFn, scope: sc, fn: fi, where: "fn " + fi.obj.name}, fi.result)
	c.quiet--
	if c.expanded > maxExpanded && c.inlineDep == 1 && !c.expandReported {
		c.expandReported = true
		q := c.quiet
		c.quiet = 0
		c.errorf(pos, "fn calls expand to too large a program (more than %d operators once every call is expanded)", maxExpanded)
		c.quiet = q
	}
	if isInvalid(body.Type) {
		return c.bad(pos)
	}
	if body.Op == OpConst {
		return &Expr{Op: OpConst, Type: fi.result, Val: body.Val, Big: body.Big, Pos: pos}
	}
	if len(binds) == 0 {
		if body.Type != fi.result && (isInt(fi.result) || identical(body.Type, fi.result)) {
			cp := *body
			cp.Type = fi.result
			body = &cp
		}
		return body
	}
	return &Expr{Op: OpLet, Type: fi.result, Binds: binds, Args: append(vals, body), Pos: pos}
}

// alloc reserves w frame slots. Within a unit, slots are never reused:
// the engine evaluates OpLet bindings one after the other and may refer to
// a compound value in place, so two live expressions must not share a slot.
func (c *checker) alloc(w int) int {
	s := c.frameTop
	c.frameTop += w
	if c.frameTop > c.frameMax {
		c.frameMax = c.frameTop
	}
	return s
}

// assignable reports whether x may be stored in a location of type t,
// reporting the error otherwise. A constant outside a range is an error.
func (c *checker) assignable(x *Expr, t *Type, src syntax.Expr, context string) bool {
	if isInvalid(x.Type) || isInvalid(t) {
		return false
	}
	if !assignableTo(x.Type, t) {
		c.errorf(src.Position(), "cannot use %s (type %s) as %s value in %s", exprString(src), typeString(x.Type), typeString(t), context)
		return false
	}
	if x.Op == OpConst && t.Kind == RangeKind && !c.instDep[x] && (x.Big != nil || x.Val < t.Lo || x.Val > t.Hi) {
		c.errorf(src.Position(), "cannot use %s (constant %s) as %s value in %s (out of range %d..%d)", exprString(src), x.BigVal(), typeString(t), context, t.Lo, t.Hi)
		return false
	}
	return true
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

// domain resolves the domain of a quantifier or choose: a finite type, or
// a set-valued expression (then set is non-nil and dom its element type).
func (c *checker) domain(te syntax.TypeExpr, env *env) (dom *Type, set *Expr) {
	if et, ok := te.(*syntax.EnumType); ok {
		// `forall c in {red, green}`: the listed values, not a new enum
		lit := &syntax.SetLit{Pos: et.Pos}
		for i := range et.Members {
			// the members' own identifiers, so that their uses are recorded
			lit.Elems = append(lit.Elems, (*syntax.IdentExpr)(&et.Members[i]))
		}
		x := c.setLit(lit, env.flat(), nil)
		if isInvalid(x.Type) {
			return c.tInvalid, nil
		}
		return x.Type.Elem, x
	}
	if nt, ok := te.(*syntax.NamedType); ok {
		o := c.lookup(env.scope, nt.Ident())
		if o != nil && o.kind != objType {
			x := c.expr((*syntax.IdentExpr)(nt), env.flat(), nil)
			if isInvalid(x.Type) {
				return c.tInvalid, nil
			}
			if x.Type.Kind != SetKind {
				c.errorf(nt.Pos, "cannot range over %s (type %s): need a finite type or a set", nt.Name, typeString(x.Type))
				return c.tInvalid, nil
			}
			return x.Type.Elem, x
		}
	}
	t := c.resolveType(te, env)
	if isInvalid(t) {
		return t, nil
	}
	if !t.IsFinite() {
		switch t.Kind {
		case SetKind, ArrayKind, RecordKind:
			// every value of the type: subsets, arrays, records
			n, ok := DomainSize(t)
			if !ok {
				c.errorf(te.Position(), "cannot range over %s: its values are not enumerable", typeString(t))
				return c.tInvalid, nil
			}
			if n > MaxDomainValues {
				c.errorf(te.Position(), "cannot range over %s: it has more than %d values", typeString(t), MaxDomainValues)
				return c.tInvalid, nil
			}
			return t, nil
		}
		c.errorf(te.Position(), "cannot range over %s: need bool, a range, an enum, a symmetric type, a set, or a set, array or record type", typeString(t))
		return c.tInvalid, nil
	}
	return t, nil
}

// domainSize returns the number of values a quantifier or choose over
// dom ranges over.
func domainSize(dom *Type) int64 {
	if dom.IsFinite() {
		return dom.Size()
	}
	n, _ := DomainSize(dom)
	return n
}

func (c *checker) quant(e *syntax.QuantExpr, env *env) *Expr {
	if e.Kind.IsAggregate() {
		return c.aggregate(e, env)
	}
	if e.Kind == syntax.Count {
		env = env.flat()
	}
	dom, set := c.domain(e.Domain, env)
	sc := newScope(env.scope)
	o := &object{kind: objBound, name: e.Var.Name, pos: e.Var.Pos, typ: dom, what: "quantified variable", used: true}
	c.def(o, &e.Var, ObjQuant, e, nil)
	c.openScope(sc, e, e.Pos, exprEnd(e.Body))
	if !isInvalid(dom) {
		o.slot = c.alloc(max(1, dom.Width))
		if !dom.IsFinite() {
			// over a set, array or record type: a state expression (the
			// LTL translation expands only quantifiers over scalar types)
			env = env.flat()
		}
	}
	c.declare(sc, o)
	body := c.boolExpr(e.Body, env.with(sc), "body of "+e.Kind.String())
	if isInvalid(dom) || isInvalid(body.Type) {
		return c.bad(e.Pos)
	}
	if set != nil {
		in := c.inSet(&Expr{Op: OpLocal, Type: dom, Slot: o.slot, Pos: e.Pos}, set, e.Pos)
		op := OpAnd
		if e.Kind == syntax.Forall {
			op = OpImplies
		}
		body = &Expr{Op: op, Type: c.tBool, Args: []*Expr{in, body}, Pos: e.Pos}
	}
	op, t := OpForall, c.tBool
	switch e.Kind {
	case syntax.Exists:
		op = OpExists
	case syntax.Count:
		op, t = OpCount, c.tInt
	}
	if size := domainSize(dom); size <= 0 || body.Op == OpConst {
		// an empty domain (0..i-1 in instance 0), or a constant body
		v := int64(0)
		switch {
		case size <= 0:
			v = boolInt(op == OpForall)
		case op == OpCount:
			v = body.Val * size
		default:
			v = body.Val
		}
		x := c.constExpr(t, v, e.Pos)
		c.instDep[x] = true
		return x
	}
	return &Expr{Op: op, Type: t, Args: []*Expr{body}, Slot: o.slot, Dom: dom, Pos: e.Pos}
}

func (c *checker) setLit(e *syntax.SetLit, env *env, want *Type) *Expr {
	env = env.flat()
	var elem *Type
	if want != nil && want.Kind == SetKind {
		elem = want.Elem
	}
	elems := make([]*Expr, len(e.Elems))
	bad := false
	for i, el := range e.Elems {
		elems[i] = c.expr(el, env, elem)
		if isInvalid(elems[i].Type) {
			bad = true
		}
	}
	if bad {
		return c.bad(e.Pos)
	}
	if elem == nil {
		elem = c.inferElem(e, elems)
		if elem == nil {
			return c.bad(e.Pos)
		}
	}
	st := &Type{Kind: SetKind, Elem: elem, Width: 1}
	if want != nil && want.Kind == SetKind {
		st = want
	}
	mask := int64(0)
	allConst := true
	for i, x := range elems {
		if !c.assignable(x, elem, e.Elems[i], "set literal") {
			bad = true
			continue
		}
		if x.Op == OpConst {
			if x.Val < elem.Lo || x.Val > elem.Hi {
				allConst = false // instance-dependent: checked at runtime
				continue
			}
			mask |= 1 << (x.Val - elem.Lo)
		} else {
			allConst = false
		}
	}
	if bad {
		return c.bad(e.Pos)
	}
	if allConst {
		return c.constExpr(st, mask, e.Pos)
	}
	return &Expr{Op: OpSetLit, Type: st, Args: elems, Pos: e.Pos}
}

// inferElem infers the element type of a set literal without context.
func (c *checker) inferElem(e *syntax.SetLit, elems []*Expr) *Type {
	if len(elems) == 0 {
		c.errorf(e.Pos, "cannot infer the type of the empty set literal {}: use it where a set type is expected")
		return nil
	}
	first := elems[0].Type
	if !isInt(first) {
		for i, x := range elems[1:] {
			if !identical(x.Type, first) {
				c.errorf(e.Elems[i+1].Position(), "mismatched types %s and %s in set literal", typeString(first), typeString(x.Type))
				return nil
			}
		}
		if !first.IsFinite() {
			c.errorf(e.Pos, "invalid set element type %s: must be bool, a range, an enum or a symmetric type", typeString(first))
			return nil
		}
		return first
	}
	lo, hi := int64(1<<62), int64(-1<<62)
	for i, x := range elems {
		switch {
		case !isInt(x.Type):
			c.errorf(e.Elems[i].Position(), "mismatched types %s and %s in set literal", typeString(first), typeString(x.Type))
			return nil
		case x.Big != nil:
			c.errorf(e.Elems[i].Position(), "set element %s (constant %s) does not fit a 64-bit integer", exprString(e.Elems[i]), x.Big)
			return nil
		case x.Op == OpConst:
			lo, hi = min(lo, x.Val), max(hi, x.Val)
		case x.Type.Kind == RangeKind:
			lo, hi = min(lo, x.Type.Lo), max(hi, x.Type.Hi)
		default:
			c.errorf(e.Pos, "cannot infer the element type of set literal %s: use it where a set type is expected", exprString(e))
			return nil
		}
	}
	if hi-lo+1 > 64 || hi-lo+1 <= 0 {
		c.errorf(e.Pos, "set literal %s spans %d..%d: a set may have at most 64 values", exprString(e), lo, hi)
		return nil
	}
	return &Type{Kind: RangeKind, Lo: lo, Hi: hi, Width: 1}
}

func (c *checker) recordLit(e *syntax.RecordLit, env *env, want *Type) *Expr {
	env = env.flat()
	if want == nil || want.Kind != RecordKind {
		for _, f := range e.Fields {
			c.expr(f.Value, env, nil)
		}
		if want == nil || isInvalid(want) {
			if want == nil {
				c.errorf(e.Pos, "cannot infer the type of record literal %s: use it where a record type is expected", exprString(e))
			}
			return c.bad(e.Pos)
		}
		c.errorf(e.Pos, "cannot use record literal %s as %s value", exprString(e), typeString(want))
		return c.bad(e.Pos)
	}
	vals := make([]*Expr, len(want.Fields))
	given := map[string]Position{}
	bad := false
	for _, fi := range e.Fields {
		f := want.FieldByName(fi.Name.Name)
		c.useField(&fi.Name, f)
		if f == nil {
			c.expr(fi.Value, env, nil)
			names := make([]string, len(want.Fields))
			for i, f := range want.Fields {
				names[i] = f.Name
			}
			c.errorf(fi.Name.Pos, "unknown field %s in record literal of type %s%s", fi.Name.Name, typeString(want), didYouMean(nearest(fi.Name.Name, names)))
			bad = true
			continue
		}
		if prev, ok := given[f.Name]; ok {
			c.expr(fi.Value, env, nil)
			c.errorNotes(fi.Name.Pos, []syntax.Note{note(prev, "first value of %s", f.Name)}, "duplicate field %s in record literal", f.Name)
			bad = true
			continue
		}
		given[f.Name] = fi.Name.Pos
		x := c.expr(fi.Value, env, f.Type)
		if !c.assignable(x, f.Type, fi.Value, "field "+f.Name+" of record literal") {
			bad = true
			continue
		}
		for i, g := range want.Fields {
			if g == f {
				vals[i] = x
			}
		}
	}
	if bad {
		return c.bad(e.Pos)
	}
	var missing []string
	for i, f := range want.Fields {
		if vals[i] == nil {
			missing = append(missing, f.Name)
		}
	}
	if len(missing) > 0 {
		s := "field"
		if len(missing) > 1 {
			s = "fields"
		}
		c.errorf(e.Pos, "missing %s %s in record literal of type %s", s, strings.Join(missing, ", "), typeString(want))
		return c.bad(e.Pos)
	}
	return &Expr{Op: OpRecordLit, Type: want, Args: vals, Pos: e.Pos}
}

// exprString prints an expression for messages.
func exprString(e syntax.Expr) string {
	var b strings.Builder
	writeExpr(&b, e)
	s := b.String()
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return s
}

func writeExpr(b *strings.Builder, e syntax.Expr) {
	switch e := e.(type) {
	case *syntax.ParenExpr:
		b.WriteByte('(')
		writeExpr(b, e.X)
		b.WriteByte(')')
	case *syntax.IntLit:
		if e.Huge {
			b.WriteString(e.Text)
			break
		}
		b.WriteString(strconv.FormatInt(e.Value, 10))
	case *syntax.BoolLit:
		b.WriteString(strconv.FormatBool(e.Value))
	case *syntax.IdentExpr:
		b.WriteString(e.Name)
	case *syntax.UnaryExpr:
		b.WriteString(e.Op.String())
		if e.Op != syntax.Neg {
			b.WriteByte(' ')
		}
		writeExpr(b, e.X)
	case *syntax.BinaryExpr:
		writeExpr(b, e.X)
		b.WriteString(" " + e.Op.String() + " ")
		writeExpr(b, e.Y)
	case *syntax.IndexExpr:
		writeExpr(b, e.X)
		b.WriteByte('[')
		writeExpr(b, e.Index)
		b.WriteByte(']')
	case *syntax.SelectorExpr:
		writeExpr(b, e.X)
		b.WriteString("." + e.Field.Name)
	case *syntax.CallExpr:
		b.WriteString(e.Fn.Name)
		writeArgs(b, e.Args)
	case *syntax.AskExpr:
		b.WriteString("ask " + e.Agent.Name)
		writeArgs(b, e.Args)
	case *syntax.CondExpr:
		b.WriteString("if ")
		writeExpr(b, e.Cond)
		b.WriteString(" then ")
		writeExpr(b, e.Then)
		b.WriteString(" else ")
		writeExpr(b, e.Else)
	case *syntax.QuantExpr:
		b.WriteString(e.Kind.String() + " " + e.Var.Name + " in ")
		writeType(b, e.Domain)
		b.WriteString(": ")
		writeExpr(b, e.Body)
	case *syntax.ArrayLit:
		b.WriteByte('[')
		for i, x := range e.Elems {
			if i > 0 {
				b.WriteString(", ")
			}
			writeExpr(b, x)
		}
		b.WriteByte(']')
	case *syntax.ArrayComp:
		b.WriteString("[" + e.Var.Name + " in ")
		writeType(b, e.Domain)
		b.WriteString(": ")
		writeExpr(b, e.Body)
		b.WriteByte(']')
	case *syntax.SetLit:
		b.WriteByte('{')
		for i, x := range e.Elems {
			if i > 0 {
				b.WriteString(", ")
			}
			writeExpr(b, x)
		}
		b.WriteByte('}')
	case *syntax.RecordLit:
		b.WriteString("record {")
		for i, f := range e.Fields {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(" " + f.Name.Name + ": ")
			writeExpr(b, f.Value)
		}
		b.WriteString(" }")
	default:
		b.WriteString("?")
	}
}

func writeArgs(b *strings.Builder, args []syntax.Expr) {
	b.WriteByte('(')
	for i, a := range args {
		if i > 0 {
			b.WriteString(", ")
		}
		writeExpr(b, a)
	}
	b.WriteByte(')')
}

func writeType(b *strings.Builder, t syntax.TypeExpr) {
	switch t := t.(type) {
	case *syntax.NamedType:
		b.WriteString(t.Name)
	case *syntax.BoolType:
		b.WriteString("bool")
	case *syntax.RangeType:
		writeExpr(b, t.Lo)
		b.WriteString("..")
		writeExpr(b, t.Hi)
	case *syntax.EnumType:
		b.WriteByte('{')
		for i, m := range t.Members {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(m.Name)
		}
		b.WriteByte('}')
	case *syntax.SymmetricType:
		b.WriteString("symmetric ")
		writeExpr(b, t.N)
	case *syntax.ArrayType:
		b.WriteByte('[')
		writeType(b, t.Index)
		b.WriteByte(']')
		writeType(b, t.Elem)
	case *syntax.RecordType:
		b.WriteString("record { ... }")
	case *syntax.SetType:
		b.WriteString("set of ")
		writeType(b, t.Elem)
	default:
		b.WriteString("?")
	}
}

// args checks the arguments of a call or an ask against the parameter
// types (n parameters declared; params may be shorter when some failed to
// resolve). It reports a wrong argument count at pos, "in <where>", and
// each mismatched argument as a use in <what>. ok is false when
// any argument or the count is wrong.
func (c *checker) args(xs []syntax.Expr, params []*Type, n int, pos Position, env *env, where, what string) ([]*Expr, bool) {
	args := make([]*Expr, len(xs))
	ok := true
	for i, x := range xs {
		var want *Type
		if i < len(params) {
			want = params[i]
		}
		args[i] = c.expr(x, env, want)
		if isInvalid(args[i].Type) {
			ok = false
			continue
		}
		if want != nil && !isInvalid(want) && !c.assignable(args[i], want, x, what) {
			ok = false
		}
	}
	if len(xs) != n {
		which := "not enough"
		if len(xs) > n {
			which = "too many"
		}
		c.errorf(pos, "%s arguments in %s: have %d, want %d", which, where, len(xs), n)
		return nil, false
	}
	return args, ok
}
