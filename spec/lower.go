package spec

import (
	"slices"
	"sort"
	"strings"

	"github.com/wrapcheck/wrapcheck/spec/syntax"
)

// resolveDecls resolves constants, types, signatures and variables, and
// lays out the state vector.
func (c *checker) resolveDecls() {
	c.checkRecursion() // before any call is inlined
	for _, o := range c.consts {
		v, t := c.constVal(o)
		if !isInvalid(t) {
			c.model.Consts = append(c.model.Consts, &Const{Name: o.name, Value: v, Big: o.big, Pos: o.pos})
		}
	}
	for _, o := range c.types {
		if t := c.typeOfDecl(o); !isInvalid(t) {
			c.model.Types = append(c.model.Types, t)
		}
	}
	for _, fi := range c.fns {
		c.checkFnSig(fi)
	}
	for _, ai := range c.agents {
		c.checkAgentSig(ai)
	}
	genv := c.globalEnv()
	for _, o := range c.vars {
		o.typ = c.resolveType(o.vdecl.Type, genv)
		c.chanPlace(o.typ, o.vdecl.Type.Position(), "variable "+o.name)
	}
	// processes: index types and local variable types
	for _, p := range c.procs {
		p.n = 1
		if p.decl == nil {
			continue
		}
		if ix := p.decl.Index; ix != nil {
			t := c.resolveType(ix.Type, genv)
			if !isInvalid(t) && !t.IsFinite() {
				c.errorf(ix.Type.Position(), "invalid family index type %s: must be bool, a range, an enum or a symmetric type", typeString(t))
				t = c.tInvalid
			}
			p.idxType = t
			if !isInvalid(t) {
				p.n = int(t.Size())
				if t.Size() > 1<<16 {
					c.errorf(ix.Type.Position(), "process family %s has too many instances (%d)", p.name, t.Size())
					p.n = 1
					p.idxType = c.tInvalid
				}
			}
			o := &object{kind: objIndex, name: ix.Name.Name, pos: ix.Name.Pos, typ: t, used: true}
			c.def(o, &ix.Name, ObjIndex, ix, p.decl)
			c.declare(p.scope, o)
		}
		for _, o := range p.locals {
			o.typ = c.noChan(c.resolveType(o.vdecl.Type, genv), o.vdecl.Type.Position(), "process local "+o.name)
		}
	}
	// process instances
	for _, p := range c.procs {
		p.first = len(c.model.Processes)
		for k := 0; k < p.n; k++ {
			ip := &Process{Name: p.name, Pos: p.pos}
			if p.idxType != nil && !isInvalid(p.idxType) {
				ip.Family = p.name
				ip.Index = p.idxType.Lo + int64(k)
				ip.IndexType = p.idxType
				ip.Name = p.name + "[" + valueString(p.idxType, ip.Index) + "]"
			}
			c.model.Processes = append(c.model.Processes, ip)
		}
	}
	// the state vector: globals, then the locals of each process,
	// variable after variable, each variable instance after instance
	addVar := func(name, local string, t *Type, proc int, pos Position) int {
		v := &Var{Name: name, Type: t, Slot: len(c.model.Slots), Process: proc, Pos: pos, Local: local}
		if proc >= 0 {
			v.Family, v.Index = c.model.Processes[proc].Family, c.model.Processes[proc].Index
		}
		c.model.Slots = flatten(t, len(c.model.Vars), c.model.Slots)
		c.model.Vars = append(c.model.Vars, v)
		return v.Slot
	}
	for _, o := range c.vars {
		if isInvalid(o.typ) {
			continue
		}
		o.slot = addVar(o.name, o.name, o.typ, -1, o.pos)
	}
	for _, p := range c.procs {
		for _, o := range p.locals {
			if isInvalid(o.typ) {
				continue
			}
			for k := 0; k < p.n; k++ {
				s := addVar(c.model.Processes[p.first+k].Name+"."+o.name, o.name, o.typ, p.first+k, o.pos)
				if k == 0 {
					o.slot = s
				}
			}
		}
	}
	// fn bodies may read global state: after the layout
	for _, fi := range c.fns {
		c.checkFnBody(fi)
	}
	for _, ai := range c.agents {
		c.lowerAgent(ai)
	}
}

// checkFnSig resolves an fn's parameter and result types, once.
func (c *checker) checkFnSig(fi *fnInfo) {
	if fi.params != nil || fi.result != nil {
		return
	}
	genv := c.globalEnv()
	fi.params = make([]*Type, len(fi.decl.Params))
	for i, p := range fi.decl.Params {
		fi.params[i] = c.noChan(c.resolveType(p.Type, genv), p.Type.Position(), "parameter "+p.Name.Name)
		if isInvalid(fi.params[i]) {
			fi.bad = true
		}
	}
	if fi.decl.Result == nil {
		fi.result = c.tInvalid
		fi.bad = true
		return
	}
	fi.result = c.noChan(c.resolveType(fi.decl.Result, genv), fi.decl.Result.Position(), "the result of "+fi.decl.Name.Name)
	if isInvalid(fi.result) {
		fi.bad = true
	}
}

// checkFnBody checks an fn body once, over its parameters only.
func (c *checker) checkFnBody(fi *fnInfo) {
	if fi.checked {
		return
	}
	fi.checked = true
	if fi.decl.Body == nil {
		fi.bad = true
		return
	}
	sc := newScope(c.global)
	c.openScope(sc, fi.decl, fi.decl.Pos, c.scopeEnd(fi.decl.Pos))
	seen := map[string]bool{}
	for i, p := range fi.decl.Params {
		o := &object{kind: objBound, name: p.Name.Name, pos: p.Name.Pos, typ: fi.params[i], what: "parameter", used: true}
		c.def(o, &p.Name, ObjParam, p, nil)
		c.declare(sc, o)
		seen[p.Name.Name] = true
	}
	top, max := c.frameTop, c.frameMax
	n := len(c.errs)
	e := &env{kind: uFn, scope: sc, fn: fi, where: "fn " + fi.obj.name}
	body := c.expr(fi.decl.Body, e, fi.result)
	if !isInvalid(body.Type) && !isInvalid(fi.result) {
		c.assignable(body, fi.result, fi.decl.Body, "result of fn "+fi.obj.name)
	}
	c.frameTop, c.frameMax = top, max
	if len(c.errs) != n || isInvalid(body.Type) {
		fi.bad = true
	}
}

// checkRecursion reports fns that call themselves, directly or not.
func (c *checker) checkRecursion() {
	calls := map[*fnInfo][]*fnInfo{}
	for _, fi := range c.fns {
		if fi.decl.Body == nil {
			continue
		}
		walkExpr(fi.decl.Body, func(e syntax.Expr) {
			if call, ok := e.(*syntax.CallExpr); ok {
				if o := c.global.names[call.Fn.Name]; o != nil && o.kind == objFn {
					calls[fi] = append(calls[fi], o.fn)
				}
			}
		})
	}
	const (
		white = iota
		grey
		black
	)
	color := map[*fnInfo]int{}
	var stack []*fnInfo
	var visit func(f *fnInfo)
	visit = func(f *fnInfo) {
		color[f] = grey
		stack = append(stack, f)
		for _, g := range calls[f] {
			switch color[g] {
			case white:
				visit(g)
			case grey:
				// the cycle is stack[i:] where stack[i] == g
				i := len(stack) - 1
				for stack[i] != g {
					i--
				}
				cyc := stack[i:]
				names := make([]string, 0, len(cyc)+1)
				for _, h := range cyc {
					names = append(names, h.obj.name)
					h.bad = true
				}
				names = append(names, g.obj.name)
				if len(cyc) == 1 {
					c.errorf(g.obj.pos, "fn %s is recursive: it calls itself", g.obj.name)
				} else {
					c.errorf(g.obj.pos, "fn %s is recursive: %s", g.obj.name, strings.Join(names, " calls "))
				}
			}
		}
		stack = stack[:len(stack)-1]
		color[f] = black
	}
	for _, fi := range c.fns {
		if color[fi] == white {
			visit(fi)
		}
	}
}

// checkAgentSig resolves an agent's parameter and result types, once.
func (c *checker) checkAgentSig(ai *agentInfo) {
	if ai.params != nil || ai.result != nil {
		return
	}
	genv := c.globalEnv()
	ai.params = make([]*Type, len(ai.decl.Params))
	for i, p := range ai.decl.Params {
		ai.params[i] = c.noChan(c.resolveType(p.Type, genv), p.Type.Position(), "parameter "+p.Name.Name)
	}
	if ai.decl.Result == nil {
		ai.result = c.tInvalid
		return
	}
	ai.result = c.noChan(c.resolveType(ai.decl.Result, genv), ai.decl.Result.Position(), "the result of "+ai.decl.Name.Name)
	if hasSeq(ai.result) {
		c.errorf(ai.decl.Result.Position(), "agent %s cannot answer a sequence (type %s): its answers are every value of the type, and a sequence's slots past its length are not free; answer its elements instead", ai.decl.Name.Name, typeString(ai.result))
		ai.result = c.tInvalid
	}
}

// lowerAgent builds the Model's Agent, with its assumption over the
// agent's own frame: the parameters, then result, then temporaries.
func (c *checker) lowerAgent(ai *agentInfo) {
	d := ai.decl
	a := &Agent{Name: d.Name.Name, Result: ai.result, Pos: d.Pos, ParamsPos: d.ParamsPos}
	c.frameTop, c.frameMax = 0, 0
	sc := newScope(c.global)
	c.openScope(sc, d, d.Pos, c.scopeEnd(d.Pos))
	for i, p := range d.Params {
		t := ai.params[i]
		a.Params = append(a.Params, t)
		o := &object{kind: objBound, name: p.Name.Name, pos: p.Name.Pos, typ: t, what: "parameter", used: true}
		c.def(o, &p.Name, ObjParam, p, nil)
		o.slot = c.alloc(t.Width)
		a.ParamSlots = append(a.ParamSlots, o.slot)
		c.declare(sc, o)
	}
	ro := &object{kind: objBound, name: "result", pos: d.Name.Pos, typ: ai.result, what: "result", used: true}
	c.def(ro, nil, ObjResult, d, nil)
	ro.slot = c.alloc(ai.result.Width)
	a.ResultSlot = ro.slot
	if _, dup := sc.names["result"]; dup {
		c.errorf(sc.names["result"].pos, "agent parameter cannot be called result: result names the answer in assume")
	} else {
		c.declare(sc, ro)
	}
	if d.Assume != nil {
		e := &env{kind: uAssume, scope: sc, agent: ai, where: "assume of agent " + a.Name}
		x := c.boolExpr(d.Assume, e, "assume of agent "+a.Name)
		if !isInvalid(x.Type) {
			if x.Op == OpConst && x.Val == 1 {
				x = nil
			}
			a.Assume = x
		}
	}
	a.Frame = c.frameMax
	c.frameTop, c.frameMax = 0, 0
	c.model.Agents = append(c.model.Agents, a)
}

// unit starts a new frame for a unit (action, init, invariant, ...).
func (c *checker) unit() { c.frameTop, c.frameMax = 0, 0 }

// endUnit records the unit's frame size.
func (c *checker) endUnit() {
	if c.frameMax > c.model.Frame {
		c.model.Frame = c.frameMax
	}
	c.frameTop, c.frameMax = 0, 0
}

// lowerAll lowers the initial statements, the actions and the checks.
func (c *checker) lowerAll() {
	m := c.model
	// start values, then init blocks
	c.unit()
	for _, o := range c.vars {
		if o.vdecl.Init == nil || isInvalid(o.typ) {
			if o.vdecl.Init != nil {
				c.expr(o.vdecl.Init, &env{kind: uState, scope: c.global, where: "initial value of " + o.name}, nil)
			}
			continue
		}
		e := &env{kind: uState, scope: c.global, where: "initial value of " + o.name}
		if s := c.startValue(o, e, o.slot, o.name); s != nil {
			m.Init = append(m.Init, s)
		}
	}
	for _, p := range c.procs {
		for _, o := range p.locals {
			if o.vdecl.Init == nil {
				continue
			}
			for k := 0; k < p.n; k++ {
				if k > 0 {
					c.quiet++
				}
				e := &env{kind: uState, scope: p.scope, proc: p, inst: k, where: "initial value of " + o.name}
				if isInvalid(o.typ) {
					c.expr(o.vdecl.Init, e, nil)
				} else if s := c.startValue(o, e, o.slot+k*o.typ.Width, m.Processes[p.first+k].Name+"."+o.name); s != nil {
					m.Init = append(m.Init, s)
				}
				if k > 0 {
					c.quiet--
				}
			}
		}
	}
	for _, d := range c.inits {
		if d.Body != nil {
			m.Init = append(m.Init, c.block(d.Body, &env{kind: uState, scope: c.global, where: "init"})...)
		}
	}
	c.endUnit()

	// actions; those on rendezvous channels run in pairs (chan.go)
	type lowered struct {
		a   *Action
		rv  *rdvAction
		pi  *procInfo
		key int // index into pi.irActs
	}
	var all []lowered
	var recvs, rvs []*rdvAction
	for _, p := range c.procs {
		p.irActs = make([][]int, p.n*len(p.actions))
		for k := 0; k < p.n; k++ {
			if k > 0 {
				c.quiet++
			}
			for j, d := range p.actions {
				a, rv := c.lowerAction(p, k, d)
				if rv != nil {
					rv.proc, rv.key = p, k*len(p.actions)+j
					rvs = append(rvs, rv)
					if rv.cm.recv {
						recvs = append(recvs, rv)
					}
				}
				all = append(all, lowered{a, rv, p, k*len(p.actions) + j})
			}
			if k > 0 {
				c.quiet--
			}
		}
	}
	for _, l := range all {
		var acts []int
		switch {
		case l.rv == nil:
			acts = []int{len(m.Actions)}
			m.Actions = append(m.Actions, l.a)
		case !l.rv.cm.recv:
			acts = c.pairs(l.rv, recvs)
		default:
			continue // in its pairs
		}
		ip := m.Processes[l.a.Process]
		ip.Actions = append(ip.Actions, acts...)
		if pi := l.pi; pi != nil {
			pi.irActs[l.key] = append(pi.irActs[l.key], acts...)
		}
	}
	c.lonely(rvs)

	for _, d := range c.invs {
		c.unit()
		x := c.boolExpr(d.Expr, &env{kind: uState, scope: c.global, where: "invariant " + d.Name.Name}, "invariant "+d.Name.Name)
		c.endUnit()
		m.Invariants = append(m.Invariants, &Invariant{Name: d.Name.Name, Expr: x, Pos: d.Pos})
	}
	for _, w := range c.opts.Watches {
		c.unit()
		x := c.expr(w, &env{kind: uState, scope: c.global, where: "watch"}, nil)
		c.endUnit()
		m.Watches = append(m.Watches, &Watch{Text: syntax.FormatExpr(w, nil), Expr: x})
	}
	for _, d := range c.props {
		c.unit()
		x := c.boolExpr(d.Formula, &env{kind: uState, scope: c.global, temporal: true, where: "property " + d.Name.Name}, "property "+d.Name.Name)
		c.endUnit()
		m.Properties = append(m.Properties, &Property{Name: d.Name.Name, Formula: x, Pos: d.Pos})
	}
	c.lowerQuant()
	var terms []*Expr
	var termAt []Position
	for _, d := range c.terms {
		c.unit()
		x := c.boolExpr(d.Expr, &env{kind: uState, scope: c.global, where: "terminal"}, "terminal condition")
		c.endUnit()
		if isInvalid(x.Type) {
			continue
		}
		if neverTrue(x) {
			c.vet.falseTerminals = append(c.vet.falseTerminals, d.Pos)
		}
		if terms == nil {
			m.TerminalPos = d.Pos
		}
		terms, termAt = append(terms, x), append(termAt, d.Pos)
	}
	if terms != nil {
		m.Terminal = c.disjunction(terms, termAt)
	}
	for _, d := range c.fairs {
		c.fairness(d)
	}
	c.lowerMonitors()
	for _, a := range m.Actions {
		c.readsWrites(a)
	}
	c.collectVet()
}

func (c *checker) startValue(o *object, e *env, slot int, name string) *Stmt {
	x := c.expr(o.vdecl.Init, e, o.typ)
	if isInvalid(x.Type) || !c.assignable(x, o.typ, o.vdecl.Init, "initial value of "+o.name) {
		return nil
	}
	return &Stmt{Op: SAssign, Target: &Expr{Op: OpVar, Type: o.typ, Slot: slot, Pos: o.pos}, Value: x, Pos: o.vdecl.Pos}
}

func (c *checker) fairness(d *syntax.FairnessDecl) {
	name := d.Process.Name
	var p *procInfo
	if name == "main" && c.main != nil {
		p = c.main
	} else if o := c.global.names[name]; o != nil && o.kind == objProcess {
		p = o.proc
		o.used = true
	}
	if p == nil {
		var names []string
		for _, q := range c.procs {
			names = append(names, q.name)
		}
		c.errorf(d.Process.Pos, "undefined process %s in fairness%s", name, didYouMean(nearest(name, names)))
		return
	}
	c.use(&d.Process, p.obj)
	f := &Fairness{Strong: d.Strong, Name: name, Pos: d.Pos}
	j := -1
	if d.Action != nil {
		f.Name += "." + d.Action.Name
		var names []string
		for i, a := range p.actions {
			names = append(names, a.Name.Name)
			if a.Name.Name == d.Action.Name {
				j = i
			}
		}
		if j < 0 {
			c.errorf(d.Action.Pos, "process %s has no action %s%s", name, d.Action.Name, didYouMean(nearest(d.Action.Name, names)))
			return
		}
		c.useDecl(d.Action, &p.actions[j].Name)
	}
	na := len(p.actions)
	for k := 0; k < p.n; k++ {
		if len(p.irActs) < (k+1)*na {
			return // an error elsewhere
		}
		acts := p.irActs[k*na : (k+1)*na]
		var u []int
		for i, a := range acts {
			if j < 0 || i == j {
				u = append(u, a...)
			}
		}
		slices.Sort(u)
		f.Units = append(f.Units, u)
	}
	c.model.Fairness = append(c.model.Fairness, f)
}

// lowerAction checks and lowers the action d of instance k of p. An
// action on a rendezvous channel comes back as rv, to run in pairs.
func (c *checker) lowerAction(p *procInfo, k int, d *syntax.ActionDecl) (a *Action, rv *rdvAction) {
	m := c.model
	c.unit()
	ip := m.Processes[p.first+k]
	a = &Action{Short: d.Name.Name, Process: p.first + k, Pos: d.Pos}
	a.Name = ip.Name + "." + d.Name.Name
	if p == c.main {
		a.Name = d.Name.Name
	}
	e := &env{kind: uState, scope: p.scope, proc: p, inst: k, where: "action " + d.Name.Name}
	if d.Guard != nil {
		g := c.boolExpr(d.Guard, &env{kind: uState, scope: p.scope, proc: p, inst: k, where: "guard of action " + d.Name.Name}, "guard of action "+d.Name.Name)
		if !(g.Op == OpConst && g.Val == 1) {
			a.Guard = g
		}
	}
	var cm *comm
	if d.Body != nil {
		stmts := d.Body.Stmts
		if s, ok := firstComm(stmts); ok {
			cm = c.commStmt(s, e)
			stmts = stmts[1:]
		}
		a.Body = c.scoped(d.Body, d.Body.Pos, d.Body.End, stmts, e)
	}
	switch {
	case cm != nil && cm.rdv:
		rv = &rdvAction{act: a, cm: cm, frame: c.frameMax}
	case cm != nil:
		c.buffered(a, cm)
	}
	c.endUnit()
	return a, rv
}

// firstComm returns the first statement of stmts when it is a channel
// operation.
func firstComm(stmts []syntax.Stmt) (*syntax.AssignStmt, bool) {
	if len(stmts) == 0 {
		return nil, false
	}
	s, ok := stmts[0].(*syntax.AssignStmt)
	return s, ok && s.Op != syntax.Assign
}

// readsWrites computes the state slots an action reads and writes.
func (c *checker) readsWrites(a *Action) {
	rs, ws := map[int]bool{}, map[int]bool{}
	if a.Guard != nil {
		readExpr(a.Guard, rs)
	}
	stmtsRW(a.Body, rs, ws)
	a.Reads, a.Writes = sortedSlots(rs), sortedSlots(ws)
}

func sortedSlots(s map[int]bool) []int {
	out := make([]int, 0, len(s))
	for k := range s {
		out = append(out, k)
	}
	sort.Ints(out)
	return out
}

func stmtsRW(ss []*Stmt, rs, ws map[int]bool) {
	for _, s := range ss {
		for _, x := range []*Expr{s.Value, s.Cond} {
			if x != nil {
				readExpr(x, rs)
			}
		}
		for _, x := range s.Args {
			readExpr(x, rs)
		}
		if s.Target != nil {
			if lo, n, state := location(s.Target); state {
				for i := lo; i < lo+n; i++ {
					ws[i] = true
				}
			}
			readPathIndexes(s.Target, rs)
		}
		stmtsRW(s.Body, rs, ws)
		stmtsRW(s.Else, rs, ws)
		for _, cs := range s.Cases {
			stmtsRW(cs.Body, rs, ws)
		}
	}
}

// location returns the slots a location expression may denote: a dynamic
// index gives the whole array, and a field or element of that the whole
// array too. state is false for frame locations and non-locations.
func location(e *Expr) (lo, n int, state bool) {
	lo, n, _, state = locate(e)
	return lo, n, state
}

func locate(e *Expr) (lo, n int, exact, state bool) {
	switch e.Op {
	case OpVar:
		return e.Slot, e.Type.Width, true, true
	case OpField:
		lo, n, exact, st := locate(e.Args[0])
		if !st || !exact {
			return lo, n, exact, st
		}
		return lo + int(e.Val), e.Type.Width, true, true
	case OpIndex:
		lo, n, exact, st := locate(e.Args[0])
		if !st || !exact {
			return lo, n, exact, st
		}
		at := e.Args[0].Type
		if i := e.Args[1]; i.Op == OpConst && i.Val >= at.Index.Lo && i.Val <= at.Index.Hi {
			return lo + int(i.Val-at.Index.Lo)*at.Elem.Width, at.Elem.Width, true, true
		}
		return lo, n, false, true
	}
	return 0, 0, false, false
}

// readPathIndexes records the reads of the index expressions of a location.
func readPathIndexes(e *Expr, rs map[int]bool) {
	switch e.Op {
	case OpField:
		readPathIndexes(e.Args[0], rs)
	case OpIndex:
		readPathIndexes(e.Args[0], rs)
		readExpr(e.Args[1], rs)
	}
}

func readExpr(e *Expr, rs map[int]bool) {
	Walk(e, func(x *Expr) bool {
		if !x.IsLocation() {
			return true
		}
		if lo, n, state := location(x); state {
			for i := lo; i < lo+n; i++ {
				rs[i] = true
			}
		}
		readPathIndexes(x, rs)
		return false
	})
}

// walkExpr calls f for e and every expression inside it.
func walkExpr(e syntax.Expr, f func(syntax.Expr)) {
	if e == nil {
		return
	}
	f(e)
	switch e := e.(type) {
	case *syntax.ParenExpr:
		walkExpr(e.X, f)
	case *syntax.UnaryExpr:
		walkExpr(e.X, f)
	case *syntax.BinaryExpr:
		walkExpr(e.X, f)
		walkExpr(e.Y, f)
	case *syntax.IndexExpr:
		walkExpr(e.X, f)
		walkExpr(e.Index, f)
	case *syntax.SelectorExpr:
		walkExpr(e.X, f)
	case *syntax.CallExpr:
		for _, a := range e.Args {
			walkExpr(a, f)
		}
	case *syntax.AskExpr:
		for _, a := range e.Args {
			walkExpr(a, f)
		}
	case *syntax.CondExpr:
		walkExpr(e.Cond, f)
		walkExpr(e.Then, f)
		walkExpr(e.Else, f)
	case *syntax.QuantExpr:
		walkExpr(e.Body, f)
	case *syntax.SetLit:
		for _, a := range e.Elems {
			walkExpr(a, f)
		}
	case *syntax.RecordLit:
		for _, fi := range e.Fields {
			walkExpr(fi.Value, f)
		}
	case *syntax.ArrayLit:
		for _, a := range e.Elems {
			walkExpr(a, f)
		}
	case *syntax.ArrayComp:
		walkExpr(e.Body, f)
	}
}
