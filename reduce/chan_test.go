package reduce

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/wrapcheck/wrapcheck/checker"
	"github.com/wrapcheck/wrapcheck/internal/gen"
	"github.com/wrapcheck/wrapcheck/internal/testenv"
	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/verdict"
)

// TestRandomChannels runs the differential check (symmetry, ample sets,
// both: the same verdicts, no more states, real counterexamples) and the
// orbit check (the canonical state is in the state's orbit, one per
// orbit) on random specs with channels (an extension): a channel's
// operations are reads and writes of its slots, a rendezvous of its
// empty slot, and an array of channels indexed by a symmetric type
// permutes with it.
func TestRandomChannels(t *testing.T) {
	n := 40
	if testenv.Short(t) {
		n = 20
	}
	for seed := range n {
		src := gen.Generate(rand.New(rand.NewPCG(uint64(seed), 37)), gen.Config{Shape: gen.Channels}).Source
		name := fmt.Sprintf("seed%d", seed)
		m, err := spec.ParseFile(name+".wrap", []byte(src), spec.Options{})
		if err != nil {
			t.Fatalf("%s does not check: %v\n%s", name, err, src)
		}
		t.Run(name, func(t *testing.T) {
			differential(t, m)
			checkOrbits(t, m, 30000)
			if t.Failed() {
				t.Logf("spec:\n%s", src)
			}
		})
	}
}

// TestChannelSymmetryCounts checks symmetry and partial-order reduction
// on an array of channels indexed by a symmetric type, against counts
// worked out by hand. Each node puts one token into its own one-place box
// and takes it out again: a node is in one of 3 states (not sent; sent,
// box full; sent, box empty), the nodes are independent: 9 states and
// 2 × 3 × (1 + 1 + 0) = 12 transitions without symmetry; the orbits are
// the 6 multisets of two node states, whose representatives enable
// 2 + 2 + 1 + 2 + 1 + 0 = 8 transitions. TestRandomChannels has
// rendezvous under the reductions.
func TestChannelSymmetryCounts(t *testing.T) {
	src := `spec ChanSym
type Id = symmetric 2
var box: [Id]chan[1] of bool
process node[n: Id] {
  var sent: bool
  action put when not sent {
    box[n] ! true
    sent := true
  }
  action take {
    box[n] ? true
  }
}
invariant AtMostOne: forall i in Id: len(box[i]) <= 1
terminal true
`
	m, err := spec.ParseFile("chansym.wrap", []byte(src), spec.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name          string
		opts          checker.Options
		states, trans int64
	}{
		{"none", checker.Options{}, 9, 12},
		{"symmetry", checker.Options{Canon: symmetry(t, m)}, 6, 8},
	} {
		r, err := checker.Run(context.Background(), m, tt.opts)
		if err != nil {
			t.Fatal(err)
		}
		if r.Verdict != verdict.Holds || r.Stats.States != tt.states || r.Stats.Transitions != tt.trans {
			t.Errorf("%s: %s, %d states, %d transitions; want holds, %d, %d", tt.name, r.Verdict, r.Stats.States, r.Stats.Transitions, tt.states, tt.trans)
		}
	}
	differential(t, m)
	checkOrbits(t, m, 100)
}
