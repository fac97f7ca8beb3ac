package spec

import (
	"errors"
	"testing"

	"github.com/wrapcheck/wrapcheck/internal/golden"
	"github.com/wrapcheck/wrapcheck/spec/syntax"
)

// TestErrors checks every testdata/errors/*.txtar: its in.wrap section,
// parsed as <name>.wrap, must fail to check with the errors of its error
// section, all of them and nothing else.
func TestErrors(t *testing.T) {
	files := golden.Glob(t, "testdata/errors/*.txtar")
	if len(files) < 40 {
		t.Errorf("only %d error specs, want at least 40", len(files))
	}
	for _, fn := range files {
		ar := golden.Load(t, fn)
		t.Run(ar.Name(), func(t *testing.T) {
			f, err := syntax.Parse(ar.Name()+".wrap", ar.Need(t, "in.wrap"))
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			m, err := Check(f, Options{})
			if err == nil {
				t.Fatalf("no errors; model %q", m.Name)
			}
			var list syntax.ErrorList
			if !errors.As(err, &list) {
				t.Fatalf("error is %T, not an ErrorList: %v", err, err)
			}
			ar.CheckError(t, err)
		})
	}
}
