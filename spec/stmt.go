package spec

import (
	"strings"

	"github.com/wrapcheck/wrapcheck/spec/syntax"
)

// block checks and lowers a statement list in a new scope. Frame slots
// are never reused within a unit (see alloc), so the engine may branch
// (ask, choose) without saving the frame.
func (c *checker) block(b *syntax.Block, env *env) []*Stmt {
	return c.scoped(b, b.Pos, b.End, b.Stmts, env)
}

// scoped checks and lowers stmts in a new scope, opened by node and
// extending from pos to end.
func (c *checker) scoped(node any, pos, end Position, stmts []syntax.Stmt, env *env) []*Stmt {
	sc := newScope(env.scope)
	c.openScope(sc, node, pos, end)
	benv := env.with(sc)
	var out []*Stmt
	for _, s := range stmts {
		out = c.stmt(s, benv, out)
	}
	return out
}

func (c *checker) stmt(s syntax.Stmt, env *env, out []*Stmt) []*Stmt {
	c.step()
	switch s := s.(type) {
	case *syntax.Block:
		return append(out, c.block(s, env)...)
	case *syntax.SkipStmt:
		return append(out, &Stmt{Op: SSkip, Pos: s.Pos})
	case *syntax.AssignStmt:
		return c.assignStmt(s, env, out)
	case *syntax.LetStmt:
		return c.letStmt(s, env, out)
	case *syntax.ChooseStmt:
		dom, set := c.domain(s.Domain, env)
		sc := newScope(env.scope)
		o := &object{kind: objBound, name: s.Var.Name, pos: s.Var.Pos, typ: dom, what: "chosen variable", used: true}
		c.def(o, &s.Var, ObjChoose, s, nil)
		if s.Body != nil {
			c.openScope(sc, s, s.Pos, s.Body.End)
		} else {
			c.openScope(sc, s, s.Pos, c.scopeEnd(s.Pos))
		}
		o.slot = c.alloc(max(1, dom.Width))
		c.declare(sc, o)
		cenv := env.with(sc)
		var cond *Expr
		if s.Where != nil {
			cond = c.boolExpr(s.Where, cenv, "where clause of choose")
		}
		var body []*Stmt
		if s.Body != nil {
			body = c.block(s.Body, cenv)
		}
		if isInvalid(dom) {
			return out
		}
		if set != nil {
			in := c.inSet(&Expr{Op: OpLocal, Type: dom, Slot: o.slot, Pos: s.Pos}, set, s.Pos)
			if cond == nil {
				cond = in
			} else {
				cond = &Expr{Op: OpAnd, Type: c.tBool, Args: []*Expr{in, cond}, Pos: s.Pos}
			}
		}
		if cond != nil && cond.Op == OpConst && cond.Val == 1 {
			cond = nil
		}
		return append(out, &Stmt{Op: SChoose, Slot: o.slot, Dom: dom, Cond: cond, Body: body, Pos: s.Pos})
	case *syntax.ForStmt:
		return c.forStmt(s, env, out)
	case *syntax.IfStmt:
		return append(out, c.ifStmt(s, env))
	case *syntax.MatchStmt:
		return c.matchStmt(s, env, out)
	case *syntax.AssertStmt:
		cond := c.boolExpr(s.Cond, env, "condition in assert")
		return append(out, &Stmt{Op: SAssert, Cond: cond, Msg: s.Msg, Pos: s.Pos})
	}
	if s != nil {
		c.errorf(s.Position(), "unexpected statement")
	}
	return out
}

func (c *checker) ifStmt(s *syntax.IfStmt, env *env) *Stmt {
	cond := c.boolExpr(s.Cond, env, "condition in if statement")
	st := &Stmt{Op: SIf, Cond: cond, Pos: s.Pos}
	if s.Then != nil {
		st.Body = c.block(s.Then, env)
	}
	switch e := s.Else.(type) {
	case *syntax.Block:
		st.Else = c.block(e, env)
	case *syntax.IfStmt:
		st.Else = []*Stmt{c.ifStmt(e, env)}
	}
	return st
}

func (c *checker) assignStmt(s *syntax.AssignStmt, env *env, out []*Stmt) []*Stmt {
	tgt := c.target(s.Target, env)
	ctx := "assignment to " + exprString(s.Target)
	if a, ok := unparen(s.Value).(*syntax.AskExpr); ok {
		ai, args, ok := c.ask(a, env)
		if !ok || isInvalid(tgt.Type) {
			return out
		}
		if !assignableTo(ai.result, tgt.Type) {
			c.errorf(a.Pos, "cannot use %s (type %s) as %s value in %s", exprString(a), typeString(ai.result), typeString(tgt.Type), ctx)
			return out
		}
		return append(out, &Stmt{Op: SAsk, Target: tgt, Agent: ai.index, Args: args, Pos: s.Pos})
	}
	var want *Type
	if !isInvalid(tgt.Type) {
		want = tgt.Type
	}
	c.lastSeq = nil
	v := c.expr(s.Value, env.flat(), want)
	if isInvalid(tgt.Type) || isInvalid(v.Type) {
		return out
	}
	if !c.assignable(v, tgt.Type, s.Value, ctx) {
		return out
	}
	if up := c.seqUpdate(s, tgt); up != nil {
		return append(out, up...)
	}
	return append(out, &Stmt{Op: SAssign, Target: tgt, Value: v, Pos: s.Pos})
}

func (c *checker) letStmt(s *syntax.LetStmt, env *env, out []*Stmt) []*Stmt {
	o := &object{kind: objLet, name: s.Name.Name, pos: s.Name.Pos, what: "let binding", used: true}
	c.def(o, &s.Name, ObjLet, s, nil)
	defer c.declare(env.scope, o)
	if a, ok := unparen(s.Value).(*syntax.AskExpr); ok {
		ai, args, ok := c.ask(a, env)
		if !ok {
			o.typ = c.tInvalid
			return out
		}
		o.typ = ai.result
		o.slot = c.alloc(o.typ.Width)
		return append(out, &Stmt{Op: SAsk, Slot: o.slot, Agent: ai.index, Args: args, Pos: s.Pos})
	}
	v := c.expr(s.Value, env.flat(), nil)
	o.typ = v.Type
	if isInvalid(v.Type) {
		return out
	}
	if isInt(v.Type) {
		o.typ = c.tInt
	}
	o.slot = c.alloc(o.typ.Width)
	return append(out, &Stmt{Op: SLet, Slot: o.slot, Value: v, Pos: s.Pos})
}

// ask checks `ask a(args)`.
func (c *checker) ask(a *syntax.AskExpr, env *env) (*agentInfo, []*Expr, bool) {
	env = env.flat()
	o := c.lookup(env.scope, &a.Agent)
	if o == nil || o.kind != objAgent {
		for _, x := range a.Args {
			c.expr(x, env, nil)
		}
		if o == nil {
			c.errorf(a.Agent.Pos, "undefined: %s%s", a.Agent.Name, didYouMean(c.suggestKind(a.Agent.Name, objAgent)))
		} else {
			c.errorNotes(a.Agent.Pos, []syntax.Note{note(o.pos, "%s declared here", o.name)}, "cannot ask %s: it is not an agent", o.name)
		}
		return nil, nil, false
	}
	o.used = true
	ai := o.agent
	ai.asked = true
	c.checkAgentSig(ai)
	args, ok := c.args(a.Args, ai.params, len(ai.decl.Params), a.Pos, env, "ask "+o.name, "argument to agent "+o.name)
	if args == nil {
		return nil, nil, false
	}
	if isInvalid(ai.result) {
		return nil, nil, false
	}
	for _, p := range ai.params {
		if isInvalid(p) {
			return nil, nil, false
		}
	}
	return ai, args, ok
}

// target checks an assignment target and lowers it to a location.
func (c *checker) target(e syntax.Expr, env *env) *Expr {
	env = env.flat()
	switch t := unparen(e).(type) {
	case *syntax.IdentExpr:
		o := c.lookup(env.scope, t.Ident())
		if o == nil {
			return c.ident(t, env) // reports undefined
		}
		declared := []syntax.Note{note(o.pos, "%s declared here", o.name)}
		switch o.kind {
		case objVar, objLocalVar, objLet:
			return c.ident(t, env)
		case objConst, objMember, objConstArg:
			c.errorNotes(t.Pos, declared, "cannot assign to %s (%s is a constant)", t.Name, t.Name)
		case objIndex:
			c.errorNotes(t.Pos, declared, "cannot assign to %s (%s is a family index)", t.Name, t.Name)
		case objBound:
			c.errorNotes(t.Pos, declared, "cannot assign to %s (%s is a %s)", t.Name, t.Name, o.what)
		case objType:
			c.errorNotes(t.Pos, declared, "cannot assign to %s (%s is a type)", t.Name, t.Name)
		case objFn:
			c.errorNotes(t.Pos, declared, "cannot assign to %s (%s is a fn)", t.Name, t.Name)
		case objAgent:
			c.errorNotes(t.Pos, declared, "cannot assign to %s (%s is an agent)", t.Name, t.Name)
		case objProcess:
			c.errorNotes(t.Pos, declared, "cannot assign to %s (%s is a process)", t.Name, t.Name)
		}
		return c.bad(t.Pos)
	case *syntax.IndexExpr:
		if id, ok := unparen(t.X).(*syntax.IdentExpr); ok {
			if o := c.lookup(env.scope, id.Ident()); o != nil && o.kind == objProcess {
				return c.index(t, env) // reports the error
			}
		}
		return c.indexInto(c.target(t.X, env), t, env)
	case *syntax.SelectorExpr:
		switch x := unparen(t.X).(type) {
		case *syntax.IdentExpr:
			if o := c.lookup(env.scope, x.Ident()); o != nil && o.kind == objProcess {
				return c.selector(t, env)
			} else if o != nil && o.kind == objType {
				if m := c.selector(t, env); !isInvalid(m.Type) {
					c.errorf(t.Pos, "cannot assign to %s (an enum member is a constant)", exprString(t))
				}
				return c.bad(t.Pos)
			}
		case *syntax.IndexExpr:
			if id, ok := unparen(x.X).(*syntax.IdentExpr); ok {
				if o := c.lookup(env.scope, id.Ident()); o != nil && o.kind == objProcess {
					return c.selector(t, env)
				}
			}
		}
		base := c.target(t.X, env)
		if isInvalid(base.Type) {
			return base
		}
		if base.Type.Kind != RecordKind || base.Type.Seq {
			c.errorf(t.Field.Pos, "%s.%s undefined (type %s has no field %s)", exprString(t.X), t.Field.Name, typeString(base.Type), t.Field.Name)
			return c.bad(t.Pos)
		}
		f := base.Type.FieldByName(t.Field.Name)
		if f == nil {
			c.errorf(t.Field.Pos, "%s.%s undefined (type %s has no field %s)", exprString(t.X), t.Field.Name, typeString(base.Type), t.Field.Name)
			return c.bad(t.Pos)
		}
		c.useField(&t.Field, f)
		return &Expr{Op: OpField, Type: f.Type, Args: []*Expr{base}, Val: int64(f.Offset), Pos: t.Pos}
	}
	c.expr(e, env, nil)
	c.errorf(e.Position(), "cannot assign to %s (neither a variable nor a let binding)", exprString(e))
	return c.bad(e.Position())
}

func (c *checker) matchStmt(s *syntax.MatchStmt, env *env, out []*Stmt) []*Stmt {
	x := c.expr(s.X, env.flat(), nil)
	ok := !isInvalid(x.Type)
	if ok && x.Type.Kind != EnumKind && x.Type.Kind != BoolKind {
		c.errorf(s.X.Position(), "cannot match on %s (type %s): match needs an enum or bool value", exprString(s.X), typeString(x.Type))
		ok = false
	}
	st := &Stmt{Op: SMatch, Value: x, Pos: s.Pos}
	seen := map[int64]Position{}
	var elsePos Position
	for i, mc := range s.Cases {
		var body []*Stmt
		if mc.Body != nil {
			end := s.End
			if i+1 < len(s.Cases) {
				end = s.Cases[i+1].Pos
			}
			body = c.scoped(mc, mc.Pos, end, []syntax.Stmt{mc.Body}, env)
		}
		if mc.Values == nil {
			if st.HasElse {
				c.errorNotes(mc.Pos, []syntax.Note{note(elsePos, "other else here")}, "duplicate else in match")
				continue
			}
			st.HasElse = true
			elsePos = mc.Pos
			st.Else = body
			continue
		}
		cs := &Case{Body: body}
		for _, v := range mc.Values {
			var want *Type
			if ok {
				want = x.Type
			}
			ve := c.expr(v, env.constEnv(), want)
			if !ok || isInvalid(ve.Type) {
				continue
			}
			if ve.Op != OpConst {
				c.errorf(v.Position(), "match case %s is not a constant", exprString(v))
				continue
			}
			if !identical(ve.Type, x.Type) {
				c.errorf(v.Position(), "cannot use %s (type %s) as %s value in match case", exprString(v), typeString(ve.Type), typeString(x.Type))
				continue
			}
			if prev, dup := seen[ve.Val]; dup {
				c.errorNotes(v.Position(), []syntax.Note{note(prev, "previous case")}, "duplicate case %s in match", exprString(v))
				continue
			}
			seen[ve.Val] = v.Position()
			cs.Values = append(cs.Values, ve.Val)
		}
		st.Cases = append(st.Cases, cs)
	}
	if !ok {
		return out
	}
	if !st.HasElse {
		var missing []string
		for v := x.Type.Lo; v <= x.Type.Hi; v++ {
			if _, ok := seen[v]; !ok {
				missing = append(missing, valueString(x.Type, v))
			}
		}
		if len(missing) > 0 {
			c.errorf(s.Pos, "match on %s is not exhaustive: missing %s (add the cases or an else arm)", exprString(s.X), strings.Join(missing, ", "))
			return out
		}
	}
	return append(out, st)
}
