package ltl

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wrapcheck/wrapcheck/internal/golden"
	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/verdict"
)

// TestGolden checks every property of each testdata/*.txtar spec (section
// in.wrap) separately and compares the rendered results with section
// out/result. WRAPCHECK_UPDATE=1 rewrites the expectations.
func TestGolden(t *testing.T) {
	for _, file := range golden.Glob(t, "testdata/*.txtar") {
		ar := golden.Load(t, file)
		t.Run(ar.Name(), func(t *testing.T) {
			m, err := spec.ParseFile("in.wrap", ar.Spec(t), spec.Options{})
			if err != nil {
				t.Fatal(err)
			}
			ar.Check(t, "out/result", []byte(renderAll(t, m)))
		})
	}
}

// loadSpec parses the in.wrap section of the golden archive file.
func loadSpec(t testing.TB, file string) *spec.Model {
	t.Helper()
	m, err := spec.ParseFile("in.wrap", golden.Load(t, file).Spec(t), spec.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// renderAll checks each property of m on its own, twice (the results
// must be equal), and renders the results.
func renderAll(t *testing.T, m *spec.Model) string {
	var b strings.Builder
	for _, p := range m.Properties {
		var ps PropertyStats
		res, err := Check(context.Background(), m, Options{Only: []string{p.Name}, OnProperty: func(s PropertyStats) { ps = s }})
		if err != nil {
			t.Fatal(err)
		}
		again, err := Check(context.Background(), m, Options{Only: []string{p.Name}})
		if err != nil {
			t.Fatal(err)
		}
		out := render(m, res, ps)
		if out2 := render(m, again, ps); out2 != out {
			t.Errorf("a second check differs (-first +second):\n%s", cmp.Diff(out, out2))
		}
		b.WriteString(out)
	}
	return b.String()
}

func render(m *spec.Model, res *verdict.Result, ps PropertyStats) string {
	var b strings.Builder
	fmt.Fprintf(&b, "property %s: %s\n", ps.Name, res.Verdict)
	fmt.Fprintf(&b, "negation: %s\n", ps.Formula)
	fmt.Fprintf(&b, "automaton: %d states, %d edges, %d acceptance sets\n", ps.AutomatonStates, ps.AutomatonEdges, ps.AcceptanceSets)
	fmt.Fprintf(&b, "product: %d nodes, %d edges; system: %d states, %d transitions\n",
		ps.ProductNodes, ps.ProductEdges, res.Stats.States, res.Stats.Transitions)
	if v := res.Violation; v != nil {
		fmt.Fprintf(&b, "%s %s: %s\n", v.Kind, v.Name, v.Msg)
		for i, st := range v.Trace {
			act := "(initial)"
			if i > 0 {
				act = "(stutter)"
			}
			if st.Action >= 0 {
				act = m.Actions[st.Action].Name
			}
			mark := "  "
			if i == v.LoopStart {
				mark = "->"
			}
			fmt.Fprintf(&b, "%s %2d %-18s %s\n", mark, i, act, formatState(m, st.State))
		}
		if v.LoopStart >= 0 {
			fmt.Fprintf(&b, "   (back to %d)\n", v.LoopStart)
		}
	}
	b.WriteString("\n")
	return b.String()
}

func formatState(m *spec.Model, slots []int64) string {
	var parts []string
	for _, v := range m.Vars {
		s, _ := formatValue(v.Type, slots[v.Slot:])
		parts = append(parts, v.Name+"="+s)
	}
	return strings.Join(parts, " ")
}

func formatValue(t *spec.Type, slots []int64) (string, int) {
	switch t.Kind {
	case spec.BoolKind:
		return fmt.Sprint(slots[0] != 0), 1
	case spec.EnumKind, spec.SymmetricKind:
		if int(slots[0]) < len(t.Names) {
			return t.Names[slots[0]], 1
		}
	case spec.SetKind:
		var els []string
		for k := int64(0); k < t.Elem.Size(); k++ {
			if slots[0]&(1<<uint(k)) != 0 {
				s, _ := formatValue(t.Elem, []int64{t.Elem.Lo + k})
				els = append(els, s)
			}
		}
		return "{" + strings.Join(els, ",") + "}", 1
	case spec.ArrayKind:
		var els []string
		off := 0
		for k := int64(0); k < t.Index.Size(); k++ {
			s, n := formatValue(t.Elem, slots[off:])
			els = append(els, s)
			off += n
		}
		return "[" + strings.Join(els, ",") + "]", off
	case spec.RecordKind:
		var els []string
		if t.Seq { // a sequence: its len elements
			for k := int64(0); k < slots[0]; k++ {
				s, _ := formatValue(t.Fields[1].Type.Elem, slots[1+int(k)*t.Fields[1].Type.Elem.Width:])
				els = append(els, s)
			}
			return "[" + strings.Join(els, ",") + "]", t.Width
		}
		for _, f := range t.Fields {
			s, _ := formatValue(f.Type, slots[f.Offset:])
			els = append(els, f.Name+":"+s)
		}
		return "{" + strings.Join(els, ",") + "}", t.Width
	}
	return fmt.Sprint(slots[0]), 1
}
