package testgen

import (
	"fmt"
	"slices"
	"strings"

	"github.com/wrapcheck/wrapcheck/report"
	"github.com/wrapcheck/wrapcheck/spec"
)

// An arm is one way through a branching statement of an action: the then
// or else of an if (the else even when the source has none), a case or
// the else of a match, the then or else of an if-expression assigned to a
// variable (`x := if c then a else b`).
type arm struct {
	action int
	name   string // "if not wellformed(v): else"
	pos    spec.Position
	dead   string // why no run takes it, when its condition is a constant
	write  bool   // not an arm: an assignment, taken when it changes its variable
}

// instrumented is a copy of a model whose actions record the arms they
// take: each action first empties the hidden set variables armVars, and
// each arm adds its number to them (arm k of an action is element k%64
// of armVars[k/64]). The hidden variables come after every variable of
// the model, so the model's slots keep their numbers, and a state of the
// copy, cut to len(Model.Slots), is a state of the model.
type instrumented struct {
	m       *spec.Model
	arms    [][]int // per action: indexes into all
	all     []arm
	armSlot []int // slot of each hidden variable
}

// instrument copies m (its actions' bodies rewritten; everything else
// shared) with the arms recorded.
func instrument(m *spec.Model, src []byte) *instrumented {
	in := &instrumented{arms: make([][]int, len(m.Actions))}
	type pending struct {
		action int
		sets   []*spec.Stmt // the marks of the action's arms, in arm order
	}
	var marks []pending
	nvars := 0
	actions := make([]*spec.Action, len(m.Actions))
	for i, a := range m.Actions {
		w := &walker{m: m, action: i, in: in, src: src}
		body := w.stmts(a.Body)
		marks = append(marks, pending{i, w.marks})
		nvars = max(nvars, (len(w.marks)+63)/64)
		cp := *a
		cp.Body = body
		actions[i] = &cp
	}
	cm := *m
	cm.Actions = actions
	cm.Vars = slices.Clone(m.Vars)
	cm.Slots = slices.Clone(m.Slots)
	elem := &spec.Type{Kind: spec.RangeKind, Lo: 0, Hi: 63, Width: 1}
	set := &spec.Type{Kind: spec.SetKind, Elem: elem, Width: 1}
	refs := make([]*spec.Expr, nvars)
	for k := range nvars {
		slot := len(cm.Slots)
		v := &spec.Var{Name: fmt.Sprintf("#arms%d", k), Local: fmt.Sprintf("#arms%d", k), Type: set, Slot: slot, Process: -1}
		cm.Vars = append(cm.Vars, v)
		cm.Slots = append(cm.Slots, spec.Slot{Var: len(cm.Vars) - 1, Bits: 64, Set: true, Type: set})
		in.armSlot = append(in.armSlot, slot)
		refs[k] = &spec.Expr{Op: spec.OpVar, Type: set, Slot: slot}
	}
	// Fill in the marks, now that the variables exist, and empty the
	// variables at the start of each action.
	for _, p := range marks {
		for k, st := range p.sets {
			ref := refs[k/64]
			st.Target = ref
			st.Value = &spec.Expr{Op: spec.OpUnion, Type: set, Args: []*spec.Expr{ref,
				{Op: spec.OpSetLit, Type: set, Args: []*spec.Expr{{Op: spec.OpConst, Type: elem, Val: int64(k % 64)}}}}}
		}
		a := actions[p.action]
		var reset []*spec.Stmt
		for _, ref := range refs {
			reset = append(reset, &spec.Stmt{Op: spec.SAssign, Target: ref, Value: &spec.Expr{Op: spec.OpSetLit, Type: set}, Pos: a.Pos})
		}
		a.Body = append(reset, a.Body...)
		a.Reads = slices.Clone(a.Reads)
		a.Writes = slices.Clone(a.Writes)
		for _, s := range in.armSlot {
			a.Reads = append(a.Reads, s)
			a.Writes = append(a.Writes, s)
		}
	}
	in.m = &cm
	return in
}

// walker rewrites one action's body, adding a mark at the start of each
// arm.
type walker struct {
	m      *spec.Model
	action int
	in     *instrumented
	marks  []*spec.Stmt
	src    []byte
	under  string // set while walking an arm no run takes: why
}

func (w *walker) mark(name string, pos spec.Position) *spec.Stmt {
	st := &spec.Stmt{Op: spec.SAssign, Pos: pos}
	w.marks = append(w.marks, st)
	w.in.arms[w.action] = append(w.in.arms[w.action], len(w.in.all))
	w.in.all = append(w.in.all, arm{action: w.action, name: name, pos: pos, dead: w.under})
	return st
}

func (w *walker) stmts(ss []*spec.Stmt) []*spec.Stmt {
	var out []*spec.Stmt
	for _, s := range ss {
		if s.Op == spec.SAssign && s.Target != nil && s.Value != nil && s.Value.Op != spec.OpCond && !w.isMonitor(s.Target) && !inChannel(s.Target) {
			// A write goal: `if target != value { mark }` before the
			// assignment, so that a test runs it where it changes the
			// variable (a reset that is never effective is never tested).
			val := report.ExprString(w.m, s.Value, "…")
			if val == "…" {
				val = w.sourceValue(s.Pos)
			}
			if s.Value.Op == spec.OpConst && s.Value.Type.Kind == spec.SetKind && s.Value.Big == nil {
				val = report.ValueText(s.Value.Type, []int64{s.Value.Val}) // the printer gives a set constant as its mask
			}
			name := fmt.Sprintf("%s := %s changes %s", report.ExprString(w.m, s.Target, "…"), val, report.ExprString(w.m, s.Target, "it"))
			mk := w.mark(name, s.Pos)
			w.in.all[len(w.in.all)-1].write = true
			boolType := &spec.Type{Kind: spec.BoolKind, Name: "bool", Lo: 0, Hi: 1, Width: 1}
			ne := &spec.Expr{Op: spec.OpNe, Type: boolType, Args: []*spec.Expr{s.Target, s.Value}, Pos: s.Pos}
			out = append(out, &spec.Stmt{Op: spec.SIf, Cond: ne, Body: []*spec.Stmt{mk}, Pos: s.Pos})
		}
		out = append(out, w.stmt(s))
	}
	return out
}

// inChannel reports whether the location e lies in a channel (an
// extension): the statements a send or a receive lowers to, which the
// spec does not write, are no write goals (the action's goal covers them).
func inChannel(e *spec.Expr) bool {
	for {
		if e.Type.Chan {
			return true
		}
		if e.Op != spec.OpField && e.Op != spec.OpIndex {
			return false
		}
		e = e.Args[0]
	}
}

// quote returns e as printed, or, when the printer cannot print it, as
// written in the source: the rest of the line at pos after the keyword
// kw, up to its block's brace; "…" when neither works.
func (w *walker) quote(e *spec.Expr, pos spec.Position, kw string) string {
	printed := report.ExprString(w.m, e, "")
	if _, isConst := constant(e); printed != "" && (!isConst || kw == "") {
		return printed // a constant reads better as written, with its names
	}
	lines := strings.Split(string(w.src), "\n")
	if l := pos.Line - 1; l >= 0 && l < len(lines) {
		line := []rune(lines[l])
		if c := pos.Col - 1; c >= 0 && c < len(line) {
			if rest, ok := strings.CutPrefix(strings.TrimSpace(string(line[c:])), kw+" "); ok {
				if i := strings.Index(rest, " {"); i >= 0 {
					rest = rest[:i]
				}
				if rest = strings.TrimSpace(rest); rest != "" && !strings.ContainsAny(rest, "{}") {
					return rest
				}
			}
		}
	}
	if printed != "" {
		return printed
	}
	return "…"
}

// constant returns the value of e when it folds to a constant.
func constant(e *spec.Expr) (int64, bool) {
	f := spec.Fold(e)
	if f.Op == spec.OpConst && f.Big == nil {
		return f.Val, true
	}
	return 0, false
}

func (w *walker) stmt(s *spec.Stmt) *spec.Stmt {
	switch s.Op {
	case spec.SIf:
		c := w.quote(s.Cond, s.Pos, "if")
		cp := *s
		v, isConst := constant(s.Cond)
		under := w.under
		then := w.mark("if "+c+": then", s.Pos)
		if isConst && v == 0 && under == "" {
			w.in.all[len(w.in.all)-1].dead = "its condition is the constant false"
			w.under = fmt.Sprintf("it lies under the then of `if %s` (line %d), whose condition is the constant false", c, s.Pos.Line)
		}
		cp.Body = append([]*spec.Stmt{then}, w.stmts(s.Body)...)
		w.under = under
		els := w.mark("if "+c+": else", s.Pos)
		if isConst && v != 0 && under == "" {
			w.in.all[len(w.in.all)-1].dead = "its condition is the constant true"
			w.under = fmt.Sprintf("it lies under the else of `if %s` (line %d), whose condition is the constant true", c, s.Pos.Line)
		}
		cp.Else = append([]*spec.Stmt{els}, w.stmts(s.Else)...)
		w.under = under
		return &cp
	case spec.SMatch:
		cp := *s
		v := w.quote(s.Value, s.Pos, "match")
		cp.Cases = nil
		for _, c := range s.Cases {
			var names []string
			for _, x := range c.Values {
				names = append(names, report.ValueText(s.Value.Type, []int64{x}))
			}
			mk := w.mark(fmt.Sprintf("match %s: case %s", v, joinComma(names)), s.Pos)
			cp.Cases = append(cp.Cases, &spec.Case{Values: c.Values, Body: append([]*spec.Stmt{mk}, w.stmts(c.Body)...)})
		}
		if s.HasElse {
			mk := w.mark("match "+v+": else", s.Pos)
			cp.Else = append([]*spec.Stmt{mk}, w.stmts(s.Else)...)
		}
		return &cp
	case spec.SChoose:
		cp := *s
		cp.Body = w.stmts(s.Body)
		return &cp
	case spec.SAssign:
		if s.Value != nil && s.Value.Op == spec.OpCond {
			return w.condAssign(s, s.Value)
		}
	}
	return s
}

// sourceValue returns the value of the assignment at pos as written in
// the source (the rest of its line after `:=`, comment cut), or "…".
func (w *walker) sourceValue(pos spec.Position) string {
	lines := strings.Split(string(w.src), "\n")
	if l := pos.Line - 1; l >= 0 && l < len(lines) {
		line := []rune(lines[l])
		if c := pos.Col - 1; c >= 0 && c < len(line) {
			if _, rest, ok := strings.Cut(string(line[c:]), ":="); ok {
				rest, _, _ = strings.Cut(rest, "//")
				if rest = strings.TrimSpace(rest); rest != "" && !strings.ContainsAny(rest, "{}") {
					return rest
				}
			}
		}
	}
	return "…"
}

// isMonitor reports whether the location e is (in) the hidden variable of
// a past-time subformula, whose updates the compiler adds to every action.
func (w *walker) isMonitor(e *spec.Expr) bool {
	for e.Op == spec.OpIndex || e.Op == spec.OpField {
		e = e.Args[0]
	}
	if e.Op != spec.OpVar || e.Slot < 0 || e.Slot >= len(w.m.Slots) {
		return false
	}
	return w.m.Vars[w.m.Slots[e.Slot].Var].Monitor != nil
}

// condAssign rewrites `x := if c then a else b` into `if c { x := a }
// else { x := b }`, the else-if chains of b too, so that each arm of
// the expression is an arm.
func (w *walker) condAssign(s *spec.Stmt, v *spec.Expr) *spec.Stmt {
	c := w.quote(v.Args[0], s.Pos, "")
	then := w.mark("if "+c+" then …: then", s.Pos)
	thenAssign := &spec.Stmt{Op: spec.SAssign, Target: s.Target, Value: v.Args[1], Pos: s.Pos}
	els := w.mark("if "+c+" then …: else", s.Pos)
	var elseAssign *spec.Stmt
	if v.Args[2].Op == spec.OpCond {
		elseAssign = w.condAssign(s, v.Args[2])
	} else {
		elseAssign = &spec.Stmt{Op: spec.SAssign, Target: s.Target, Value: v.Args[2], Pos: s.Pos}
	}
	return &spec.Stmt{Op: spec.SIf, Cond: v.Args[0], Body: []*spec.Stmt{then, thenAssign}, Else: []*spec.Stmt{els, elseAssign}, Pos: s.Pos}
}

func joinComma(ss []string) string {
	out := ""
	for i, s := range ss {
		if i > 0 {
			out += ", "
		}
		out += s
	}
	return out
}
