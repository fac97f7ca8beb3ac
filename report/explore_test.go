package report_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wrapcheck/wrapcheck/checker"
	"github.com/wrapcheck/wrapcheck/machine"
	"github.com/wrapcheck/wrapcheck/report"
	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/verdict"
)

// TestExploreGraph: the graph of a small model, node by node and edge by
// edge, and the same model cut at a state limit.
func TestExploreGraph(t *testing.T) {
	m, err := spec.ParseFile("t.wrap", []byte(`spec T
var x: 0..2
process p {
  action up when x < 2 { x := x + 1 }
  action reset when x == 2 { x := 0 }
  action stay when x == 1 { x := 1 }
}
`), spec.Options{})
	if err != nil {
		t.Fatal(err)
	}
	prog, err := machine.Compile(m)
	if err != nil {
		t.Fatal(err)
	}
	type edge struct {
		From, To int
		Actions  []int
	}
	type graph struct {
		States    []int64
		Initial   []bool
		Edges     []edge
		Truncated bool
	}
	flat := func(g *report.StateGraph) graph {
		var out graph
		for _, n := range g.Nodes {
			out.States = append(out.States, n.State...)
			out.Initial = append(out.Initial, n.Initial)
		}
		for _, e := range g.Edges {
			out.Edges = append(out.Edges, edge(e))
		}
		out.Truncated = g.Truncated
		return out
	}
	for _, tt := range []struct {
		limit int64
		want  graph
	}{
		{100, graph{States: []int64{0, 1, 2}, Initial: []bool{true, false, false},
			Edges: []edge{{0, 1, []int{0}}, {1, 1, []int{2}}, {1, 2, []int{0}}, {2, 0, []int{1}}}}},
		{2, graph{States: []int64{0, 1}, Initial: []bool{true, false},
			Edges: []edge{{0, 1, []int{0}}, {1, 1, []int{2}}}, Truncated: true}},
	} {
		if diff := cmp.Diff(tt.want, flat(report.ExploreGraph(prog, tt.limit))); diff != "" {
			t.Errorf("limit %d (-want +got):\n%s", tt.limit, diff)
		}
	}
}

// TestExploreGraphCounts: without a limit, the graph has the states the
// unreduced safety search stores, on every classic example whose checks
// hold (a violation stops that search early).
func TestExploreGraphCounts(t *testing.T) {
	paths, err := filepath.Glob("../examples/classic/*.wrap")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no examples: %v", err)
	}
	compared := 0
	for _, path := range paths {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		m, err := spec.ParseFile(filepath.Base(path), src, spec.Options{})
		if err != nil {
			t.Fatal(err)
		}
		prog, err := machine.Compile(m)
		if err != nil {
			t.Fatal(err)
		}
		res, err := checker.RunProgram(context.Background(), prog, checker.Options{NoDeadlock: true, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		if res.Verdict != verdict.Holds {
			continue
		}
		compared++
		g := report.ExploreGraph(prog, 1<<40)
		if g.Truncated || int64(len(g.Nodes)) != res.Stats.States {
			t.Errorf("%s: %d nodes (truncated %v), the search stores %d states", path, len(g.Nodes), g.Truncated, res.Stats.States)
		}
	}
	if compared == 0 {
		t.Error("no example holds: nothing compared")
	}
}
