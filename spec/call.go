package spec

import (
	"github.com/wrapcheck/wrapcheck/spec/syntax"
)

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
		if x, ok := c.seqBuiltin(e, env); ok {
			return x
		}
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
