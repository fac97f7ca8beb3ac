package reduce_test

import (
	"context"
	"fmt"
	"os"

	"github.com/wrapcheck/wrapcheck/checker"
	"github.com/wrapcheck/wrapcheck/reduce"
	"github.com/wrapcheck/wrapcheck/spec"
)

// Both reductions configured as checker hooks: the peers' pipeline with
// K=4 interchangeable runs of one step has 15^4 = 50625 states, and
// C(15+4-1, 4) = 3060 orbits.
func Example() {
	const file = "../examples/peers/pipeline.wrap"
	src, err := os.ReadFile(file)
	if err != nil {
		fmt.Println(err)
		return
	}
	m, err := spec.ParseFile(file, src, spec.Options{Defines: map[string]int64{"K": 4, "N": 1}})
	if err != nil {
		fmt.Println(err)
		return
	}
	canon, err := reduce.Symmetry(m)
	if err != nil {
		fmt.Println(err)
		return
	}
	opts := checker.Options{
		Canon: canon,
		Ample: reduce.POR(m, reduce.Visible(m, nil)), // nil here: the invariants read every local
	}
	r, err := checker.Run(context.Background(), m, opts)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(r.Verdict, r.Stats.States)
	// Output: holds 3060
}
