package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/wrapcheck/wrapcheck/machine"
	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/verdict"
)

// Text writes res for people: the verdict, the counterexample with only
// the variables each step changed, what the violated invariant reads in
// the last state, the statistics and the coverage warnings. It never
// prints colour; see [TextOptions].
func Text(w io.Writer, m *spec.Model, res *verdict.Result) error {
	return TextOptions{}.Render(w, m, res)
}

// TextOptions configures the text renderer. The zero value prints plain
// text, as [Text] does.
type TextOptions struct {
	// Color marks the verdict, the steps and the agent answers with ANSI
	// colours. Set it only when the output is a terminal and NO_COLOR is
	// unset; the text is otherwise the same.
	Color bool
	// Explain adds, below what a violated invariant reads, the values of
	// its parts in the last state: each operand of its top-level implies,
	// and, or or comparison that is more than a variable, e.g.
	// `shipped == approved: false`.
	Explain bool
	// Warnings are warnings about the spec besides the search's own
	// (vet's findings), printed with them.
	Warnings []Diagnostic
	// Strict (--strict) says that warnings are failures.
	Strict bool
	// Program is the model compiled (machine.Compile) for the search
	// being rendered, with which Explain evaluates the parts and the
	// watches are evaluated; nil: the model is compiled when a part or a
	// watch is to be evaluated.
	Program *machine.Program
	// FullStates (--full-states) prints every variable at every step of
	// a trace, not only those the step changed.
	FullStates bool
	// Coverage (--coverage), when not nil, is printed after the
	// statistics: per action, the states in which it was enabled, the
	// successors it generated and the new states it reached, and the
	// actions that never fired.
	Coverage *verdict.ActionCoverage
}

// ANSI styles of the text renderer.
const (
	ansiRed    = "\033[1;31m"
	ansiGreen  = "\033[1;32m"
	ansiYellow = "\033[33m"
	ansiBold   = "\033[1m"
	ansiCyan   = "\033[36m"
	ansiReset  = "\033[0m"
)

// paint wraps s in the ANSI style when colour is on.
func (o TextOptions) paint(style, s string) string {
	if !o.Color || s == "" {
		return s
	}
	return style + s + ansiReset
}

// Render writes res as [Text] does, with the options of o.
func (o TextOptions) Render(w io.Writer, m *spec.Model, res *verdict.Result) error {
	var b strings.Builder
	switch res.Verdict {
	case verdict.Holds:
		b.WriteString(o.paint(ansiGreen, fmt.Sprintf("%s: every check holds", Escape(m.Name))) + "\n")
	case verdict.Unknown:
		b.WriteString(o.paint(ansiYellow, fmt.Sprintf("%s: incomplete: %s; no violation found in the states explored", Escape(m.Name), res.Reason())) + "\n")
	case verdict.Violated:
		vs := Violations(res)
		if len(vs) > 1 {
			b.WriteString(o.paint(ansiRed, fmt.Sprintf("%s: %d checks are violated", Escape(m.Name), len(vs))) + "\n\n")
		}
		for i, v := range vs {
			if i > 0 {
				b.WriteString("\n")
			}
			o.writeViolation(&b, m, v)
		}
		if len(res.Undecided) > 0 {
			fmt.Fprintf(&b, "\nnot decided: %s\n", Escape(strings.Join(propertyTitles(res.Undecided), ", ")))
		}
	}
	if len(res.Notes) > 0 {
		b.WriteString("\n")
		for _, n := range res.Notes {
			fmt.Fprintf(&b, "note: %s\n", Escape(n))
		}
	}
	s := res.Stats
	fmt.Fprintf(&b, "\n%d states, %d transitions, depth %d, %.3f s", s.States, s.Transitions, s.Depth, s.Seconds)
	switch safety := s.Seconds - s.PropertySeconds; {
	case s.PropertySeconds > 0 && safety > 0:
		fmt.Fprintf(&b, " (safety %.3f s, %s states/s; properties %.3f s)", safety, humanRate(float64(s.States)/safety), s.PropertySeconds)
	case s.Seconds > 0:
		fmt.Fprintf(&b, " (%s states/s)", humanRate(float64(s.States)/s.Seconds))
	}
	word := "workers"
	if s.Workers == 1 {
		word = "worker"
	}
	fmt.Fprintf(&b, ", %d %s", s.Workers, word)
	if s.PeakHeapBytes > 0 {
		fmt.Fprintf(&b, ", %s peak heap", humanBytes(s.PeakHeapBytes))
	}
	b.WriteString("\n")
	if res.Stop == verdict.StopAtViolation {
		b.WriteString("the search stopped at the end of the breadth-first level of the first violation: the figures cover the states explored until then (--continue explores every reachable state)\n")
	}
	if o.Coverage != nil {
		writeCoverage(&b, m, o.Coverage)
	}
	warn := o.paint(ansiYellow, "warning:")
	ws := allWarnings(m, res, o.Warnings)
	for _, d := range ws {
		fmt.Fprintf(&b, "%s %s\n", warn, Escape(d.String()))
	}
	if o.Strict && len(ws) > 0 {
		fmt.Fprintf(&b, "%s\n", o.paint(ansiRed, fmt.Sprintf("--strict: the %s count as failures", verdict.Plural(len(ws), "warning"))))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeViolation writes one violation: its headline and position, the
// trace, and what a violated invariant reads.
func (o TextOptions) writeViolation(b *strings.Builder, m *spec.Model, v *verdict.Violation) {
	b.WriteString(o.paint(ansiRed, Headline(m, v)) + "\n")
	if v.Pos.IsValid() && (v.Kind == verdict.RuntimeError || v.Kind == verdict.Assertion) {
		fmt.Fprintf(b, "  %s: here\n", Escape(v.Pos.String()))
	} else if v.Pos.IsValid() {
		fmt.Fprintf(b, "  %s: %s", Escape(v.Pos.String()), v.Kind)
		if v.Name != "" {
			fmt.Fprintf(b, " %s", Escape(v.Name))
		}
		if v.Msg != "" && v.Kind != verdict.Invariant {
			fmt.Fprintf(b, ": %s", Escape(v.Msg))
		}
		b.WriteString("\n")
	}
	o.writeTrace(b, m, v, nil)
	writeReads(b, m, v)
	if o.Explain {
		writeParts(b, m, o.Program, v)
	}
}

// propertyTitles returns "property N" for each name.
func propertyTitles(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = "property " + n
	}
	return out
}

// Headline is the one-line summary of a violation: "Spec: invariant X is
// violated", "Spec: deadlock: ...", "Spec: assertion in action A: msg".
// Control characters of the names and the message are escaped ([Escape]).
func Headline(m *spec.Model, v *verdict.Violation) string {
	name, vname, msg := Escape(m.Name), Escape(v.Name), Escape(v.Msg)
	switch {
	case v.Kind == verdict.Deadlock:
		return fmt.Sprintf("%s: deadlock: no action is enabled and the state is not terminal", name)
	case v.Kind == verdict.RuntimeError || v.Kind == verdict.Assertion:
		return fmt.Sprintf("%s: %s in action %s: %s", name, strings.ReplaceAll(v.Kind.String(), "-", " "), vname, msg)
	case v.Name == "":
		return fmt.Sprintf("%s: %s", name, v.Kind)
	}
	return fmt.Sprintf("%s: %s %s is violated", name, v.Kind, vname)
}

// writeTrace writes v's trace; note, when not nil, gives a text to
// append to the line of each step (the probabilities of prob's
// witnesses).
func (o TextOptions) writeTrace(b *strings.Builder, m *spec.Model, v *verdict.Violation, note func(i int) string) {
	steps := len(v.Trace) - 1
	word := "steps"
	if steps == 1 {
		word = "step"
	}
	sl := sliceOf(v)
	if sl != nil {
		fmt.Fprintf(b, "\ntrace, %d %s, %d essential (*):\n", steps, word, essentialCount(sl))
	} else {
		fmt.Fprintf(b, "\ntrace, %d %s:\n", steps, word)
	}
	var prev []int64
	watches := traceWatches(m, o.Program, v.Trace)
	for i, st := range v.Trace {
		marker := "  "
		if v.LoopStart >= 0 && i == v.LoopStart {
			marker = o.paint(ansiYellow, "->")
		}
		if sl != nil && sl.Steps[i].Essential {
			marker = o.paint(ansiRed, "* ")
		}
		if st.Action < 0 {
			fmt.Fprintf(b, "%s%3d  %s", marker, i, o.paint(ansiBold, stepLabel(m, st, i)))
			if note != nil {
				b.WriteString(note(i))
			}
			b.WriteString("\n")
		} else {
			fmt.Fprintf(b, "%s%3d  %s", marker, i, o.paint(ansiBold, m.Actions[st.Action].Name))
			for _, a := range st.Asked {
				ag := m.Agents[a.Agent]
				fmt.Fprintf(b, "   %s", o.paint(ansiCyan, fmt.Sprintf("%s → %s", ag.Name, valueNode(ag.Result, a.Value).folded(foldLimit))))
			}
			if note != nil {
				b.WriteString(note(i))
			}
			b.WriteString("\n")
		}
		for _, vr := range m.Vars {
			if vr.Monitor != nil {
				continue
			}
			var old []int64
			if prev != nil && !o.FullStates {
				old = prev[vr.Slot : vr.Slot+vr.Type.Width]
			}
			writeChanges(b, vr.Name, vr.Type, old, st.State[vr.Slot:vr.Slot+vr.Type.Width])
		}
		monitorChanges(m, prev, st.State, func(name string, v bool) {
			fmt.Fprintf(b, "         %s = %t\n", name, v)
		})
		if watches != nil {
			for _, l := range watchLines(m, watches[i]) {
				fmt.Fprintf(b, "         %s\n", o.paint(ansiCyan, Escape(l)))
			}
		}
		if sl != nil {
			if why := sl.Steps[i].Because; why != "" {
				fmt.Fprintf(b, "         because: %s\n", Escape(why))
			}
			if sl.Steps[i].BeforeNext {
				fmt.Fprintf(b, "         must come before step %d\n", i+1)
			}
		}
		prev = st.State
	}
	if sl != nil && len(sl.Reads) > 0 && v.Kind != verdict.Invariant {
		fmt.Fprintf(b, "\nthe violated check reads: %s\n", Escape(strings.Join(sl.Reads, ", ")))
	}
	if v.LoopStart >= 0 {
		b.WriteString(o.paint(ansiYellow, strings.TrimSuffix(loopLine(m, v), "\n")) + "\n")
	}
}

// sliceOf returns the causal slice attached to v, or nil when there is
// none or it does not fit the trace.
func sliceOf(v *verdict.Violation) *verdict.Slice {
	if v.Slice == nil || v.LoopStart >= 0 || len(v.Slice.Steps) != len(v.Trace) {
		return nil
	}
	return v.Slice
}

// essentialCount counts the essential steps of sl.
func essentialCount(sl *verdict.Slice) int {
	n := 0
	for _, s := range sl.Steps {
		if s.Essential {
			n++
		}
	}
	return n
}

// writeChanges prints, as `path = value`, the parts of a value that differ
// from old (everything when old is nil): one line per changed scalar,
// array element or record field; a set prints whole.
func writeChanges(b *strings.Builder, path string, t *spec.Type, old, cur []int64) {
	changes(path, t, old, cur, func(path string, n node) {
		fmt.Fprintf(b, "         %s = %s\n", path, n.folded(foldLimit))
	})
}

// changes calls emit for each part of a value that differs from old
// (everything when old is nil): each changed scalar, array element or
// record field; a set, and a fresh scalar array, whole.
func changes(path string, t *spec.Type, old, cur []int64, emit func(path string, n node)) {
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
			changes(path+"["+scalarName(t.Index, t.Index.Lo+int64(i))+"]", t.Elem, o, cur[i*w:(i+1)*w], emit)
		}
		return
	case spec.RecordKind:
		if old == nil || t.Seq {
			break // a sequence prints whole, as its elements
		}
		for _, f := range t.Fields {
			sl := func(s []int64) []int64 { return s[f.Offset : f.Offset+f.Type.Width] }
			changes(path+"."+f.Name, f.Type, sl(old), sl(cur), emit)
		}
		return
	}
	emit(path, valueNode(t, cur))
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
func writeReads(b *strings.Builder, m *spec.Model, v *verdict.Violation) {
	if v.Kind != verdict.Invariant || len(v.Trace) == 0 {
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
	spec.Walk(inv.Expr, func(e *spec.Expr) bool {
		if e.Op == spec.OpVar {
			vi := m.Slots[e.Slot].Var
			if !seen[vi] {
				seen[vi] = true
				vars = append(vars, vi)
			}
		}
		return true
	})
	if len(vars) == 0 {
		return
	}
	last := v.Trace[len(v.Trace)-1].State
	fmt.Fprintf(b, "\n%s reads, in the last state:\n", v.Name)
	for _, vi := range vars {
		vr := m.Vars[vi]
		if mon := vr.Monitor; mon != nil {
			for i, name := range mon.Names {
				fmt.Fprintf(b, "         %s = %t\n", name, last[vr.Slot+i] != 0)
			}
			continue
		}
		fmt.Fprintf(b, "         %s = %s\n", vr.Name, varValue(vr, last).folded(foldLimit))
	}
}

// writeParts shows the values of the parts of a violated invariant.
func writeParts(b *strings.Builder, m *spec.Model, prog *machine.Program, v *verdict.Violation) {
	if v.Kind != verdict.Invariant || len(v.Trace) == 0 {
		return
	}
	for _, in := range m.Invariants {
		if in.Name != v.Name {
			continue
		}
		parts := invariantParts(m, prog, in.Expr, v.Trace[len(v.Trace)-1].State)
		if len(parts) == 0 {
			return
		}
		b.WriteString("       and its parts evaluate to:\n")
		for _, p := range parts {
			fmt.Fprintf(b, "         %s\n", p)
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
func loopLine(m *spec.Model, v *verdict.Violation) string {
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

func humanBytes(n uint64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.0f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.0f KiB", float64(n)/(1<<10))
}

// writeCoverage writes the per-action coverage of the state space, as
// TLC prints it: per action, the states that enable it, the successors it
// generated and the new states it reached, then the actions that never
// fired.
func writeCoverage(b *strings.Builder, m *spec.Model, c *verdict.ActionCoverage) {
	scope := "every reachable state, without reduction"
	if c.Truncated {
		scope = "stopped early: the counts cover the states expanded"
	}
	fmt.Fprintf(b, "\ncoverage of %s (%s):\n", verdict.Plural(int(c.States), "state"), scope)
	fmt.Fprintf(b, "  %8s %8s %8s  %s\n", "enabled", "fired", "new", "action")
	var never []string
	for i, a := range m.Actions {
		if i >= len(c.Fired) {
			break
		}
		fmt.Fprintf(b, "  %8d %8d %8d  %s  %s\n", c.Enabled[i], c.Fired[i], c.Distinct[i], Escape(a.Name), Escape(a.Pos.String()))
		if c.Fired[i] == 0 {
			never = append(never, a.Name)
		}
	}
	if len(never) > 0 {
		fmt.Fprintf(b, "  never fired: %s\n", Escape(strings.Join(never, ", ")))
	}
}
