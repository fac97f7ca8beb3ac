package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/wrapcheck/wrapcheck/checker"
	"github.com/wrapcheck/wrapcheck/spec"
)

// Text writes res for people: the verdict, the counterexample with only
// the variables each step changed, what the violated invariant reads in
// the last state, the statistics and the coverage warnings.
func Text(w io.Writer, m *spec.Model, res *checker.Result) error {
	var b strings.Builder
	switch res.Verdict {
	case checker.Holds:
		fmt.Fprintf(&b, "%s: every check holds\n", m.Name)
	case checker.Unknown:
		fmt.Fprintf(&b, "%s: incomplete: %s; no violation found in the states explored\n", m.Name, res.Reason)
	case checker.Violated:
		v := res.Violation
		switch {
		case v.Kind == checker.Deadlock:
			fmt.Fprintf(&b, "%s: deadlock: no action is enabled and the state is not terminal\n", m.Name)
		case v.Kind == checker.RuntimeError || v.Kind == checker.Assertion:
			fmt.Fprintf(&b, "%s: %s in action %s: %s\n", m.Name, strings.ReplaceAll(v.Kind.String(), "-", " "), v.Name, v.Msg)
		case v.Name == "":
			fmt.Fprintf(&b, "%s: %s\n", m.Name, v.Kind)
		default:
			fmt.Fprintf(&b, "%s: %s %s is violated\n", m.Name, v.Kind, v.Name)
		}
		if v.Pos.IsValid() && (v.Kind == checker.RuntimeError || v.Kind == checker.Assertion) {
			fmt.Fprintf(&b, "  %s: here\n", v.Pos)
		} else if v.Pos.IsValid() {
			fmt.Fprintf(&b, "  %s: %s", v.Pos, v.Kind)
			if v.Name != "" {
				fmt.Fprintf(&b, " %s", v.Name)
			}
			if v.Msg != "" && v.Kind != checker.Invariant {
				fmt.Fprintf(&b, ": %s", v.Msg)
			}
			b.WriteString("\n")
		}
		writeTrace(&b, m, v)
		writeReads(&b, m, v)
	}
	s := res.Stats
	fmt.Fprintf(&b, "\n%d states, %d transitions, depth %d, %.3f s", s.States, s.Transitions, s.Depth, s.Seconds)
	if s.Seconds > 0 {
		fmt.Fprintf(&b, " (%s states/s)", humanRate(float64(s.States)/s.Seconds))
	}
	fmt.Fprintf(&b, ", %d workers\n", s.Workers)
	if res.Verdict == checker.Holds {
		writeCoverage(&b, m, res)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func writeTrace(b *strings.Builder, m *spec.Model, v *checker.Violation) {
	steps := len(v.Trace) - 1
	word := "steps"
	if steps == 1 {
		word = "step"
	}
	fmt.Fprintf(b, "\ntrace, %d %s:\n", steps, word)
	var prev []int64
	for i, st := range v.Trace {
		marker := "  "
		if v.LoopStart >= 0 && i == v.LoopStart {
			marker = "->"
		}
		if st.Action < 0 {
			fmt.Fprintf(b, "%s%3d  initial state\n", marker, i)
		} else {
			fmt.Fprintf(b, "%s%3d  %s", marker, i, m.Actions[st.Action].Name)
			for _, a := range st.Asked {
				ag := m.Agents[a.Agent]
				fmt.Fprintf(b, "   %s → %s", ag.Name, valueNode(ag.Result, a.Value))
			}
			b.WriteString("\n")
		}
		for _, vr := range m.Vars {
			var old []int64
			if prev != nil {
				old = prev[vr.Slot : vr.Slot+vr.Type.Width]
			}
			writeChanges(b, vr.Name, vr.Type, old, st.State[vr.Slot:vr.Slot+vr.Type.Width])
		}
		prev = st.State
	}
	if v.LoopStart >= 0 {
		b.WriteString(loopLine(m, v))
	}
}

// writeChanges prints, as `path = value`, the parts of a value that differ
// from old (everything when old is nil): one line per changed scalar,
// array element or record field; a set prints whole.
func writeChanges(b *strings.Builder, path string, t *spec.Type, old, cur []int64) {
	if old != nil && equal(old, cur) {
		return
	}
	switch t.Kind {
	case spec.ArrayKind:
		if old == nil && t.Elem.IsScalar() {
			break // a fresh scalar array prints whole
		}
		w := t.Elem.Width
		for i := 0; i < int(t.Index.Size()); i++ {
			var o []int64
			if old != nil {
				o = old[i*w : (i+1)*w]
			}
			writeChanges(b, path+"["+scalarName(t.Index, t.Index.Lo+int64(i))+"]", t.Elem, o, cur[i*w:(i+1)*w])
		}
		return
	case spec.RecordKind:
		if old == nil {
			break
		}
		for _, f := range t.Fields {
			sl := func(s []int64) []int64 { return s[f.Offset : f.Offset+f.Type.Width] }
			writeChanges(b, path+"."+f.Name, f.Type, sl(old), sl(cur))
		}
		return
	}
	fmt.Fprintf(b, "         %s = %s\n", path, valueNode(t, cur))
}

func equal(a, b []int64) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// writeReads shows the variables the violated invariant reads, with their
// values in the last state of the trace.
func writeReads(b *strings.Builder, m *spec.Model, v *checker.Violation) {
	if v.Kind != checker.Invariant || len(v.Trace) == 0 {
		return
	}
	var inv *spec.Invariant
	for _, in := range m.Invariants {
		if in.Name == v.Name {
			inv = in
		}
	}
	if inv == nil {
		return
	}
	seen := map[int]bool{}
	var vars []int
	var walk func(e *spec.Expr)
	walk = func(e *spec.Expr) {
		if e == nil {
			return
		}
		if e.Op == spec.OpVar {
			vi := m.Slots[e.Slot].Var
			if !seen[vi] {
				seen[vi] = true
				vars = append(vars, vi)
			}
		}
		for _, a := range e.Args {
			walk(a)
		}
	}
	walk(inv.Expr)
	if len(vars) == 0 {
		return
	}
	last := v.Trace[len(v.Trace)-1].State
	fmt.Fprintf(b, "\n%s reads, in the last state:\n", v.Name)
	for _, vi := range vars {
		vr := m.Vars[vi]
		fmt.Fprintf(b, "         %s = %s\n", vr.Name, varValue(vr, last))
	}
}

func writeCoverage(b *strings.Builder, m *spec.Model, res *checker.Result) {
	for i, a := range m.Actions {
		if i < len(res.Coverage.Fired) && res.Coverage.Fired[i] == 0 {
			fmt.Fprintf(b, "warning: %s: action %s never fired\n", a.Pos, a.Name)
		}
	}
	for _, name := range res.Coverage.VacuousInvariants {
		for _, in := range m.Invariants {
			if in.Name == name {
				fmt.Fprintf(b, "warning: %s: invariant %s holds vacuously: its antecedent never held\n", in.Pos, name)
			}
		}
	}
}

func humanRate(r float64) string {
	switch {
	case r >= 1e6:
		return fmt.Sprintf("%.2fM", r/1e6)
	case r >= 1e3:
		return fmt.Sprintf("%.1fk", r/1e3)
	}
	return fmt.Sprintf("%.0f", r)
}

// loopLine says how a lasso closes: the last entry steps back to
// Trace[LoopStart] by the action that first led there, or, when the last
// state has no enabled action, it repeats forever by stuttering.
func loopLine(m *spec.Model, v *checker.Violation) string {
	last, ls := len(v.Trace)-1, v.LoopStart
	if ls > 0 && equal(v.Trace[ls-1].State, v.Trace[last].State) && v.Trace[ls].Action >= 0 {
		span := fmt.Sprintf("steps %d to %d repeat", ls, last)
		if ls == last {
			span = fmt.Sprintf("step %d repeats", ls)
		}
		return fmt.Sprintf("     ↻  %s leads back to step %d: %s forever\n", m.Actions[v.Trace[ls].Action].Name, ls, span)
	}
	return fmt.Sprintf("     ↻  no action is enabled in step %d: it repeats forever\n", last)
}
