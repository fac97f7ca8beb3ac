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
		name := fmt.Sprintf("random %d", i)
		rs := nextRandom(r)
		if rs.err != nil {
			rejected++
			if rejected <= 3 {
				t.Logf("%s: rejected: %v\n%s", name, rs.err, rs.src)
			}
			continue
		}
		or := compareRandom(t, name, rs)
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
			t.Logf("%s:\n%s", name, rs.src)
			return
		}
		compared++
	}
	t.Logf("%d random specs compared, %d skipped (too big), %d rejected; outcomes %v", compared, skipped, rejected, outcomes)
	if rejected > n/10 {
		t.Errorf("the front end rejected %d of %d random specs: the generator needs mending", rejected, n)
	}
}

// randomSpec is one spec of TestRandom's sequence.
type randomSpec struct {
	src  string
	m    *spec.Model // nil when the front end rejects src
	err  error       // why the front end rejects src
	noDL bool        // compared without the deadlock check
}

// nextRandom draws the next spec of TestRandom's sequence from r (the
// whether-to-check-deadlock draw only for a spec the front end accepts).
func nextRandom(r *rand.Rand) randomSpec {
	rs := randomSpec{src: gen.Generate(r, gen.Config{Shape: gen.Mixed}).Source}
	rs.m, rs.err = spec.ParseFile("random.wrap", []byte(rs.src), spec.Options{})
	if rs.err == nil {
		rs.noDL = r.IntN(4) == 0
	}
	return rs
}

// compareRandom compares the oracle with the engine on rs.
func compareRandom(t *testing.T, name string, rs randomSpec) *Result {
	t.Helper()
	// Planted asserts hold whatever the state: none may fail.
	return compare(t, name, rs.m, Options{NoDeadlock: rs.noDL, MaxStates: 8_000, MaxTransitions: 40_000, Failure: func(kind, msg string) {
		if strings.HasPrefix(msg, gen.Planted) {
			t.Errorf("%s: oracle: %s failed\n%s", name, msg, rs.src)
		}
	}})
}

// TestRandomRegressions replays the specs of TestRandom's longer searches
// (WRAPCHECK_ORACLE_SEED=seed) on which the oracle and the engine once
// disagreed, each drawn at its index of that seed's sequence.
func TestRandomRegressions(t *testing.T) {
	tests := []struct {
		seed  uint64
		index int
		why   string
	}{
		// A let past int64 compiled after an ask (continuations
		// first): the ask's assumption, analysed in between, left the
		// let without its big slot, and its value was a runtime error.
		{5, 469, "a let past int64 in the other branch of an if around an ask"},
		{99, 273, "a let past int64 before an ask in init"},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("seed%d/%d", tt.seed, tt.index), func(t *testing.T) {
			r := rand.New(rand.NewPCG(tt.seed, 11))
			var rs randomSpec
			for range tt.index + 1 {
				rs = nextRandom(r)
			}
			if rs.err != nil {
				t.Fatalf("%s: the spec no longer checks (the generator changed: draw the seed again): %v", tt.why, rs.err)
			}
			if compareRandom(t, tt.why, rs) == nil && !t.Failed() {
				t.Fatalf("%s: not compared", tt.why)
			}
			if t.Failed() {
				t.Logf("%s:\n%s", tt.why, rs.src)
			}
		})
	}
}

// TestRandomLoops compares the oracle with the engine on internal/gen's
// Symmetric specs with Loops: sequences of identities updated in place
// (append and tail), read below their length (head, q[v]: the machine's
// guarded element), for over them and over ranges, sum, a literal of one
// constant; runtime errors with Failing.
func TestRandomLoops(t *testing.T) {
	n := 40
	if testenv.Short(t) {
		n = 12
	}
	compared := 0
	for seed := range n {
		src := gen.Generate(rand.New(rand.NewPCG(uint64(seed), 41)), gen.Config{Shape: gen.Symmetric, Loops: true, Failing: seed%2 == 1}).Source
		name := fmt.Sprintf("loops %d", seed)
		m, err := spec.ParseFile("loops.wrap", []byte(src), spec.Options{})
		if err != nil {
			t.Errorf("%s: rejected: %v\n%s", name, err, src)
			continue
		}
		if compare(t, name, m, Options{NoDeadlock: true, MaxStates: 8_000, MaxTransitions: 40_000}) != nil {
			compared++
		}
		if t.Failed() {
			t.Logf("%s:\n%s", name, src)
			return
		}
	}
	if compared < n/2 {
		t.Errorf("only %d of %d specs compared (the others too big)", compared, n)
	}
}
