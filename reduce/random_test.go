package reduce

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/wrapcheck/wrapcheck/internal/gen"
	"github.com/wrapcheck/wrapcheck/internal/testenv"
	"github.com/wrapcheck/wrapcheck/spec"
)

// TestRandomSpecs runs the differential and orbit checks on random specs:
// gen's Symmetric shape, and the same with Loops, where this round's
// forms meet a symmetric type (sequences of identities, a for over a
// sequence whose effect depends on the order, for and sum over ranges,
// an array literal of one constant). The orbit check compares the
// reachable states of the reference search (internal/oracle) with their
// images under every permutation: a form whose unrolling told the
// identities apart would leave an image unreachable, and a canonical form
// that counted a sequence's storage would store an orbit twice.
func TestRandomSpecs(t *testing.T) {
	for _, c := range []struct {
		name   string
		stream uint64
		cfg    gen.Config
	}{
		{"symmetric", 7, gen.Config{Shape: gen.Symmetric}},
		{"loops", 37, gen.Config{Shape: gen.Symmetric, Loops: true}},
	} {
		t.Run(c.name, func(t *testing.T) {
			n := 40
			if testenv.Short(t) {
				n = 15
			}
			checked, ordered := 0, 0
			for seed := range n {
				cfg := c.cfg
				cfg.Failing = cfg.Loops && seed%2 == 1
				src := gen.Generate(rand.New(rand.NewPCG(uint64(seed), c.stream)), cfg).Source
				name := fmt.Sprintf("seed%d", seed)
				m, err := spec.ParseFile(name+".wrap", []byte(src), spec.Options{})
				if err != nil {
					t.Logf("%s does not check: %v\n%s", name, err, src)
					continue
				}
				checked++
				for _, a := range m.Actions {
					if strings.HasSuffix(a.Name, ".scan") {
						ordered++
						break
					}
				}
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
			if c.cfg.Loops && ordered < checked/5 {
				t.Errorf("only %d of %d random specs have the order-dependent for over a sequence", ordered, checked)
			}
		})
	}
}
