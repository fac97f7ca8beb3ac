package spec

import (
	"fmt"
	"slices"
)

// wellTyped checks the IR invariants of ir.go on m: every Expr has a
// valid type, assignment targets are locations, quantifiers and chooses
// have a domain, and slots stay inside the state and frames. It returns ""
// when they hold. Check runs it on every model it returns, so that a
// checker bug gives an internal error instead of a broken model.
func wellTyped(m *Model) string {
	var msg string
	node := func(e *Expr, frame int, state bool) {
		if e.Type == nil || e.Type.Kind == InvalidKind {
			msg = fmt.Sprintf("%v: %s has no valid type", e.Pos, e.Op)
			return
		}
		switch e.Op {
		case OpVar:
			if !state || e.Slot < 0 || e.Slot+e.Type.Width > len(m.Slots) {
				msg = fmt.Sprintf("%v: state slot %d out of range", e.Pos, e.Slot)
			}
		case OpLocal:
			if e.Slot < 0 || e.Slot+e.Type.Width > frame {
				msg = fmt.Sprintf("%v: frame slot %d out of frame %d", e.Pos, e.Slot, frame)
			}
		case OpForall, OpExists, OpCount:
			if e.Dom == nil || e.Slot >= frame {
				msg = fmt.Sprintf("%v: bad quantifier", e.Pos)
			}
		case OpLet:
			if len(e.Binds) != len(e.Args)-1 {
				msg = fmt.Sprintf("%v: bad let", e.Pos)
			}
		case OpIndex:
			if e.Args[0].Type.Kind != ArrayKind {
				msg = fmt.Sprintf("%v: index of a non-array", e.Pos)
			}
		}
		if msg == "" && slices.Contains(e.Args, nil) {
			msg = "nil expression" // Walk does not visit it
		}
	}
	expr := func(e *Expr, frame int, state bool) {
		if e == nil && msg == "" {
			msg = "nil expression"
		}
		Walk(e, func(x *Expr) bool {
			if msg == "" {
				node(x, frame, state)
			}
			return msg == ""
		})
	}
	var stmts func(ss []*Stmt, frame int)
	stmts = func(ss []*Stmt, frame int) {
		for _, s := range ss {
			for _, x := range []*Expr{s.Target, s.Value, s.Cond} {
				if x != nil {
					expr(x, frame, true)
				}
			}
			for _, x := range s.Args {
				expr(x, frame, true)
			}
			if s.Target != nil && !s.Target.IsLocation() {
				msg = fmt.Sprintf("%v: target is not a location", s.Pos)
			}
			if (s.Op == SChoose) && s.Dom == nil {
				msg = fmt.Sprintf("%v: choose without domain", s.Pos)
			}
			stmts(s.Body, frame)
			stmts(s.Else, frame)
			for _, c := range s.Cases {
				stmts(c.Body, frame)
			}
		}
	}
	stmts(m.Init, m.Frame)
	for _, a := range m.Actions {
		if a.Guard != nil {
			expr(a.Guard, m.Frame, true)
		}
		stmts(a.Body, m.Frame)
	}
	for _, i := range m.Invariants {
		expr(i.Expr, m.Frame, true)
	}
	for _, p := range m.Properties {
		expr(p.Formula, m.Frame, true)
	}
	if m.Terminal != nil {
		expr(m.Terminal, m.Frame, true)
	}
	for _, a := range m.Agents {
		if a.Assume != nil {
			expr(a.Assume, a.Frame, false)
		}
	}
	return msg
}
