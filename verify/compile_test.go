package verify

import (
	"context"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wrapcheck/wrapcheck/machine"
	"github.com/wrapcheck/wrapcheck/report"
	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/verdict"
)

// TestCompileOnce: one check compiles the model once, whatever searches
// it runs (the safety search, the shortest-trace re-run after POR, the
// LTL products, the fairness notes, --continue, the reduction table), and
// not at all when the caller hands in the Program; the text renderer
// given that Program prints what it prints when it compiles its own.
func TestCompileOnce(t *testing.T) {
	const fairBody = `
var done: bool
var tick: 0..1
process worker {
  action finish when not done { done := true }
}
process clock {
  action step { tick := 1 - tick }
}
property Finishes: eventually done
`
	const por = `spec P
var x: 0..2
var y: 0..1
process a {
  action one when x == 0 { x := 1 }
  action two when x == 1 { x := 2 }
}
process b {
  action step when y == 0 { y := 1 }
}
invariant NotTwo: x != 2
`
	for _, tt := range []struct {
		name    string
		src     string
		opts    Options
		explain bool
		want    verdict.Verdict
	}{
		{"por-shortest", por, Options{}, false, verdict.Violated},
		{"starvation", "spec S\n" + fairBody, Options{}, false, verdict.Violated},
		{"needed-fairness", "spec F\n" + fairBody + "fairness weak worker\nfairness weak clock\n", Options{}, false, verdict.Holds},
		{"continue", threeBugs, Options{Continue: true}, false, verdict.Violated},
		{"explain", threeBugs, Options{}, true, verdict.Violated},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m := mustModel(t, tt.src)
			var progs []*machine.Program
			opts := tt.opts
			opts.compile = func(m *spec.Model) (*machine.Program, error) {
				p, err := machine.Compile(m)
				progs = append(progs, p)
				return p, err
			}
			run := func(opts Options) *verdict.Result {
				t.Helper()
				res, err := Run(context.Background(), m, opts)
				if err != nil {
					t.Fatal(err)
				}
				if res.Verdict != tt.want {
					t.Fatalf("verdict %s, want %s", res.Verdict, tt.want)
				}
				if tt.explain {
					if _, err := Explain(context.Background(), m, opts); err != nil {
						t.Fatal(err)
					}
				}
				return res
			}
			run(opts)
			if got := len(progs); got != 1+btoi(tt.explain) {
				t.Errorf("%d compilations, want %d (one per library call)", got, 1+btoi(tt.explain))
			}
			prog := progs[0]
			progs = nil
			opts.Program = prog
			res := run(opts)
			if len(progs) != 0 {
				t.Errorf("%d compilations with Options.Program set, want 0", len(progs))
			}
			var own, shared strings.Builder
			if err := (report.TextOptions{Explain: true}).Render(&own, m, res); err != nil {
				t.Fatal(err)
			}
			if err := (report.TextOptions{Explain: true, Program: prog}).Render(&shared, m, res); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(own.String(), shared.String()); diff != "" {
				t.Errorf("text with the shared Program (-want +got):\n%s", diff)
			}
		})
	}
}

// TestProgramOfAnotherModel: a Program compiled from another model is an
// error, not a search of the wrong model.
func TestProgramOfAnotherModel(t *testing.T) {
	a := mustModel(t, "spec A\nvar x: 0..1\nprocess p { action s when x == 0 { x := 1 } }\n")
	b := mustModel(t, "spec A\nvar x: 0..1\nprocess p { action s when x == 0 { x := 1 } }\n")
	prog, err := machine.Compile(a)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Run(context.Background(), b, Options{Program: prog}); err == nil {
		t.Error("Run with the Program of another model: no error")
	}
}

// TestNoOtherCompilation: the package's code compiles a model only in
// Options.program, and calls none of the entry points that compile their
// own (checker.Run, ltl.Check, ltl.NewChecker), so that TestCompileOnce's
// count covers every compilation.
func TestNoOtherCompilation(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	banned := map[string]bool{"machine.Compile": true, "checker.Run": true, "ltl.Check": true, "ltl.NewChecker": true}
	var got []string
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				sel, ok := n.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				id, ok := sel.X.(*ast.Ident)
				if !ok || !banned[id.Name+"."+sel.Sel.Name] {
					return true
				}
				got = append(got, fd.Name.Name+": "+id.Name+"."+sel.Sel.Name)
				return true
			})
		}
	}
	if diff := cmp.Diff([]string{"program: machine.Compile"}, got); diff != "" {
		t.Errorf("compilations (-want +got):\n%s", diff)
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestValidate: every option is checked once, against the model, before
// any search, with an *OptionError naming the option as the command line
// does; Run, Safety and Explain return that error.
func TestValidate(t *testing.T) {
	m := mustModel(t, threeBugs)
	for _, tt := range []struct {
		name string
		opts Options
		want string // "" valid
	}{
		{"zero", Options{}, ""},
		{"only-invariant-and-property", Options{Only: []string{"A", "L"}}, ""},
		{"only-unknown", Options{Only: []string{"A", "Nope"}}, "only Nope: no invariant or property of that name in ThreeBugs"},
		{"workers", Options{Workers: -1}, "workers -1: must not be negative"},
		{"max-states", Options{MaxStates: -2}, "max-states -2: must not be negative"},
		{"max-depth", Options{MaxDepth: -3}, "max-depth -3: must not be negative"},
		{"memory", Options{MemoryBudget: -4}, "memory -4: must not be negative"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			errText := func(err error) string {
				if err == nil {
					return ""
				}
				var oe *OptionError
				if !errors.As(err, &oe) {
					return "not an *OptionError: " + err.Error()
				}
				return err.Error()
			}
			if diff := cmp.Diff(tt.want, errText(tt.opts.Validate(m))); diff != "" {
				t.Errorf("Validate (-want +got):\n%s", diff)
			}
			if tt.want == "" {
				return
			}
			_, err := Run(context.Background(), m, tt.opts)
			if diff := cmp.Diff(tt.want, errText(err)); diff != "" {
				t.Errorf("Run (-want +got):\n%s", diff)
			}
			_, err = Safety(context.Background(), m, tt.opts)
			if diff := cmp.Diff(tt.want, errText(err)); diff != "" {
				t.Errorf("Safety (-want +got):\n%s", diff)
			}
			_, err = Explain(context.Background(), m, tt.opts)
			if diff := cmp.Diff(tt.want, errText(err)); diff != "" {
				t.Errorf("Explain (-want +got):\n%s", diff)
			}
		})
	}
}
