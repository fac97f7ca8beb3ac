package spec

import (
	"fmt"
	"sort"
	"strings"

	"github.com/wrapcheck/wrapcheck/spec/syntax"
)

// Warning is a finding of [Vet]: likely a mistake, but not an error.
type Warning struct {
	Pos Position
	Msg string
}

// String formats the warning as "file:line:col: msg".
func (w Warning) String() string { return w.Pos.String() + ": " + w.Msg }

// vetInfo is what the check records for [Vet].
type vetInfo struct {
	warnings       []Warning
	falseTerminals []Position
}

// maxVetArgs bounds the argument tuples Vet enumerates per agent.
const maxVetArgs = 100000

// maxVetSteps bounds the evaluation work of Vet per agent.
const maxVetSteps = 50_000_000

// collectVet records unused declarations and agents never asked.
func (c *checker) collectVet() {
	add := func(pos Position, format string, args ...any) {
		c.vet.warnings = append(c.vet.warnings, Warning{Pos: pos, Msg: fmt.Sprintf(format, args...)})
	}
	for _, o := range c.vars {
		if !o.used {
			add(o.pos, "variable %s is never used", o.name)
		}
	}
	for _, p := range c.procs {
		for _, o := range p.locals {
			if !o.used {
				add(o.pos, "variable %s.%s is never used", p.name, o.name)
			}
		}
	}
	for _, fi := range c.fns {
		if !fi.obj.used {
			add(fi.obj.pos, "fn %s is never used", fi.obj.name)
		}
	}
	for _, o := range c.types {
		if !o.used {
			add(o.pos, "type %s is never used", o.name)
		}
	}
	for _, ai := range c.agents {
		if !ai.asked {
			add(ai.obj.pos, "agent %s is never asked", ai.obj.name)
		}
	}
	c.vetStarts(add)
}

// Vet reports likely mistakes in a spec that checks: unused variables,
// functions and types, agents never asked, an agent assumption that no
// answer satisfies for some arguments (so the asking action is silently
// disabled), a terminal condition that can never hold, and a property
// without a temporal operator (it speaks only of the initial states), and
// (an extension) a variable declared with a range such as -5..5 that
// includes 0 but starts below it, with no start value. m must be the
// result of [Check] on f; when m is nil Vet checks f with default options
// (and returns nil if it does not check). The warnings are sorted by
// position.
func Vet(f *syntax.File, m *Model) []Warning {
	if m == nil || m.vet == nil {
		if f == nil {
			return nil
		}
		var err error
		m, err = Check(f, Options{})
		if err != nil {
			return nil
		}
	}
	ws := append([]Warning(nil), m.vet.warnings...)
	for _, p := range m.vet.falseTerminals {
		ws = append(ws, Warning{Pos: p, Msg: "terminal condition can never hold (it is always false)"})
	}
	for _, a := range m.Agents {
		if w, ok := vetAssume(a); ok {
			ws = append(ws, w)
		}
	}
	for _, p := range m.Properties {
		if !hasTemporal(p.Formula) {
			ws = append(ws, Warning{Pos: p.Pos, Msg: fmt.Sprintf("property %s has no temporal operator: it speaks only of the initial states (did you mean always or eventually, or an invariant?)", p.Name)})
		}
	}
	sort.SliceStable(ws, func(i, j int) bool { return ws[i].Pos.Before(ws[j].Pos) })
	return ws
}

// domains returns the value domain of each scalar slot of t.
func domains(t *Type, out [][2]int64) [][2]int64 {
	for _, s := range flatten(t, 0, nil) {
		if s.Set {
			out = append(out, [2]int64{0, int64(1)<<s.Bits - 1})
		} else {
			out = append(out, [2]int64{s.Lo, s.Hi})
		}
	}
	return out
}

// vetAssume enumerates an agent's arguments (when there are at most
// maxVetArgs tuples) and reports arguments for which no answer satisfies
// the assumption.
func vetAssume(a *Agent) (Warning, bool) {
	if a.Assume == nil {
		return Warning{}, false
	}
	var argDom [][2]int64
	for _, p := range a.Params {
		argDom = domains(p, argDom)
	}
	resDom := domains(a.Result, nil)
	argN, resN := product(argDom), product(resDom)
	if argN < 0 || resN < 0 || argN > maxVetArgs || argN*resN > 10*maxVetArgs {
		return Warning{}, false
	}
	ev := &frameEval{frame: make([]int64, max(a.Frame, a.ResultSlot+a.Result.Width)), steps: maxVetSteps}
	argSlots := make([]int, 0, len(argDom))
	for i, p := range a.Params {
		for k := 0; k < p.Width; k++ {
			argSlots = append(argSlots, a.ParamSlots[i]+k)
		}
	}
	args := make([]int64, len(argDom))
	res := make([]int64, len(resDom))
	failing, total := 0, 0
	var example []int64
	forEach(argDom, args, func() {
		total++
		for i, s := range argSlots {
			ev.frame[s] = args[i]
		}
		ok := false
		forEach(resDom, res, func() {
			if ok {
				return
			}
			copy(ev.frame[a.ResultSlot:], res)
			if v, err := ev.scalar(a.Assume); err == nil && v != 0 {
				ok = true
			}
		})
		if !ok {
			failing++
			if example == nil {
				example = append([]int64(nil), args...)
			}
		}
	})
	if failing == 0 || ev.steps < 0 {
		return Warning{}, false
	}
	pos := a.Assume.Pos
	if failing == total {
		return Warning{Pos: pos, Msg: fmt.Sprintf("assume of agent %s can never hold: no answer satisfies it for any arguments", a.Name)}, true
	}
	var parts []string
	off := 0
	for _, p := range a.Params {
		parts = append(parts, formatValue(p, example[off:off+p.Width]))
		off += p.Width
	}
	return Warning{Pos: pos, Msg: fmt.Sprintf("assume of agent %s can never hold for some arguments, e.g. %s(%s): no answer satisfies it, so asking disables the action", a.Name, a.Name, strings.Join(parts, ", "))}, true
}

func product(doms [][2]int64) int64 {
	n := int64(1)
	for _, d := range doms {
		size := d[1] - d[0] + 1
		if size <= 0 || n > (1<<40)/size {
			return -1
		}
		n *= size
	}
	return n
}

// forEach calls f for every tuple of values of doms, stored in vals.
func forEach(doms [][2]int64, vals []int64, f func()) {
	var rec func(i int)
	rec = func(i int) {
		if i == len(doms) {
			f()
			return
		}
		for v := doms[i][0]; v <= doms[i][1]; v++ {
			vals[i] = v
			rec(i + 1)
		}
	}
	rec(0)
}

// formatValue prints a value of type t given as its scalars.
func formatValue(t *Type, v []int64) string {
	switch t.Kind {
	case ArrayKind:
		var parts []string
		w := t.Elem.Width
		for i := 0; i+w <= len(v); i += w {
			parts = append(parts, formatValue(t.Elem, v[i:i+w]))
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case RecordKind:
		var parts []string
		for _, f := range t.Fields {
			parts = append(parts, f.Name+": "+formatValue(f.Type, v[f.Offset:f.Offset+f.Type.Width]))
		}
		return "record { " + strings.Join(parts, ", ") + " }"
	}
	if len(v) == 0 {
		return "?"
	}
	return valueString(t, v[0])
}

// neverTrue reports whether the boolean e is false in every state, judged
// syntactically after folding.
func neverTrue(e *Expr) bool {
	switch e.Op {
	case OpConst:
		return e.Val == 0
	case OpAnd:
		return neverTrue(e.Args[0]) || neverTrue(e.Args[1])
	case OpOr:
		return neverTrue(e.Args[0]) && neverTrue(e.Args[1])
	case OpNot:
		return alwaysTrue(e.Args[0])
	}
	return false
}

// alwaysTrue reports whether the boolean e is true in every state, judged
// syntactically after folding.
func alwaysTrue(e *Expr) bool {
	switch e.Op {
	case OpConst:
		return e.Val != 0
	case OpAnd:
		return alwaysTrue(e.Args[0]) && alwaysTrue(e.Args[1])
	case OpOr, OpImplies:
		if e.Op == OpImplies {
			return neverTrue(e.Args[0]) || alwaysTrue(e.Args[1])
		}
		return alwaysTrue(e.Args[0]) || alwaysTrue(e.Args[1])
	case OpNot:
		return neverTrue(e.Args[0])
	}
	return false
}

// hasTemporal reports whether e contains an LTL operator.
func hasTemporal(e *Expr) bool {
	return Contains(e, func(x *Expr) bool { return x.Op.IsTemporal() })
}
