package checker_test

import (
	"context"
	"os"
	"testing"

	"github.com/wrapcheck/wrapcheck/checker"
	"github.com/wrapcheck/wrapcheck/machine"
	"github.com/wrapcheck/wrapcheck/spec"
)

// TestCoverageOf counts, in its pass of its own, what a search without
// reduction counts: the states (the initial ones plus each action's new
// ones) and the successors each action generated; an action enabled in
// a state generates at least one successor there.
func TestCoverageOf(t *testing.T) {
	for _, path := range []string{"approval/toctou_fixed_snapshot.wrap", "pipeline/pipeline.wrap", "classic/traffic_light.wrap", "approval/toctou.wrap"} {
		t.Run(path, func(t *testing.T) {
			src, err := os.ReadFile("../examples/" + path)
			if err != nil {
				t.Fatal(err)
			}
			m, err := spec.ParseFile(path, src, spec.Options{})
			if err != nil {
				t.Fatal(err)
			}
			res, err := checker.Run(context.Background(), m, checker.Options{Workers: 1, Continue: true, NoDeadlock: true})
			if err != nil {
				t.Fatal(err)
			}
			prog, err := machine.Compile(m)
			if err != nil {
				t.Fatal(err)
			}
			cov := checker.CoverageOf(context.Background(), prog, 0)
			if cov.Truncated || cov.States != res.Stats.States {
				t.Fatalf("%d states (truncated %v), want %d", cov.States, cov.Truncated, res.Stats.States)
			}
			var distinct int64
			for a := range m.Actions {
				if cov.Fired[a] != res.Coverage.Fired[a] {
					t.Errorf("action %s fired %d, the search's %d", m.Actions[a].Name, cov.Fired[a], res.Coverage.Fired[a])
				}
				if cov.Enabled[a] > cov.Fired[a] || cov.Enabled[a] > cov.States || cov.Distinct[a] > cov.Fired[a] {
					t.Errorf("action %s: enabled %d, fired %d, new %d, of %d states", m.Actions[a].Name, cov.Enabled[a], cov.Fired[a], cov.Distinct[a], cov.States)
				}
				distinct += cov.Distinct[a]
			}
			if distinct >= cov.States || distinct == 0 {
				t.Errorf("%d new states of %d: the initial ones are missing or nothing fired", distinct, cov.States)
			}
			if cut := checker.CoverageOf(context.Background(), prog, 3); !cut.Truncated || cut.States != 3 {
				t.Errorf("with a limit of 3: %d states, truncated %v", cut.States, cut.Truncated)
			}
		})
	}
}
