package cluster

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wrapcheck/wrapcheck/checker"
	"github.com/wrapcheck/wrapcheck/internal/gen"
	"github.com/wrapcheck/wrapcheck/internal/testenv"
	"github.com/wrapcheck/wrapcheck/machine"
	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/verdict"
)

// reduction is a combination of the reductions the tests run.
type reduction struct {
	name     string
	sym, por bool
}

// eachRandom calls f, for each of n random specs (gen's Symmetric
// shape, seeded with (seed, salt); failing: with the actions that can
// fail) that parses and each reduction of reds, with the single-process
// search's result want within 200,000 states (a spec and reduction
// whose search stops at that limit is left out) and the spec's rng,
// which goes on from the generator's draws.
func eachRandom(t *testing.T, n int, salt uint64, failing func(seed int) bool, reds []reduction,
	f func(name, src string, prog *machine.Program, red reduction, opts checker.Options, want *verdict.Result, rng *rand.Rand)) {
	t.Helper()
	for seed := range n {
		rng := rand.New(rand.NewPCG(uint64(seed), salt))
		src := gen.Generate(rng, gen.Config{Shape: gen.Symmetric, Failing: failing(seed)}).Source
		name := fmt.Sprintf("seed%d", seed)
		m, err := spec.ParseFile(name+".wrap", []byte(src), spec.Options{})
		if err != nil {
			continue
		}
		prog, err := machine.Compile(m)
		if err != nil {
			t.Fatal(err)
		}
		for _, red := range reds {
			opts := searchOptions(t, m, red.sym, red.por)
			opts.Workers = 1
			opts.MaxStates = 200000
			want, err := checker.RunProgram(context.Background(), prog, opts)
			if err != nil {
				t.Fatal(err)
			}
			if want.Verdict == verdict.Unknown {
				continue
			}
			f(name, src, prog, red, opts, want, rng)
		}
	}
}

// TestSearchRandom: on random specs, 1, 2 and 4 workers give the
// single-process search's result, reduced and plain.
func TestSearchRandom(t *testing.T) {
	n := 16
	if testenv.Short(t) {
		n = 6
	}
	always := func(int) bool { return true }
	reds := []reduction{{"reduced", true, true}, {"sym", true, false}, {"plain", false, false}}
	eachRandom(t, n, 11, always, reds, func(name, src string, prog *machine.Program, red reduction, opts checker.Options, want *verdict.Result, _ *rand.Rand) {
		againstLocal(t, name+"/"+red.name, src, prog, opts, want, 1, 2, 4)
	})
}

// againstLocal runs the distributed search of prog on each number of
// workers, as subtests of name, and compares each result with want, the
// single-process search's of the spec src.
func againstLocal(t *testing.T, name, src string, prog *machine.Program, opts checker.Options, want *verdict.Result, workers ...int) {
	t.Helper()
	for _, n := range workers {
		t.Run(fmt.Sprintf("%s/N%d", name, n), func(t *testing.T) {
			got, err := searchN(t, NewMemBucket(), n, prog, opts)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(comparable(want), comparable(got)); diff != "" {
				t.Errorf("distributed vs single-process (-want +got):\n%s\nspec:\n%s", diff, src)
			}
		})
	}
}

// TestSentCacheRandom: on random specs with partial-order reduction,
// whose parents ask the owners of their ample successors whether they
// were stored before the level, 2 and 3 workers give the single-process
// search's result. The sent cache must send every asking record: with it
// leaving out asking repeats too, seeds 14 and 17 of these differ (a
// parent that does not learn that its successor is old takes no other
// action, and states go missing).
func TestSentCacheRandom(t *testing.T) {
	n := 24
	if testenv.Short(t) {
		n = 18
	}
	reds := []reduction{{"reduced", true, true}}
	eachRandom(t, n, 77, func(s int) bool { return s%3 == 0 }, reds, func(name, src string, prog *machine.Program, red reduction, opts checker.Options, want *verdict.Result, _ *rand.Rand) {
		againstLocal(t, name+"/"+red.name, src, prog, opts, want, 1, 2, 3)
	})
}

// TestProvisoWorkers: a spec whose ample sets close cycles (each p
// steps round three values, and the ws' actions are independent of it),
// so that the cycle proviso decides which states are expanded fully: a
// state whose ample successors were all stored before the level takes
// its other actions too. 1, 2 and 3 workers give the single-process
// search's counts and result, reduced by partial-order reduction and by
// both reductions; without the proviso's answers (a worker not marking
// a parent whose successor it found stored before) states go missing.
func TestProvisoWorkers(t *testing.T) {
	src := `spec Proviso
type W = symmetric 3
process w[i: W] {
  var c: 0..3
  var d: 0..2
  action inc when c < 3 { c := c + 1 }
  action dec when c > 0 and d < 2 { c := c - 1; d := d + 1 }
}
process p[j: 0..1] {
  var e: 0..2
  action step { e := (e + 1) % 3 }
}
`
	prog := compileSource(t, "proviso.wrap", src)
	m := prog.Model
	for _, red := range []reduction{{"por", false, true}, {"reduced", true, true}} {
		opts := searchOptions(t, m, red.sym, red.por)
		opts.Workers, opts.NoDeadlock = 1, true
		want, err := checker.RunProgram(context.Background(), prog, opts)
		if err != nil {
			t.Fatal(err)
		}
		againstLocal(t, red.name, src, prog, opts, want, 1, 2, 3)
	}
}
