package spec

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/wrapcheck/wrapcheck/spec/syntax"
)

// This file lowers the past-time operators (once, historically,
// previously, since) to monitors: hidden state variables that hold the
// value of each past-time subformula at the current state, updated on
// every transition from the pre-state's monitors and the new state (the
// construction of Havelund and Roşu, "Synthesizing monitors for safety
// properties", TACAS 2002).
//
// A subformula that reads variables bound around it (quantified, chosen)
// becomes an array variable indexed by their types, read at the bound
// values; its update runs for every index value. Updates run in creation
// order, which is bottom-up (an operand is lowered before the operator
// that holds it), at the end of init and of every action branch:
//
//	once φ:         m := φ or m          (init: m := φ)
//	historically φ: m := φ and m         (init: m := φ)
//	φ since ψ:      m := ψ or (φ and m)  (init: m := ψ)
//	previously φ:   m := φ(pre-state)    (init: m := false)
//
// For previously, φ is evaluated at the start of the action body, into a
// frame slot, and stored at the end. Monitors that no lowered expression
// reads (folded away) are dropped, and two instances of the same
// subformula share one monitor, so that every monitor bit is a distinct
// subformula instance.

// PastKind is the operator of a [Monitor].
type PastKind uint8

// Past-time operators.
const (
	PastOnce PastKind = iota
	PastHistorically
	PastPreviously
	PastSince
)

func (k PastKind) String() string {
	return [...]string{"once", "historically", "previously", "since"}[k]
}

// Monitor is the hidden state of one past-time subformula: the variable
// Model.Vars[Var] (bool, or an array [T1]...[Tn]bool over the types of
// the bound variables the subformula reads) holds its value at the
// current state.
type Monitor struct {
	Kind PastKind
	Var  int    // index into Model.Vars
	Text string // the subformula as written, canonically printed
	// Names names each slot of the variable (Width of them, in slot
	// order): Text with the bound variables replaced by their values.
	Names []string
	Pos   Position
}

// pastInfo is a monitor being lowered.
type pastInfo struct {
	kind  PastKind
	args  []*Expr // operands, in the frame of the unit they appear in
	free  []*Expr // the OpLocal reads of bound variables, by slot
	names []string
	typ   *Type
	text  string
	pos   Position
	key   string
	use   []*Expr // the OpVar nodes that read it (slots patched at the end)
	same  *pastInfo
	// In an instance of a family indexed by a symmetric type, the monitors
	// of one subformula (node) in all instances are the elements of one
	// array indexed by the family index (varType), so that symmetry
	// reduction permutes them with the identities; inst is the instance.
	node    syntax.Expr
	fam     *Type
	inst    int64
	varType *Type
}

// pastKinds maps a past-time operator token to its kind (an array: static
// data, no code at start-up).
var pastKinds = [256]PastKind{
	syntax.Once: PastOnce, syntax.Historically: PastHistorically,
	syntax.Previously: PastPreviously, syntax.Since: PastSince,
}

// pastTime checks and lowers a past-time operator applied to operands.
func (c *checker) pastTime(e syntax.Expr, op syntax.Token, operands []syntax.Expr, pos Position, env *env) *Expr {
	where := env.where
	switch {
	case env.kind == uFn:
		where = "fn bodies (write it where the fn is called)"
	case env.kind != uState:
		where = env.where
	case env.where == "watch":
		where = "a watch (a watch reads one state)"
	case strings.HasPrefix(env.where, "init"):
		where = env.where + " (there is no past yet)"
	default:
		where = ""
	}
	if where != "" {
		for _, x := range operands {
			c.expr(x, env.flat(), c.tBool)
		}
		c.errorf(pos, "past-time operator %s not allowed in %s", op, where)
		return c.bad(pos)
	}
	mark := c.frameTop
	inner := *env.flat()
	inner.pastMark = mark
	inner.pastOp = op
	var args []*Expr
	bad := false
	for _, x := range operands {
		a := c.boolExpr(x, &inner, "operand of "+op.String())
		if isInvalid(a.Type) {
			bad = true
		}
		args = append(args, a)
	}
	if bad {
		return c.bad(pos)
	}
	if c.quiet == 0 {
		c.vetPast(op, args, operands, pos)
	}
	seen := map[int]*Expr{}
	for _, a := range args {
		freeLocals(a, mark, seen)
	}
	var free []*Expr
	for _, x := range seen {
		free = append(free, x)
	}
	sort.Slice(free, func(i, j int) bool { return free[i].Slot < free[j].Slot })
	t := c.tBool
	for i := len(free) - 1; i >= 0; i-- {
		it := free[i].Type
		if !it.IsFinite() {
			c.errorf(pos, "wrapcheck internal error: bound variable of type %s in %s", typeString(it), op)
			return c.bad(pos)
		}
		w := it.Size() * int64(t.Width)
		if w > maxMonitorWidth {
			c.errorf(pos, "%s needs too many monitor bits (more than %d): it reads bound variables of large types", op, maxMonitorWidth)
			return c.bad(pos)
		}
		t = &Type{Kind: ArrayKind, Index: it, Elem: t, Width: int(w)}
	}
	p := &pastInfo{kind: pastKinds[op], args: args, free: free, typ: t, pos: pos,
		text: syntax.FormatExpr(e, nil), node: e, varType: t}
	subst := map[string]string{}
	if pr := env.proc; pr != nil && pr.idxType != nil && pr.idxType.Kind == SymmetricKind && pr.decl != nil && pr.decl.Index != nil {
		p.fam, p.inst = pr.idxType, pr.idxType.Lo+int64(env.inst)
		w := p.fam.Size() * int64(t.Width)
		if w > maxMonitorWidth {
			c.errorf(pos, "%s needs too many monitor bits (more than %d): it reads bound variables of large types", op, maxMonitorWidth)
			return c.bad(pos)
		}
		p.varType = &Type{Kind: ArrayKind, Index: p.fam, Elem: t, Width: int(w)}
		subst[pr.decl.Index.Name.Name] = valueString(p.fam, p.inst)
	}
	// the names of the bound variables, for the names of the elements
	var bound []string
	for _, f := range free {
		bound = append(bound, slotName(env.scope, f.Slot))
	}
	p.names = elementNames(e, bound, free, subst)
	p.key = pastKey(p, c.pastUse)
	c.past = append(c.past, p)
	x := &Expr{Op: OpVar, Type: p.varType, Pos: pos}
	p.use = append(p.use, x)
	c.pastUse[x] = p
	var r *Expr = x
	if p.fam != nil {
		r = &Expr{Op: OpIndex, Type: t, Args: []*Expr{r, {Op: OpConst, Type: p.fam, Val: p.inst, Pos: pos}}, Pos: pos}
	}
	for _, f := range free {
		r = &Expr{Op: OpIndex, Type: r.Type.Elem, Args: []*Expr{r, f}, Pos: pos}
	}
	return r
}

// maxMonitorWidth bounds the slots of one monitor.
const maxMonitorWidth = 1 << 16

// freeLocals collects the OpLocal nodes of e with a slot below mark.
func freeLocals(e *Expr, mark int, seen map[int]*Expr) {
	Walk(e, func(x *Expr) bool {
		if x.Op == OpLocal && x.Slot < mark {
			if _, ok := seen[x.Slot]; !ok {
				seen[x.Slot] = x
			}
		}
		return true
	})
}

// elementNames names every element of a monitor over the bound variables
// called bound, of the types of free.
func elementNames(e syntax.Expr, bound []string, free []*Expr, subst map[string]string) []string {
	if len(free) == 0 {
		return []string{syntax.FormatExpr(e, subst)}
	}
	var out []string
	var rec func(i int)
	rec = func(i int) {
		if i == len(free) {
			out = append(out, syntax.FormatExpr(e, subst))
			return
		}
		t := free[i].Type
		for v := t.Lo; v <= t.Hi; v++ {
			subst[bound[i]] = valueString(t, v)
			rec(i + 1)
		}
	}
	rec(0)
	return out
}

// pastKey is a key equal for two instances of the same subformula: the
// operator, the operands with locals numbered by first appearance, and
// the types of the bound variables.
func pastKey(p *pastInfo, pastUse map[*Expr]*pastInfo) string {
	var b strings.Builder
	b.WriteString(p.kind.String())
	num := map[int]int{}
	for _, f := range p.free {
		num[f.Slot] = len(num)
		b.WriteString(" ")
		b.WriteString(typeKey(f.Type))
	}
	for _, a := range p.args {
		b.WriteString(" ")
		exprKey(&b, a, num, pastUse)
	}
	return b.String()
}

func typeKey(t *Type) string {
	var b strings.Builder
	b.WriteString(t.Kind.String())
	b.WriteString(":" + t.Name + ":")
	b.WriteString(itoa(t.Lo) + ":" + itoa(t.Hi))
	if t.Elem != nil {
		b.WriteString("[" + typeKey(t.Elem) + "]")
	}
	if t.Index != nil {
		b.WriteString("<" + typeKey(t.Index) + ">")
	}
	for _, f := range t.Fields {
		b.WriteString("{" + f.Name + ":" + typeKey(f.Type) + "}")
	}
	return b.String()
}

func exprKey(b *strings.Builder, e *Expr, num map[int]int, pastUse map[*Expr]*pastInfo) {
	local := func(s int) int {
		if n, ok := num[s]; ok {
			return n
		}
		num[s] = len(num)
		return num[s]
	}
	b.WriteString("(" + e.Op.String() + " " + typeKey(e.Type))
	switch e.Op {
	case OpConst, OpField:
		b.WriteString(" " + itoa(e.Val))
	case OpVar:
		if q := pastUse[e]; q != nil {
			b.WriteString(" m[" + q.key + "]")
		} else {
			b.WriteString(" s" + itoa(int64(e.Slot)))
		}
	case OpLocal, OpForall, OpExists, OpCount:
		b.WriteString(" l" + itoa(int64(local(e.Slot))))
	case OpLet:
		for _, s := range e.Binds {
			b.WriteString(" l" + itoa(int64(local(s))))
		}
	}
	if e.Dom != nil {
		b.WriteString(" " + typeKey(e.Dom))
	}
	for _, a := range e.Args {
		b.WriteString(" ")
		exprKey(b, a, num, pastUse)
	}
	b.WriteString(")")
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }

// slotName returns the name of the bound variable at frame slot s.
func slotName(sc *scope, s int) string {
	for ; sc != nil; sc = sc.parent {
		for name, o := range sc.names {
			if (o.kind == objBound || o.kind == objLet) && o.slot == s {
				return name
			}
		}
	}
	return "?"
}

// lowerMonitors drops the monitors that nothing reads, merges instances
// of one subformula, lays out the monitors' variables after every other
// variable, and adds their updates to init and to every action.
func (c *checker) lowerMonitors() {
	m := c.model
	if len(c.past) == 0 {
		return
	}
	used := map[*pastInfo]bool{}
	walkE := func(e *Expr) {
		Walk(e, func(x *Expr) bool {
			if p := c.pastUse[x]; p != nil {
				used[p] = true
			}
			return true
		})
	}
	var walkS func(ss []*Stmt)
	walkS = func(ss []*Stmt) {
		for _, s := range ss {
			walkE(s.Target)
			walkE(s.Value)
			walkE(s.Cond)
			for _, a := range s.Args {
				walkE(a)
			}
			walkS(s.Body)
			walkS(s.Else)
			for _, cs := range s.Cases {
				walkS(cs.Body)
			}
		}
	}
	walkS(m.Init)
	for _, a := range m.Actions {
		walkE(a.Guard)
		walkS(a.Body)
	}
	for _, x := range m.Invariants {
		walkE(x.Expr)
	}
	for _, x := range m.Properties {
		walkE(x.Formula)
	}
	walkE(m.Terminal)
	// an operand is lowered before its operator: outer monitors come later
	// the instances of one subformula in a symmetric family live or die
	// together (they are one array)
	group := map[syntax.Expr][]*pastInfo{}
	for _, p := range c.past {
		if p.fam != nil {
			group[p.node] = append(group[p.node], p)
		}
	}
	for i := len(c.past) - 1; i >= 0; i-- {
		p := c.past[i]
		if !used[p] && p.fam != nil {
			for _, q := range group[p.node] {
				if used[q] {
					used[p] = true
				}
			}
		}
		if used[p] {
			for _, a := range p.args {
				walkE(a)
			}
		}
	}
	reps := map[string]*pastInfo{}
	var live []*pastInfo
	for _, p := range c.past {
		if !used[p] {
			continue
		}
		if p.fam != nil {
			live = append(live, p)
			continue
		}
		if r := reps[p.key]; r != nil {
			p.same = r
			continue
		}
		reps[p.key] = p
		live = append(live, p)
	}
	slot := map[*pastInfo]int{}
	for _, p := range live {
		if p.fam != nil && group[p.node][0] != p {
			slot[p] = slot[group[p.node][0]]
			continue
		}
		names := p.names
		if p.fam != nil {
			names = nil
			for _, q := range group[p.node] {
				names = append(names, q.names...)
			}
			if len(names) != p.varType.Width {
				c.errorf(p.pos, "wrapcheck internal error: %d names for the %d slots of %s", len(names), p.varType.Width, p.text)
				return
			}
		}
		vi := len(m.Vars)
		mon := &Monitor{Kind: p.kind, Var: vi, Text: p.text, Names: names, Pos: p.pos}
		v := &Var{Name: p.text, Local: p.text, Type: p.varType, Slot: len(m.Slots), Process: -1, Pos: p.pos, Monitor: mon}
		m.Slots = flatten(p.varType, vi, m.Slots)
		m.Vars = append(m.Vars, v)
		m.Monitors = append(m.Monitors, mon)
		slot[p] = v.Slot
	}
	for _, p := range c.past {
		r := p
		if p.same != nil {
			r = p.same
		}
		if s, ok := slot[r]; ok {
			for _, u := range p.use {
				u.Slot = s
			}
		}
	}

	base := m.Frame
	next := 2 * base
	var capture, update, initial []*Stmt
	for _, p := range live {
		vals := make([]int64, len(p.free))
		for i, f := range p.free {
			vals[i] = f.Type.Lo
		}
		for {
			subst := map[int]int64{}
			for i, f := range p.free {
				subst[f.Slot] = vals[i]
			}
			args := make([]*Expr, len(p.args))
			for i, a := range p.args {
				args[i] = relocate(a, subst, base)
			}
			target := func() *Expr {
				x := &Expr{Op: OpVar, Type: p.varType, Slot: slot[p], Pos: p.pos}
				if p.fam != nil {
					ix := &Expr{Op: OpConst, Type: p.fam, Val: p.inst, Pos: p.pos}
					x = &Expr{Op: OpIndex, Type: p.typ, Args: []*Expr{x, ix}, Pos: p.pos}
				}
				for i, f := range p.free {
					ix := &Expr{Op: OpConst, Type: f.Type, Val: vals[i], Pos: p.pos}
					x = &Expr{Op: OpIndex, Type: x.Type.Elem, Args: []*Expr{x, ix}, Pos: p.pos}
				}
				return x
			}
			bin := func(op Op, x, y *Expr) *Expr {
				return &Expr{Op: op, Type: c.tBool, Args: []*Expr{x, y}, Pos: p.pos}
			}
			var upd, ini *Expr
			switch p.kind {
			case PastOnce:
				upd, ini = bin(OpOr, args[0], target()), relocate(p.args[0], subst, base)
			case PastHistorically:
				upd, ini = bin(OpAnd, args[0], target()), relocate(p.args[0], subst, base)
			case PastSince:
				upd, ini = bin(OpOr, args[1], bin(OpAnd, args[0], target())), relocate(p.args[1], subst, base)
			case PastPreviously:
				capture = append(capture, &Stmt{Op: SLet, Slot: next, Value: args[0], Pos: p.pos})
				upd = &Expr{Op: OpLocal, Type: c.tBool, Slot: next, Pos: p.pos}
				ini = &Expr{Op: OpConst, Type: c.tBool, Val: 0, Pos: p.pos}
				next++
			}
			update = append(update, &Stmt{Op: SAssign, Target: target(), Value: upd, Pos: p.pos})
			initial = append(initial, &Stmt{Op: SAssign, Target: target(), Value: ini, Pos: p.pos})
			// the next combination of bound values, last variable fastest
			i := len(vals) - 1
			for ; i >= 0; i-- {
				if vals[i] < p.free[i].Type.Hi {
					vals[i]++
					break
				}
				vals[i] = p.free[i].Type.Lo
			}
			if i < 0 {
				break
			}
		}
	}
	m.Frame = next
	m.Init = append(m.Init, initial...)
	for _, a := range m.Actions {
		body := make([]*Stmt, 0, len(capture)+len(a.Body)+len(update))
		body = append(body, capture...)
		body = append(body, a.Body...)
		a.Body = append(body, update...)
	}
	m.Stutter = append(append([]*Stmt(nil), capture...), update...)
}

// relocate copies e for a monitor update: each bound variable in subst
// becomes its constant value, and every other frame slot moves up by base,
// above the frames of the actions the update runs in.
func relocate(e *Expr, subst map[int]int64, base int) *Expr {
	n := *e
	switch e.Op {
	case OpLocal:
		if v, ok := subst[e.Slot]; ok {
			return &Expr{Op: OpConst, Type: e.Type, Val: v, Pos: e.Pos}
		}
		n.Slot += base
	case OpForall, OpExists, OpCount:
		n.Slot += base
	case OpLet:
		n.Binds = make([]int, len(e.Binds))
		for i, s := range e.Binds {
			n.Binds[i] = s + base
		}
	}
	if len(e.Args) > 0 {
		n.Args = make([]*Expr, len(e.Args))
		for i, a := range e.Args {
			n.Args[i] = relocate(a, subst, base)
		}
	}
	return &n
}

// vetPast records a warning for a past-time formula whose value does not
// depend on the run: a constant operand of once or historically, a
// constant right operand of since, previously false, and historically
// previously φ (false in every initial state, so false forever).
func (c *checker) vetPast(op syntax.Token, args []*Expr, operands []syntax.Expr, pos Position) {
	warn := func(format string, a ...any) {
		c.vet.warnings = append(c.vet.warnings, Warning{Pos: pos, Msg: fmt.Sprintf(format, a...)})
	}
	konst := func(x *Expr) (bool, bool) { return x.Op == OpConst, x.Op == OpConst && x.Val != 0 }
	switch op {
	case syntax.Once, syntax.Historically:
		if k, v := konst(args[0]); k {
			warn("%s %s is always %t: its operand is constant", op, exprString(operands[0]), v)
		} else if op == syntax.Historically {
			if u, ok := unparen(operands[0]).(*syntax.UnaryExpr); ok && u.Op == syntax.Previously {
				warn("historically %s is always false: previously is false in every initial state", exprString(operands[0]))
			}
		}
	case syntax.Previously:
		if k, v := konst(args[0]); k && !v {
			warn("previously %s is always false: its operand is constant", exprString(operands[0]))
		}
	case syntax.Since:
		if k, v := konst(args[1]); k {
			warn("%s since %s is always %t: its right operand is constant", exprString(operands[0]), exprString(operands[1]), v)
		}
	}
}
