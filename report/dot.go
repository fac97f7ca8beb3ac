package report

import (
	"bytes"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/dominikbraun/graph"
	"github.com/dominikbraun/graph/draw"
	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/verdict"
)

// DOT writes the counterexample of res as a Graphviz digraph: one node
// per trace entry (its step, action and what it changed), one edge per
// step labelled with the action and its agent answers, a lasso's closing
// edge dashed, and the last (violating) node red; when several checks are
// violated, a note node names the others. When every check holds
// or the search is incomplete, the graph holds one note node.
func DOT(w io.Writer, m *spec.Model, res *verdict.Result) error {
	g := graph.New(graph.StringHash, graph.Directed())
	v := res.Violation
	label := m.Name + ": every check holds"
	if res.Verdict == verdict.Unknown {
		label = m.Name + ": incomplete: " + res.Reason()
	}
	if res.Verdict != verdict.Violated || v == nil || len(v.Trace) == 0 {
		if err := g.AddVertex(vertex(0), graph.VertexAttributes(map[string]string{"shape": "note", "label": dotText(label)})); err != nil {
			return err
		}
		return drawDOT(w, g, m.Name)
	}
	last := len(v.Trace) - 1
	watches := traceWatches(m, nil, v.Trace)
	for i, st := range v.Trace {
		lines := []string{fmt.Sprintf("%d: %s", i, stepLabel(m, st, i))}
		lines = append(lines, changedVars(m, v.Trace, i)...)
		if watches != nil {
			lines = append(lines, watchLines(m, watches[i])...)
		}
		attrs := map[string]string{"shape": "box", "label": dotLines(lines)}
		if i == last {
			attrs["color"], attrs["fontcolor"], attrs["penwidth"] = "red", "red", "2"
			attrs["xlabel"] = dotText(checkTitle(v.Kind, v.Name))
		}
		if err := g.AddVertex(vertex(i), graph.VertexAttributes(attrs)); err != nil {
			return err
		}
	}
	for i := 1; i <= last; i++ {
		st := v.Trace[i]
		lines := []string{"no action enabled (repeats)"}
		if st.Action >= 0 {
			lines = []string{m.Actions[st.Action].Name}
		}
		lines = append(lines, answers(m, st)...)
		if err := g.AddEdge(vertex(i-1), vertex(i), graph.EdgeAttribute("label", dotLines(lines))); err != nil {
			return err
		}
	}
	if ls := v.LoopStart; ls >= 0 {
		attrs := map[string]string{"style": "dashed", "color": "red"}
		if ls > 0 && equal(v.Trace[ls-1].State, v.Trace[last].State) && v.Trace[ls].Action >= 0 {
			attrs["label"] = dotText(m.Actions[v.Trace[ls].Action].Name + " (repeats forever)")
		} else {
			ls = last
			attrs["label"] = "no action enabled (repeats forever)"
		}
		if err := g.AddEdge(vertex(last), vertex(ls), graph.EdgeAttributes(attrs)); err != nil {
			return err
		}
	}
	if others := alsoViolated(m, res); others != "" {
		if err := g.AddVertex(vertex(last+1), graph.VertexAttributes(map[string]string{"shape": "note", "label": dotText(others)})); err != nil {
			return err
		}
	}
	return drawDOT(w, g, m.Name)
}

// drawDOT renders g with draw.DOT and sorts its statements (nodes by id,
// each followed by its out-edges by target), since draw.DOT iterates over
// maps: the output is then the same on every run.
//
// Vertices are named "s0", "s1", ...: draw.DOT's template tests an edge's
// target for truth, so an integer vertex 0 would lose its in-edges.
func drawDOT(w io.Writer, g graph.Graph[string, string], name string) error {
	var buf bytes.Buffer
	if err := draw.DOT(g, &buf, draw.GraphAttribute("label", dotText(name)), draw.GraphAttribute("labelloc", "t")); err != nil {
		return err
	}
	type stmt struct {
		src, dst int // dst -1 for a node statement
		text     string
	}
	var head []string
	var stmts []stmt
	for _, line := range strings.Split(buf.String(), "\n") {
		t := strings.TrimSpace(line)
		if t == "" || t == "}" {
			continue
		}
		if !strings.HasPrefix(t, `"`) {
			head = append(head, t)
			continue
		}
		s := stmt{dst: -1, text: t}
		src, rest, _ := strings.Cut(t[1:], `"`)
		s.src, _ = strconv.Atoi(strings.TrimPrefix(src, "s"))
		if r := strings.TrimSpace(rest); strings.HasPrefix(r, "-> \"") {
			dst, _, _ := strings.Cut(r[len(`-> "`):], `"`)
			s.dst, _ = strconv.Atoi(strings.TrimPrefix(dst, "s"))
		}
		stmts = append(stmts, s)
	}
	sort.SliceStable(stmts, func(i, j int) bool {
		if stmts[i].src != stmts[j].src {
			return stmts[i].src < stmts[j].src
		}
		return stmts[i].dst < stmts[j].dst
	})
	var out strings.Builder
	for i, h := range head {
		if i > 0 {
			out.WriteString("\t")
		}
		out.WriteString(h + "\n")
	}
	for _, s := range stmts {
		out.WriteString("\t" + s.text + "\n")
	}
	out.WriteString("}\n")
	_, err := io.WriteString(w, out.String())
	return err
}

// dotLines joins label lines with DOT's left-justified line break.
func dotLines(lines []string) string {
	for i, l := range lines {
		lines[i] = dotText(l)
	}
	return strings.Join(lines, `\l`) + `\l`
}

// dotText escapes s for a double-quoted DOT string (draw.DOT does not).
func dotText(s string) string {
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(Escape(s))
}

// vertex names node i of a DOT graph.
func vertex(i int) string { return "s" + strconv.Itoa(i) }
