package reduce

import (
	"maps"
	"slices"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wrapcheck/wrapcheck/checker"
	"github.com/wrapcheck/wrapcheck/internal/testenv"
)

// TestOrbitCounts checks the exact orbit counts of the peers (Rumur
// exhaustive / TLC SYMMETRY, and the closed form C(S1+K-1, K) of the
// pipeline: K independent runs with S1 states each).
func TestOrbitCounts(t *testing.T) {
	tests := []struct {
		file        string
		defs        map[string]int64
		states      int64
		transitions int64
		large       bool
	}{
		{"../examples/peers/pipeline.wrap", map[string]int64{"K": 1, "N": 1}, 15, 19, false},
		{"../examples/peers/pipeline.wrap", map[string]int64{"K": 2, "N": 1}, 120, 304, false},
		{"../examples/peers/pipeline.wrap", map[string]int64{"K": 2, "N": 2}, 4950, 13300, false},
		{"../examples/peers/pipeline.wrap", map[string]int64{"K": 4, "N": 1}, 3060, 15504, false},
		{"../examples/peers/pipeline.wrap", map[string]int64{"K": 6, "N": 1}, 38760, -1, false},
		{"../examples/peers/pipeline.wrap", map[string]int64{"K": 3, "N": 2}, 166650, 671650, true},
		{"../examples/peers/mutex_sym.wrap", map[string]int64{"N": 2}, 13, 23, false},
		{"../examples/peers/mutex_sym.wrap", map[string]int64{"N": 3}, 72, 170, false},
		{"../examples/peers/mutex_sym.wrap", map[string]int64{"N": 4}, 322, 943, false},
		{"../examples/peers/mutex_sym.wrap", map[string]int64{"N": 5}, 1288, 4493, false},
		{"../examples/peers/mutex_sym.wrap", map[string]int64{"N": 6}, 4789, 19374, false},
		{"../examples/peers/toctou.wrap", map[string]int64{"D": 3, "M": 3, "FIXED": 1}, 1140, 4370, false},
		{"../examples/peers/toctou.wrap", map[string]int64{"D": 4, "M": 2, "FIXED": 1}, 1365, 6370, false},
		{"../examples/peers/toctou.wrap", map[string]int64{"D": 3, "M": 10, "FIXED": 1}, 117480, 568710, true},
	}
	for _, tt := range tests {
		name := tt.file[len("../examples/"):]
		for _, k := range slices.Sorted(maps.Keys(tt.defs)) {
			name += "," + k + "=" + strconv.FormatInt(tt.defs[k], 10)
		}
		t.Run(name, func(t *testing.T) {
			if tt.large && testenv.Short(t) {
				t.Skip("large")
			}
			m := load(t, tt.file, tt.defs)
			r := run(t, m, checker.Options{Canon: symmetry(t, m)})
			type counts struct {
				Verdict             string
				States, Transitions int64
			}
			want := counts{"holds", tt.states, tt.transitions}
			got := counts{r.Verdict.String(), r.Stats.States, r.Stats.Transitions}
			if tt.transitions < 0 {
				got.Transitions = -1
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
