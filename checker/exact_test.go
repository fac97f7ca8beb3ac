package checker

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wrapcheck/wrapcheck/internal/gen"
	"github.com/wrapcheck/wrapcheck/spec"
)

// TestExactDifferential: random integer expressions over variables near
// the int64 bounds and extreme constants (past int64 too), evaluated by
// the checker (the int64 fast path where the interval analysis allows it,
// math/big where it does not) and by the front end's constant folding,
// against the direct math/big evaluation of the generator.
func TestExactDifferential(t *testing.T) {
	n := 400
	if testing.Short() {
		n = 100
	}
	r := rand.New(rand.NewPCG(15, 1))
	got, want := map[string]int{}, map[string]int{}
	for i := 0; i < n; i++ {
		g := gen.Generate(r, gen.Config{Shape: gen.Exact, Index: i, Constants: i%3 == 2})
		src, w := g.Source, g.Want
		m, err := spec.ParseFile(fmt.Sprintf("exact%d.wrap", i), []byte(src), spec.Options{})
		if err != nil {
			if w == "static" && strings.Contains(err.Error(), "out of range") {
				want[w]++
				got[w]++
				continue
			}
			t.Fatalf("spec %d: %v\n%s", i, err, src)
		}
		res, err := Run(context.Background(), m, Options{Workers: 1})
		if err != nil {
			t.Fatalf("spec %d: %v\n%s", i, err, src)
		}
		o := "holds"
		if res.Violation != nil {
			o = res.Violation.Kind.String()
		}
		want[w]++
		got[o]++
		if o != w {
			msg := ""
			if res.Violation != nil {
				msg = res.Violation.Msg
			}
			t.Errorf("spec %d: got %s (%s), want %s\n%s", i, o, msg, w, src)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("outcomes (-want +got):\n%s", diff)
	}
	t.Logf("outcomes over %d random specs: %v", n, got)
}

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
