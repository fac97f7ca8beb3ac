package syntax_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/wrapcheck/wrapcheck/internal/gen"
	"github.com/wrapcheck/wrapcheck/internal/testenv"
	"github.com/wrapcheck/wrapcheck/spec/syntax"
)

// TestDescentGenerated compares the recursive-descent parser with the
// participle grammar on random specs of every shape of internal/gen,
// several seeds each: both must accept every one with the same tree,
// positions and comments included.
func TestDescentGenerated(t *testing.T) {
	shapes := []struct {
		name string
		c    gen.Config
	}{
		{"mixed", gen.Config{Shape: gen.Mixed}},
		{"symmetric", gen.Config{Shape: gen.Symmetric}},
		{"failing", gen.Config{Shape: gen.Symmetric, Failing: true}},
		{"temporal", gen.Config{Shape: gen.Temporal}},
		{"exact", gen.Config{Shape: gen.Exact}},
		{"constants", gen.Config{Shape: gen.Exact, Constants: true}},
		{"pair", gen.Config{Shape: gen.Pair}},
		{"past", gen.Config{Shape: gen.Past}},
		{"live", gen.Config{Shape: gen.Live}},
	}
	n := 400
	if testenv.Short(t) {
		n = 40
	}
	for _, sh := range shapes {
		t.Run(sh.name, func(t *testing.T) {
			for seed := range uint64(n) {
				r := rand.New(rand.NewPCG(seed, 22))
				c := sh.c
				c.Index = int(seed)
				s := gen.Generate(r, c)
				srcs := []string{s.Source, s.Mutant, s.Base}
				for k, src := range srcs {
					if src == "" {
						continue
					}
					name := fmt.Sprintf("%s-%d-%d.wrap", sh.name, seed, k)
					g, gerr := syntax.ParseGrammar(name, []byte(src))
					d, derr := syntax.ParseDescent(name, []byte(src))
					if gerr != nil || derr != nil {
						t.Fatalf("%s: grammar: %v; descent: %v\n%s", name, gerr, derr, src)
					}
					if diff := syntax.TreeDiff(g, d); diff != "" {
						t.Fatalf("%s: trees differ (-grammar +descent)\n%s\n%s", name, diff, src)
					}
				}
			}
		})
	}
	t.Run("big", func(t *testing.T) {
		src := gen.Generate(nil, gen.Config{Shape: gen.Big, Lines: 3000}).Source
		g, gerr := syntax.ParseGrammar("big.wrap", []byte(src))
		d, derr := syntax.ParseDescent("big.wrap", []byte(src))
		if gerr != nil || derr != nil {
			t.Fatalf("grammar: %v; descent: %v", gerr, derr)
		}
		if diff := syntax.TreeDiff(g, d); diff != "" {
			t.Fatalf("trees differ (-grammar +descent)\n%s", diff)
		}
	})
}
