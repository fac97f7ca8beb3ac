package report

import (
	"strconv"
	"strings"

	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/verdict"
)

// Helpers shared by the trace pictures (SARIF, JUnit, Mermaid, DOT,
// GitHub annotations): the same words as the text trace, on one line.

// stutterLabel names a step of a lasso without action after the first:
// the previous state had no enabled action and repeats, and only the
// past-time monitors changed.
const stutterLabel = "(no action enabled: the state repeats; past-time monitors move on)"

// stepLabel names what step i of a trace did: "initial state", the
// action's name, or stutterLabel.
func stepLabel(m *spec.Model, st verdict.Step, i int) string {
	if st.Action < 0 {
		if i > 0 {
			return stutterLabel
		}
		return "initial state"
	}
	return m.Actions[st.Action].Name
}

// changedVars lists, as `path = value`, what step i changed (every
// variable for the initial state), values folded.
func changedVars(m *spec.Model, trace []verdict.Step, i int) []string {
	var out []string
	var prev []int64
	if i > 0 {
		prev = trace[i-1].State
	}
	cur := trace[i].State
	for _, vr := range m.Vars {
		if vr.Monitor != nil {
			continue
		}
		var old []int64
		if prev != nil {
			old = prev[vr.Slot : vr.Slot+vr.Type.Width]
		}
		changes(vr.Name, vr.Type, old, cur[vr.Slot:vr.Slot+vr.Type.Width], func(path string, n node) {
			out = append(out, path+" = "+n.folded(foldLimit))
		})
	}
	monitorChanges(m, prev, cur, func(name string, v bool) {
		out = append(out, name+" = "+strconv.FormatBool(v))
	})
	return out
}

// monitorChanges calls emit for each element of a past-time monitor that
// differs between old and cur, by its subformula (with the bound values
// in place); when old is nil (an initial state), for each that is true.
func monitorChanges(m *spec.Model, old, cur []int64, emit func(name string, v bool)) {
	for _, mon := range m.Monitors {
		vr := m.Vars[mon.Var]
		for i, name := range mon.Names {
			s := vr.Slot + i
			if (old == nil && cur[s] != 0) || (old != nil && old[s] != cur[s]) {
				emit(name, cur[s] != 0)
			}
		}
	}
}

// answers lists the agent answers of a step as `agent → value`.
func answers(m *spec.Model, st verdict.Step) []string {
	var out []string
	for _, a := range st.Asked {
		ag := m.Agents[a.Agent]
		out = append(out, ag.Name+" → "+valueNode(ag.Result, a.Value).folded(foldLimit))
	}
	return out
}

// compactState prints a whole state on one line: `x=1 y=true`.
func compactState(m *spec.Model, state []int64) string {
	parts := make([]string, 0, len(m.Vars))
	for _, vr := range m.Vars {
		if vr.Monitor != nil {
			continue
		}
		parts = append(parts, vr.Name+"="+varValue(vr, state).folded(foldLimit/2))
	}
	return strings.Join(parts, " ")
}

// stepSummary is one line for step i: the action, its answers and what
// it changed, e.g. "editor.edit: content = 1".
func stepSummary(m *spec.Model, trace []verdict.Step, i int) string {
	s := stepLabel(m, trace[i], i)
	if as := answers(m, trace[i]); len(as) > 0 {
		s += " (" + strings.Join(as, ", ") + ")"
	}
	if ch := changedVars(m, trace, i); len(ch) > 0 {
		s += ": " + strings.Join(ch, ", ")
	} else {
		s += ": no change"
	}
	return s
}

// actionPos is the declaration of the action of a step; for the initial
// state, the first line of the spec file.
func actionPos(m *spec.Model, st verdict.Step) spec.Position {
	if st.Action >= 0 {
		return m.Actions[st.Action].Pos
	}
	return spec.Position{Filename: m.Filename, Line: 1, Col: 1}
}

// checkPos is where a violation is located: the check's declaration, the
// failing statement, or (for a deadlock, which has none) the terminal
// declaration, the spec's name, or the top of the file.
func checkPos(m *spec.Model, v *verdict.Violation) spec.Position {
	if v.Pos.IsValid() {
		return v.Pos
	}
	if v.Kind == verdict.Deadlock && m.TerminalPos.IsValid() {
		return m.TerminalPos
	}
	if m.NamePos.IsValid() {
		return m.NamePos
	}
	return spec.Position{Filename: m.Filename, Line: 1, Col: 1}
}

// ruleID names the check a violation breaks: the invariant or property
// name, else the kind (deadlock, assertion, runtime-error).
func ruleID(v *verdict.Violation) string {
	if v.Kind == verdict.Invariant || v.Kind == verdict.Property {
		if v.Name != "" {
			return v.Name
		}
	}
	return v.Kind.String()
}

// StepText returns step i of trace as the text report prints it: the
// agent answers taken, as `agent → value`, and what the step changed, as
// `path = value` (every variable at step 0), values in wrap's notation
// and folded when long. The playground's trace table shows these.
func StepText(m *spec.Model, trace []verdict.Step, i int) (asked, changed []string) {
	return answers(m, trace[i]), changedVars(m, trace, i)
}
