package reduce

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wrapcheck/wrapcheck/checker"
)

// TestPORReduces checks that the ample sets shrink the state space of
// independent processes and keep the verdict.
func TestPORReduces(t *testing.T) {
	tests := []struct {
		file string
		defs map[string]int64
		full int64
	}{
		{"testdata/indep.wrap", map[string]int64{"K": 3}, 3 * 5 * 5 * 5},
		// S1^K with S1 = 15 (the peers' closed form)
		{"testdata/pipeline_procs.wrap", map[string]int64{"K": 3, "N": 1}, 15 * 15 * 15},
	}
	for _, tt := range tests {
		t.Run(filepath.Base(tt.file), func(t *testing.T) {
			m := load(t, tt.file, tt.defs)
			full := run(t, m, checker.Options{})
			ample := POR(m, Visible(m, nil))
			if ample == nil {
				t.Fatal("POR returned nil")
			}
			red := run(t, m, checker.Options{Ample: ample})
			if diff := cmp.Diff(full.Verdict, red.Verdict); diff != "" {
				t.Errorf("verdict (-want +got):\n%s", diff)
			}
			if full.Stats.States != tt.full {
				t.Errorf("unreduced states = %d, want %d", full.Stats.States, tt.full)
			}
			if red.Stats.States >= full.Stats.States {
				t.Errorf("POR stored %d states, not fewer than %d", red.Stats.States, full.Stats.States)
			}
			t.Logf("states: %d unreduced, %d with POR", full.Stats.States, red.Stats.States)
		})
	}
}
