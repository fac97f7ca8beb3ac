package report

import (
	"bytes"
	"encoding/binary"
	"io"
	"strconv"
	"strings"

	"github.com/dominikbraun/graph"
	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/verdict"
)

// StateGraph is an explored part of a model's state graph, built by
// [ExploreGraph] (for the CLI's `graph` command) and rendered by
// [StateGraph.DOT] and [StateGraph.JSON]. Node ids are indexes into Nodes, in BFS order.
type StateGraph struct {
	Nodes []GraphNode
	Edges []GraphEdge // sorted by (From, To)
	// Truncated says that some reachable states are missing: the
	// exploration stopped at its state limit.
	Truncated bool
}

// GraphNode is one reachable state.
type GraphNode struct {
	State   []int64 // unpacked slots
	Initial bool
}

// GraphEdge is every transition from one state to another: the actions
// (indexes into spec.Model.Actions, ascending, each once) with a branch
// that leads there.
type GraphEdge struct {
	From, To int
	Actions  []int
}

// onTrace marks the nodes and edges a violation's trace visits.
type onTrace struct {
	nodes map[int]bool
	edges map[[2]int]bool
}

// trace finds the trace of v in g: each entry's state as a node, each
// step as an edge, and a lasso's closing edge. Entries outside g (beyond
// its state limit) are skipped.
func (g *StateGraph) trace(v *verdict.Violation) onTrace {
	on := onTrace{nodes: map[int]bool{}, edges: map[[2]int]bool{}}
	if v == nil {
		return on
	}
	key := func(s []int64) string {
		b := make([]byte, 0, 8*len(s))
		for _, x := range s {
			b = binary.LittleEndian.AppendUint64(b, uint64(x))
		}
		return string(b)
	}
	ids := make(map[string]int, len(g.Nodes))
	for i, n := range g.Nodes {
		ids[key(n.State)] = i
	}
	prev := -1
	for i, st := range v.Trace {
		id, ok := ids[key(st.State)]
		if !ok || (v.Kind == verdict.Assertion || v.Kind == verdict.RuntimeError) && i == len(v.Trace)-1 {
			prev = -1 // a failing step has no successor state
			continue
		}
		on.nodes[id] = true
		if prev >= 0 {
			on.edges[[2]int{prev, id}] = true
		}
		prev = id
	}
	if ls, last := v.LoopStart, len(v.Trace)-1; ls > 0 && prev >= 0 && equal(v.Trace[ls-1].State, v.Trace[last].State) {
		if id, ok := ids[key(v.Trace[ls].State)]; ok {
			on.edges[[2]int{prev, id}] = true
		}
	}
	return on
}

// DOT writes g as a Graphviz digraph (through dominikbraun/graph's
// draw.DOT): a node per state labelled `x=1 y=true`, initial states
// bold, an edge per (state, successor) labelled with its actions; the
// nodes and edges of v's trace (nil: none) red.
func (g *StateGraph) DOT(w io.Writer, m *spec.Model, v *verdict.Violation) error {
	on := g.trace(v)
	dg := graph.New(graph.StringHash, graph.Directed())
	for i, n := range g.Nodes {
		attrs := map[string]string{"label": dotText(wrapLabel(compactState(m, n.State), 60))}
		if n.Initial {
			attrs["penwidth"] = "2"
		}
		if on.nodes[i] {
			attrs["color"], attrs["fontcolor"] = "red", "red"
		}
		if err := dg.AddVertex(vertex(i), graph.VertexAttributes(attrs)); err != nil {
			return err
		}
	}
	for _, e := range g.Edges {
		names := make([]string, len(e.Actions))
		for i, a := range e.Actions {
			names[i] = m.Actions[a].Name
		}
		attrs := map[string]string{"label": dotText(strings.Join(names, `, `))}
		if on.edges[[2]int{e.From, e.To}] {
			attrs["color"], attrs["fontcolor"], attrs["penwidth"] = "red", "red", "2"
		}
		if err := dg.AddEdge(vertex(e.From), vertex(e.To), graph.EdgeAttributes(attrs)); err != nil {
			return err
		}
	}
	name := m.Name
	if g.Truncated {
		name += " (truncated at " + strconv.Itoa(len(g.Nodes)) + " states)"
	}
	return drawDOT(w, dg, name)
}

// JSON writes g as one JSON object: {"format": 1, "spec", "truncated",
// "nodes": [{"id", "initial", "on_trace", "state"}], "edges": [{"from",
// "to", "actions", "on_trace"}]}, states as in the check output.
func (g *StateGraph) JSON(w io.Writer, m *spec.Model, v *verdict.Violation) error {
	on := g.trace(v)
	var b bytes.Buffer
	b.WriteString("{\n")
	field(&b, "format", strconv.Itoa(FormatVersion))
	field(&b, "spec", jsonString(m.Name))
	field(&b, "truncated", strconv.FormatBool(g.Truncated))
	b.WriteString(`  "nodes": [`)
	for i, n := range g.Nodes {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("\n    {\"id\": " + strconv.Itoa(i) + `, "initial": ` + strconv.FormatBool(n.Initial) +
			`, "on_trace": ` + strconv.FormatBool(on.nodes[i]) + `, "state": `)
		stateJSON(&b, m, n.State)
		b.WriteByte('}')
	}
	if len(g.Nodes) > 0 {
		b.WriteString("\n  ")
	}
	b.WriteString("],\n  \"edges\": [")
	for i, e := range g.Edges {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("\n    {\"from\": " + strconv.Itoa(e.From) + `, "to": ` + strconv.Itoa(e.To) + `, "actions": [`)
		for j, a := range e.Actions {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString(jsonString(m.Actions[a].Name))
		}
		b.WriteString(`], "on_trace": ` + strconv.FormatBool(on.edges[[2]int{e.From, e.To}]) + "}")
	}
	if len(g.Edges) > 0 {
		b.WriteString("\n  ")
	}
	b.WriteString("]\n}\n")
	_, err := w.Write(b.Bytes())
	return err
}

// wrapLabel breaks a `x=1 y=2` label into lines of about width runes.
func wrapLabel(s string, width int) string {
	var lines []string
	cur := ""
	for _, part := range strings.Split(s, " ") {
		if cur != "" && len([]rune(cur))+1+len([]rune(part)) > width && strings.Contains(part, "=") {
			lines = append(lines, cur)
			cur = part
			continue
		}
		if cur != "" {
			cur += " "
		}
		cur += part
	}
	return strings.Join(append(lines, cur), "\n")
}
