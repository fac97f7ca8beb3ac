package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/verdict"
)

// Mermaid writes the counterexample of res as a Mermaid sequenceDiagram:
// one participant per process instance (p0, p1, ...) and per agent (a0,
// ...); the initial state as a note; each step as a message from the
// acting process to itself, numbered, with what it changed, preceded by
// a request/reply pair with each agent it asked (with a causal slice
// attached, verdict.Violation.Slice, an essential step is marked * and
// highlighted in a `rect` block, with its because line); a lasso's cycle
// inside a `loop` block; the violation as a final note (and, when several checks
// are violated, a note naming the others, whose traces the other formats
// show). When every check holds or
// the search is incomplete, the diagram holds only that note.
func Mermaid(w io.Writer, m *spec.Model, res *verdict.Result) error {
	var b strings.Builder
	b.WriteString("sequenceDiagram\n")
	for i, p := range m.Processes {
		fmt.Fprintf(&b, "  participant p%d as %s\n", i, MermaidText(p.Name))
	}
	for i, a := range m.Agents {
		fmt.Fprintf(&b, "  participant a%d as %s (agent)\n", i, MermaidText(a.Name))
	}
	if len(m.Processes) == 0 {
		b.WriteString("  participant p0 as " + MermaidText(m.Name) + "\n")
	}
	over := "p0"
	if n := len(m.Processes); n > 1 {
		over = fmt.Sprintf("p0,p%d", n-1)
	}
	v := res.Violation
	if res.Verdict != verdict.Violated || v == nil {
		text := m.Name + ": every check holds"
		if res.Verdict == verdict.Unknown {
			text = m.Name + ": incomplete: " + res.Reason() + "; no violation found"
		}
		fmt.Fprintf(&b, "  Note over %s: %s\n", over, MermaidText(text))
		_, err := io.WriteString(w, b.String())
		return err
	}
	indent := "  "
	sl := sliceOf(v)
	watches := traceWatches(m, nil, v.Trace)
	for i, st := range v.Trace {
		if i == v.LoopStart {
			fmt.Fprintf(&b, "  loop %s\n", MermaidText(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(loopLine(m, v)), "↻"))))
			indent = "    "
		}
		lines := changedVars(m, v.Trace, i)
		var wl []string
		if watches != nil {
			wl = watchLines(m, watches[i])
		}
		if st.Action < 0 {
			text := append(append([]string{fmt.Sprintf("%d. %s", i, stepLabel(m, st, i))}, lines...), wl...)
			fmt.Fprintf(&b, "%sNote over %s: %s\n", indent, over, MermaidLines(text))
			continue
		}
		a := m.Actions[st.Action]
		p := fmt.Sprintf("p%d", a.Process)
		ind := indent
		head := fmt.Sprintf("%d. %s", i, a.Name)
		essential := sl != nil && sl.Steps[i].Essential
		if essential {
			// An essential step of the causal slice: highlighted.
			fmt.Fprintf(&b, "%srect rgb(255, 224, 178)\n", ind)
			ind += "  "
			head = "* " + head
		}
		for _, ans := range st.Asked {
			ag := m.Agents[ans.Agent]
			fmt.Fprintf(&b, "%s%s->>a%d: ask %s\n", ind, p, ans.Agent, MermaidText(ag.Name))
			fmt.Fprintf(&b, "%sa%d-->>%s: %s\n", ind, ans.Agent, p, MermaidText(valueNode(ag.Result, ans.Value).folded(foldLimit)))
		}
		if len(lines) == 0 {
			lines = []string{"no change"}
		}
		text := append(append([]string{head}, lines...), wl...)
		if sl != nil && sl.Steps[i].Because != "" {
			text = append(text, "because: "+sl.Steps[i].Because)
		}
		fmt.Fprintf(&b, "%s%s->>%s: %s\n", ind, p, p, MermaidLines(text))
		if essential {
			fmt.Fprintf(&b, "%send\n", indent)
		}
	}
	if v.LoopStart >= 0 {
		b.WriteString("  end\n")
	}
	head := Headline(m, v)
	if v.Msg != "" && v.Kind == verdict.Property {
		head += ": " + v.Msg
	}
	fmt.Fprintf(&b, "  Note over %s: %s\n", over, MermaidText(head))
	if others := alsoViolated(m, res); others != "" {
		fmt.Fprintf(&b, "  Note over %s: %s\n", over, MermaidText(others))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// MermaidLines joins lines with <br/>, each escaped (MermaidText): one
// Mermaid label or note of several lines.
func MermaidLines(lines []string) string {
	for i, l := range lines {
		lines[i] = MermaidText(l)
	}
	return strings.Join(lines, "<br/>")
}

// MermaidText escapes the characters that end or alter a Mermaid
// statement: `#` and `;` (entity codes), `<` and `>`, and (through
// [Escape]) newlines and control characters.
func MermaidText(s string) string {
	return strings.NewReplacer("#", "#35;", ";", "#59;", "<", "#lt;", ">", "#gt;").Replace(Escape(s))
}

// alsoViolated names the violations of res after the first, with the
// length of each trace: "also violated: invariant B (3 steps), property P
// (a lasso)"; "" when there is at most one.
func alsoViolated(m *spec.Model, res *verdict.Result) string {
	vs := Violations(res)
	if len(vs) < 2 {
		return ""
	}
	var parts []string
	for _, v := range vs[1:] {
		n := fmt.Sprintf("%d steps", len(v.Trace)-1)
		switch {
		case v.LoopStart >= 0:
			n = "a lasso"
		case len(v.Trace) == 2:
			n = "1 step"
		}
		parts = append(parts, fmt.Sprintf("%s (%s)", checkTitle(v.Kind, v.Name), n))
	}
	return "also violated: " + strings.Join(parts, ", ")
}
