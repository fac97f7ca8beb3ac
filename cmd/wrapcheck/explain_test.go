package main

import (
	"bytes"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wrapcheck/wrapcheck/internal/golden"
	"github.com/wrapcheck/wrapcheck/machine"
	"github.com/wrapcheck/wrapcheck/spec"
)

// TestExplainCompilesOnce: explain compiles the model once, with --run
// (the replay and the explanation share the Program) as without (the
// search and the explanation), and prints what the script
// explain_text.txtar records for the same files.
func TestExplainCompilesOnce(t *testing.T) {
	ar := golden.Load(t, filepath.Join("testdata", "script", "explain_text.txtar"))
	dir := t.TempDir()
	for _, name := range []string{"toctou.wrap", "light.wrap", "long.jsonl"} {
		if err := os.WriteFile(filepath.Join(dir, name), ar.Need(t, name), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	tests := []struct {
		name, spec, run, want string
	}{
		{"run", "toctou.wrap", "long.jsonl", "long.out"},
		{"search", "toctou.wrap", "", "toctou.out"},
		{"lasso", "light.wrap", "", "light.out"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			compiles := 0
			compile := func(m *spec.Model) (*machine.Program, error) {
				compiles++
				return machine.Compile(m)
			}
			cmd := newExplainCmd()
			var out bytes.Buffer
			cmd.SetOut(&out)
			err := runExplain(cmd, tt.spec, explainFlags{run: tt.run, format: "text"}, compile)
			var ee *exitError
			if !errors.As(err, &ee) || ee.code != exitViolated || ee.err != nil {
				t.Fatalf("err = %v, want exit %d", err, exitViolated)
			}
			if compiles != 1 {
				t.Errorf("%d compilations, want 1", compiles)
			}
			if diff := cmp.Diff(string(ar.Need(t, tt.want)), out.String()); diff != "" {
				t.Errorf("output (-want +got):\n%s", diff)
			}
		})
	}
}

// TestExplainNoOtherCompilation: runExplain compiles only with the
// compile it is given, and calls none of the entry points that compile
// their own Program, so that TestExplainCompilesOnce's count covers every
// compilation (verify.Run and explain.Explain compile nothing when
// handed the Program: verify's TestCompileOnce).
func TestExplainNoOtherCompilation(t *testing.T) {
	banned := map[string]bool{
		"machine.Compile": true, "replay.Check": true, "replay.CheckContext": true, "replay.Run": true,
		"explain.Safety": true, "explain.Liveness": true, "explain.FewestSwitches": true, "explain.Attach": true,
		"checker.Run": true, "ltl.Check": true,
	}
	f, err := parser.ParseFile(token.NewFileSet(), "explain.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Name.Name != "runExplain" {
			continue
		}
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				if x, ok := sel.X.(*ast.Ident); ok && banned[x.Name+"."+sel.Sel.Name] {
					got = append(got, x.Name+"."+sel.Sel.Name)
				}
			}
			return true
		})
	}
	if len(got) != 0 {
		t.Errorf("runExplain calls %v, which compile the model again", got)
	}
}
