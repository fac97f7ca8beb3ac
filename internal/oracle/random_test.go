package oracle

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/wrapcheck/wrapcheck/internal/gen"
	"github.com/wrapcheck/wrapcheck/internal/testenv"
	"github.com/wrapcheck/wrapcheck/spec"
)

// TestRandom compares the oracle with the engine on 400 random specs
// (fixed seed). WRAPCHECK_ORACLE_SEED=n runs 3000 others, from seed n, for
// a longer search.
func TestRandom(t *testing.T) {
	seed, n := uint64(2024), 400
	if testenv.Short(t) {
		n = 100
	}
	if v := os.Getenv("WRAPCHECK_ORACLE_SEED"); v != "" {
		seed, _ = strconv.ParseUint(v, 10, 64)
		n = 3000
	}
	r := rand.New(rand.NewPCG(seed, 11))
	rejected, compared, skipped := 0, 0, 0
	outcomes := map[string]int{}
	for i := range n {
		src := gen.Generate(r, gen.Config{Shape: gen.Mixed}).Source
		name := fmt.Sprintf("random %d", i)
		m, err := spec.ParseFile("random.wrap", []byte(src), spec.Options{})
		if err != nil {
			rejected++
			if rejected <= 3 {
				t.Logf("%s: rejected: %v\n%s", name, err, src)
			}
			continue
		}
		noDL := r.IntN(4) == 0
		// Planted asserts hold whatever the state: none may fail.
		or := compare(t, name, m, Options{NoDeadlock: noDL, MaxStates: 8_000, MaxTransitions: 40_000, Failure: func(kind, msg string) {
			if strings.HasPrefix(msg, gen.Planted) {
				t.Errorf("%s: oracle: %s failed\n%s", name, msg, src)
			}
		}})
		if or == nil {
			skipped++
			continue
		}
		if v := or.Violation; v != nil {
			outcomes[v.Kind]++
		} else {
			outcomes["holds"]++
		}
		if t.Failed() {
			t.Logf("%s:\n%s", name, src)
			return
		}
		compared++
	}
	t.Logf("%d random specs compared, %d skipped (too big), %d rejected; outcomes %v", compared, skipped, rejected, outcomes)
	if rejected > n/10 {
		t.Errorf("the front end rejected %d of %d random specs: the generator needs mending", rejected, n)
	}
}
