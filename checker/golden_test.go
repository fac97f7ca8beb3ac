package checker

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wrapcheck/wrapcheck/internal/golden"
	"github.com/wrapcheck/wrapcheck/spec"
)

// TestGolden runs every testdata/*.txtar: the spec in `-- in.wrap --` (or
// the model of the shared corpus a `-- model --` section names), with the
// constants of an optional `-- defines --` section (NAME=VALUE
// ...) and the options of an optional `-- options --` section
// (no-deadlock, max-states=N), checked with 1 and 4 workers; both results
// must render to `-- out/result --` byte for byte.
// WRAPCHECK_UPDATE=1 rewrites the expected sections.
func TestGolden(t *testing.T) {
	for _, file := range golden.Glob(t, filepath.Join("testdata", "*.txtar")) {
		ar := golden.Load(t, file)
		t.Run(ar.Name(), func(t *testing.T) {
			src := ar.Spec(t)
			sopts := spec.Options{Defines: ar.Defines(t)}
			opts := goldenOptions(t, ar)
			m, err := spec.ParseFile(ar.Name()+".wrap", src, sopts)
			if err != nil {
				t.Fatal(err)
			}
			var outs []string
			for _, workers := range []int{1, 4} {
				opts.Workers = workers
				r, err := run(context.Background(), m, opts, 1)
				if err != nil {
					t.Fatal(err)
				}
				outs = append(outs, render(m, r))
			}
			if diff := cmp.Diff(outs[0], outs[1]); diff != "" {
				t.Errorf("workers 1 vs 4 (-w1 +w4):\n%s", diff)
			}
			ar.Check(t, "out/result", []byte(outs[0]))
		})
	}
}

// goldenOptions parses the optional options section of a golden archive:
// no-deadlock and max-states=N, separated by white space.
func goldenOptions(t *testing.T, ar *golden.Archive) Options {
	t.Helper()
	var opts Options
	data, _ := ar.Section("options")
	for _, o := range strings.Fields(string(data)) {
		k, v, _ := strings.Cut(o, "=")
		switch k {
		case "no-deadlock":
			opts.NoDeadlock = true
		case "max-states":
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				t.Fatalf("%s: options: %v", ar.Path, err)
			}
			opts.MaxStates = n
		default:
			t.Fatalf("%s: unknown option %q", ar.Path, o)
		}
	}
	return opts
}

// render prints the deterministic part of a result (no timings).
func render(m *spec.Model, r *Result) string {
	var b bytes.Buffer
	fmt.Fprintf(&b, "verdict: %s\n", r.Verdict)
	if r.Reason() != "" {
		fmt.Fprintf(&b, "reason: %s\n", r.Reason())
	}
	fmt.Fprintf(&b, "states: %d\ntransitions: %d\ndepth: %d\n", r.Stats.States, r.Stats.Transitions, r.Stats.Depth)
	if len(r.Coverage.VacuousInvariants) > 0 {
		fmt.Fprintf(&b, "vacuous: %s\n", strings.Join(r.Coverage.VacuousInvariants, ", "))
	}
	var never []string
	for i, n := range r.Coverage.Fired {
		if n == 0 {
			never = append(never, m.Actions[i].Name)
		}
	}
	if len(never) > 0 && r.Verdict == Holds {
		fmt.Fprintf(&b, "never fired: %s\n", strings.Join(never, ", "))
	}
	v := r.Violation
	if v == nil {
		return b.String()
	}
	fmt.Fprintf(&b, "violation: %s", v.Kind)
	if v.Name != "" {
		fmt.Fprintf(&b, " %s", v.Name)
	}
	if v.Pos.IsValid() {
		fmt.Fprintf(&b, " at %s:%d:%d", v.Pos.Filename, v.Pos.Line, v.Pos.Col)
	}
	fmt.Fprintf(&b, "\nmessage: %s\ntrace:\n", v.Msg)
	for i, s := range v.Trace {
		label := "initial state"
		if s.Action >= 0 {
			label = m.Actions[s.Action].Name
		}
		fmt.Fprintf(&b, "  %d: %s\n", i, label)
		fmt.Fprintf(&b, "     %s\n", formatState(m, s.State))
		for _, a := range s.Asked {
			ag := m.Agents[a.Agent]
			fmt.Fprintf(&b, "     asked %s: %s\n", ag.Name, formatValue(ag.Result, a.Value))
		}
	}
	return b.String()
}

func formatState(m *spec.Model, slots []int64) string {
	var parts []string
	for _, v := range m.Vars {
		parts = append(parts, v.Name+"="+formatValue(v.Type, slots[v.Slot:v.Slot+v.Type.Width]))
	}
	return strings.Join(parts, " ")
}

func formatValue(t *spec.Type, vals []int64) string {
	switch t.Kind {
	case spec.BoolKind:
		if vals[0] != 0 {
			return "true"
		}
		return "false"
	case spec.EnumKind, spec.SymmetricKind:
		if i := vals[0] - t.Lo; i >= 0 && int(i) < len(t.Names) {
			return t.Names[i]
		}
	case spec.SetKind:
		var el []string
		for k := int64(0); k < t.Elem.Size() && k < 64; k++ {
			if vals[0]>>uint(k)&1 != 0 {
				el = append(el, formatValue(t.Elem, []int64{t.Elem.Lo + k}))
			}
		}
		return "{" + strings.Join(el, ", ") + "}"
	case spec.ArrayKind:
		var el []string
		w := t.Elem.Width
		for i := 0; i*w < len(vals); i++ {
			el = append(el, formatValue(t.Elem, vals[i*w:(i+1)*w]))
		}
		return "[" + strings.Join(el, ", ") + "]"
	case spec.RecordKind:
		var el []string
		if t.Seq { // a sequence: its len elements
			n, w := vals[0], t.Fields[1].Type.Elem.Width
			for i := int64(0); i < n; i++ {
				el = append(el, formatValue(t.Fields[1].Type.Elem, vals[1+int(i)*w:1+int(i+1)*w]))
			}
			return "[" + strings.Join(el, ", ") + "]"
		}
		for _, f := range t.Fields {
			el = append(el, f.Name+": "+formatValue(f.Type, vals[f.Offset:f.Offset+f.Type.Width]))
		}
		return "{" + strings.Join(el, ", ") + "}"
	}
	return strconv.FormatInt(vals[0], 10)
}
