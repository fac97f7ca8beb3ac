package spec

import (
	"math/big"
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
	if o.amb != nil {
		c.ambiguousMember(e.Pos, o)
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
		c.errorf(src.Position(), "cannot use %s (constant %s) as %s value in %s (out of range %d..%d)", exprString(src), IntString(x.BigVal()), typeString(t), context, t.Lo, t.Hi)
		return false
	}
	return true
}
