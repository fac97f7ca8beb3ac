package verify

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/wrapcheck/wrapcheck/internal/gen"
	"github.com/wrapcheck/wrapcheck/internal/testenv"
	"github.com/wrapcheck/wrapcheck/machine"
	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/verdict"
)

// TestCycleRandom checks the liveness analysis on random specs by checking
// again, as TestCycleRecheck does on the examples: each suggested
// declaration, written into the source, removes the counterexample; the
// fixes CheckFixes finds hold when written in the source and the others do
// not; a cycle the analysis calls fair (no search) is still violated with
// strong fairness of everything, and CheckFixes' no-fairness agrees with
// that check.
func TestCycleRandom(t *testing.T) {
	n := 80
	if testenv.Short(t) {
		n = 30
	}
	r := rand.New(rand.NewPCG(22, 17))
	lassos, fair, decls := 0, 0, 0
	for i := range n {
		src := gen.Generate(r, gen.Config{Shape: gen.Live}).Source
		m, err := spec.ParseFile("r.wrap", []byte(src), spec.Options{})
		if err != nil {
			t.Fatalf("%d: %v\n%s", i, err, src)
		}
		res, err := Run(context.Background(), m, Options{Workers: 1, NoDeadlock: true})
		if err != nil {
			t.Fatal(err)
		}
		v := res.Violation
		if res.Verdict != verdict.Violated || v.LoopStart < 0 {
			continue
		}
		lassos++
		prog, err := machine.Compile(m)
		if err != nil {
			t.Fatal(err)
		}
		c, err := Liveness(prog, v)
		if err != nil {
			t.Fatalf("%d: %v\n%s", i, err, src)
		}
		recheck := func(extra ...string) *verdict.Result {
			t.Helper()
			s := src
			for _, x := range extra {
				s += x + "\n"
			}
			m2, err := spec.ParseFile("r.wrap", []byte(s), spec.Options{})
			if err != nil {
				t.Fatalf("%d: with %v: %v\n%s", i, extra, err, src)
			}
			res, err := Run(context.Background(), m2, Options{Workers: 1, NoDeadlock: true})
			if err != nil {
				t.Fatal(err)
			}
			return res
		}
		if err := c.CheckFixes(context.Background(), m, v, Options{Workers: 1, NoDeadlock: true}); err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		for _, s := range c.Starved {
			if seen[s.Decl] {
				continue
			}
			seen[s.Decl] = true
			decls++
			r2 := recheck(s.Decl)
			if r2.Verdict == verdict.Violated && r2.Violation.LoopStart >= 0 && sameLasso(v, r2.Violation) {
				t.Errorf("%d: with %s added, check reports the same counterexample\n%s", i, s.Decl, src)
			}
			if holds, fix := r2.Verdict == verdict.Holds, strings.Contains(strings.Join(c.Fixes, "\n")+"\n", s.Decl+"\n"); holds != fix {
				t.Errorf("%d: %s: a fix %v, written in the source the property holds %v\n%s", i, s.Decl, fix, holds, src)
			}
		}
		all := recheck(allStrong(m)...)
		if stays := all.Verdict == verdict.Violated; stays != c.NoFairness {
			t.Errorf("%d: no fairness %v, with strong fairness of everything violated %v\n%s", i, c.NoFairness, stays, src)
		}
		if c.Fair {
			fair++
			if all.Verdict != verdict.Violated {
				t.Errorf("%d: a cycle said to be fair, but strong fairness of everything makes the property hold\n%s", i, src)
			}
		}
	}
	if lassos < n/5 || fair == 0 || decls == 0 {
		t.Fatalf("%d specs: %d lassos, %d fair, %d declarations: not varied enough", n, lassos, fair, decls)
	}
	t.Logf("%d specs: %d lassos, %d fair cycles, %d declarations re-checked", n, lassos, fair, decls)
}
