package checker

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wrapcheck/wrapcheck/internal/gen"
	"github.com/wrapcheck/wrapcheck/internal/testenv"
	"github.com/wrapcheck/wrapcheck/spec"
)

// TestExactDifferential: random integer expressions over variables near
// the int64 bounds and extreme constants (past int64 too), evaluated by
// the checker (the int64 fast path where the interval analysis allows it,
// math/big where it does not) and by the front end's constant folding,
// against the direct math/big evaluation of the generator.
func TestExactDifferential(t *testing.T) {
	n := 400
	if testenv.Short(t) {
		n = 100
	}
	r := rand.New(rand.NewPCG(15, 1))
	got, want := map[string]int{}, map[string]int{}
	for i := 0; i < n; i++ {
		g := gen.Generate(r, gen.Config{Shape: gen.Exact, Index: i, Constants: i%3 == 2})
		src, w := g.Source, g.Want
		m, err := spec.ParseFile(fmt.Sprintf("exact%d.wrap", i), []byte(src), spec.Options{})
		if err != nil && w == "static" {
			name := fmt.Sprintf("exact%d.wrap", i)
			if diff := cmp.Diff(name+":"+g.Error, err.Error()); diff != "" {
				t.Errorf("spec %d: error (-want +got):\n%s\n%s", i, diff, src)
			}
			want[w]++
			got[w]++
			continue
		}
		if err != nil {
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
