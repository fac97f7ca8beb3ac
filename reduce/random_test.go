package reduce

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/wrapcheck/wrapcheck/internal/gen"
	"github.com/wrapcheck/wrapcheck/internal/testenv"
	"github.com/wrapcheck/wrapcheck/spec"
)

// TestRandomSpecs runs the differential and orbit checks on random specs.
func TestRandomSpecs(t *testing.T) {
	n := 40
	if testenv.Short(t) {
		n = 15
	}
	checked := 0
	for seed := range n {
		src := gen.Generate(rand.New(rand.NewPCG(uint64(seed), 7)), gen.Config{Shape: gen.Symmetric}).Source
		name := fmt.Sprintf("seed%d", seed)
		m, err := spec.ParseFile(name+".wrap", []byte(src), spec.Options{})
		if err != nil {
			t.Logf("%s does not check: %v\n%s", name, err, src)
			continue
		}
		checked++
		t.Run(name, func(t *testing.T) {
			differential(t, m)
			checkOrbits(t, m, 30000)
			if t.Failed() {
				t.Logf("spec:\n%s", src)
			}
		})
	}
	if checked < n*3/4 {
		t.Errorf("only %d of %d random specs check statically", checked, n)
	}
}
