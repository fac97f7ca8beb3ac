package checker

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wrapcheck/wrapcheck/machine"
	"github.com/wrapcheck/wrapcheck/spec"
)

// TestKeyedChecksEveryState: one worker with a store that keeps its
// one-word vectors in the slots (flushKeyed) checks every new state, and
// reports what two workers (the indexed store's path) report. Each of
// the 256 invariants is broken by one reachable state alone, and the
// search goes on past violations (Continue), so a state left unchecked,
// or checked as another, is a violation missing or moved.
func TestKeyedChecksEveryState(t *testing.T) {
	var b strings.Builder
	b.WriteString("spec Keyed\nvar x: 0..15\nvar y: 0..15\nvar big: 0..1099511627775\n")
	b.WriteString("action incx when x < 15 { x := x + 1  big := 68719476736 * x + y }\n")
	b.WriteString("action incy when y < 15 { y := y + 1  big := 68719476736 * x + y }\n")
	b.WriteString("action wrap when x == 15 and y == 15 { x := 0  y := 0  big := 1 }\n")
	for a := range 16 {
		for c := range 16 {
			fmt.Fprintf(&b, "invariant I%d_%d: not (x == %d and y == %d)\n", a, c, a, c)
		}
	}
	m, err := spec.ParseFile("keyed.wrap", []byte(b.String()), spec.Options{})
	if err != nil {
		t.Fatal(err)
	}
	prog, err := machine.Compile(m)
	if err != nil {
		t.Fatal(err)
	}
	if !machine.NewKeyStoreFor(prog).Keyed() {
		t.Fatal("the spec's states are not one word of 33 to 63 bits: the test no longer covers the keyed store")
	}
	run := func(workers int) *Result {
		res, err := run(context.Background(), m, Options{Workers: workers, Continue: true}, 1)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	one, two := run(1), run(2)
	if len(one.Violations) != 256 {
		t.Errorf("one worker: %d violations, want 256 (one an invariant)", len(one.Violations))
	}
	if diff := cmp.Diff(two.Violations, one.Violations); diff != "" {
		t.Errorf("one worker (keyed) against two (-two +one):\n%s", diff)
	}
	if one.Stats.States != two.Stats.States {
		t.Errorf("states: one worker %d, two %d", one.Stats.States, two.Stats.States)
	}
}
