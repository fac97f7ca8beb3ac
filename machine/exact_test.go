package machine

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/wrapcheck/wrapcheck/spec"
)

// TestExamplesStayInt64 checks that no example (none has huge values)
// needs the exact path: the interval analysis proves every expression of
// them fits an int64, so they run on the int64 closures only.
func TestExamplesStayInt64(t *testing.T) {
	paths, err := filepath.Glob("../examples/*/*.wrap")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no examples: %v", err)
	}
	for _, path := range paths {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		m, err := spec.ParseFile(filepath.Base(path), src, spec.Options{})
		if err != nil {
			continue // an example of a front-end error
		}
		p, err := Compile(m)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if p.exactExprs != 0 {
			t.Errorf("%s: %d expressions compiled to the exact path, want 0", path, p.exactExprs)
		}
	}
	m, err := spec.ParseFile("u3.wrap", []byte("spec U3\nvar a: -3..3 = 1\naction step { a := a }\n"+
		"invariant U3: a * 3000000000 * 4000000000 / 4000000000 == 3000000000\n"), spec.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := Compile(m)
	if err != nil {
		t.Fatal(err)
	}
	if p.exactExprs != 1 {
		t.Errorf("u3: %d expressions compiled to the exact path, want 1 (the comparison)", p.exactExprs)
	}
}
