package oracle

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/wrapcheck/wrapcheck/internal/gen"
	"github.com/wrapcheck/wrapcheck/internal/testenv"
	"github.com/wrapcheck/wrapcheck/spec"
)

// TestRandomChannels compares the engine with the oracle, without and
// with the reductions (symmetry, partial-order), on random specs that
// send and receive on buffered, rendezvous and arrays of channels (an
// extension): the channels lower to records, arrays and pairs of actions,
// which the oracle runs as plainly as any other.
func TestRandomChannels(t *testing.T) {
	n := 60
	if testenv.Short(t) {
		n = 30
	}
	checked := 0
	var states, trans int64
	for seed := range n {
		src := gen.Generate(rand.New(rand.NewPCG(uint64(seed), 37)), gen.Config{Shape: gen.Channels}).Source
		name := fmt.Sprintf("seed%d", seed)
		m, err := spec.ParseFile(name+".wrap", []byte(src), spec.Options{})
		if err != nil {
			t.Errorf("%s does not check: %v\n%s", name, err, src)
			continue
		}
		checked++
		r := compare(t, name, m, Options{MaxStates: 20_000})
		if r != nil {
			states += r.States
			trans += r.Transitions
		}
	}
	t.Logf("%d specs, %d states, %d transitions", checked, states, trans)
	if checked == 0 || trans == 0 {
		t.Error("no random channel spec explored")
	}
}
