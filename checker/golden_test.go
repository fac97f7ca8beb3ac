package checker

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wrapcheck/wrapcheck/internal/golden"
	"github.com/wrapcheck/wrapcheck/spec"
)

// TestGolden runs every testdata/*.txtar: the spec in `-- in.wrap --`,
// with the constants of an optional `-- defines --` section (NAME=VALUE
// ...) and the options of an optional `-- options --` section
// (no-deadlock, max-states=N), checked with 1 and 4 workers; both results
// must render to `-- out/result --` byte for byte.
// WRAPCHECK_UPDATE=1 rewrites the expected sections.
func TestGolden(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no golden files")
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			ar, err := parseTxtar(file)
			if err != nil {
				t.Fatal(err)
			}
			sections := map[string][]byte{}
			for _, f := range ar.Files {
				sections[f.Name] = f.Data
			}
			src, ok := sections["in.wrap"]
			if !ok {
				t.Fatal("no in.wrap section")
			}
			sopts := spec.Options{Defines: map[string]int64{}}
			for _, d := range strings.Fields(string(sections["defines"])) {
				k, v, _ := strings.Cut(d, "=")
				n, err := strconv.ParseInt(v, 10, 64)
				if err != nil {
					t.Fatalf("defines: %v", err)
				}
				sopts.Defines[k] = n
			}
			var opts Options
			for _, o := range strings.Fields(string(sections["options"])) {
				k, v, _ := strings.Cut(o, "=")
				switch k {
				case "no-deadlock":
					opts.NoDeadlock = true
				case "max-states":
					opts.MaxStates, _ = strconv.ParseInt(v, 10, 64)
				default:
					t.Fatalf("unknown option %q", o)
				}
			}
			name := strings.TrimSuffix(filepath.Base(file), ".txtar") + ".wrap"
			m, err := spec.ParseFile(name, src, sopts)
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
			got := outs[0]
			if golden.Update() {
				found := false
				for i := range ar.Files {
					if ar.Files[i].Name == "out/result" {
						ar.Files[i].Data = []byte(got)
						found = true
					}
				}
				if !found {
					ar.Files = append(ar.Files, txtarFile{Name: "out/result", Data: []byte(got)})
				}
				if err := os.WriteFile(file, ar.format(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if diff := cmp.Diff(string(sections["out/result"]), got); diff != "" {
				t.Errorf("out/result mismatch (-want +got):\n%s", diff)
			}
		})
	}
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
		for _, f := range t.Fields {
			el = append(el, f.Name+": "+formatValue(f.Type, vals[f.Offset:f.Offset+f.Type.Width]))
		}
		return "{" + strings.Join(el, ", ") + "}"
	}
	return strconv.FormatInt(vals[0], 10)
}

// A txtar archive (the format of golang.org/x/tools/txtar, which
// go-internal's txtar wraps but go.sum does not pin): a comment, then
// files, each introduced by a line "-- name --".
type txtarArchive struct {
	Comment []byte
	Files   []txtarFile
}

type txtarFile struct {
	Name string
	Data []byte
}

func parseTxtar(path string) (*txtarArchive, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	ar := &txtarArchive{}
	cur := &ar.Comment
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i+1], data[i+1:]
		} else {
			data = nil
		}
		t := strings.TrimRight(string(line), "\r\n")
		if strings.HasPrefix(t, "-- ") && strings.HasSuffix(t, " --") && len(t) > 6 {
			ar.Files = append(ar.Files, txtarFile{Name: strings.TrimSpace(t[3 : len(t)-3])})
			cur = &ar.Files[len(ar.Files)-1].Data
			continue
		}
		*cur = append(*cur, line...)
	}
	return ar, nil
}

func (ar *txtarArchive) format() []byte {
	var b bytes.Buffer
	b.Write(ar.Comment)
	for _, f := range ar.Files {
		fmt.Fprintf(&b, "-- %s --\n", f.Name)
		b.Write(f.Data)
		if len(f.Data) > 0 && f.Data[len(f.Data)-1] != '\n' {
			b.WriteByte('\n')
		}
	}
	return b.Bytes()
}
