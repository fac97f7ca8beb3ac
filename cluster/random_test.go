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

// TestSearchRandom: on random specs, 1, 2 and 4 workers give the
// single-process search's result, reduced and plain.
func TestSearchRandom(t *testing.T) {
	n := 16
	if testenv.Short(t) {
		n = 6
	}
	for seed := range n {
		src := gen.Generate(rand.New(rand.NewPCG(uint64(seed), 11)), gen.Config{Shape: gen.Symmetric, Failing: true}).Source
		name := fmt.Sprintf("seed%d", seed)
		m, err := spec.ParseFile(name+".wrap", []byte(src), spec.Options{})
		if err != nil {
			continue
		}
		prog, err := machine.Compile(m)
		if err != nil {
			t.Fatal(err)
		}
		for _, red := range []struct {
			name     string
			sym, por bool
		}{{"reduced", true, true}, {"sym", true, false}, {"plain", false, false}} {
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
			for _, workers := range []int{1, 2, 4} {
				t.Run(fmt.Sprintf("%s/%s/N%d", name, red.name, workers), func(t *testing.T) {
					got, err := searchN(t, NewMemBucket(), workers, prog, opts)
					if err != nil {
						t.Fatal(err)
					}
					if diff := cmp.Diff(comparable(want), comparable(got)); diff != "" {
						t.Errorf("distributed vs single-process (-want +got):\n%s\nspec:\n%s", diff, src)
					}
				})
			}
		}
	}
}
