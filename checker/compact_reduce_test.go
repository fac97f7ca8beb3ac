package checker_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wrapcheck/wrapcheck/checker"
	"github.com/wrapcheck/wrapcheck/reduce"
	"github.com/wrapcheck/wrapcheck/spec"
)

// TestCompactExamples compares hash compaction with the full search on
// every example, without reduction and with the symmetry and partial-order
// hooks of package reduce as `wrapcheck check` sets them: same verdict,
// counts, coverage and trace, for one and four workers.
func TestCompactExamples(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("..", "examples", "*", "*.wrap"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no examples: %v", err)
	}
	type view struct {
		Verdict       checker.Verdict
		States, Trans int64
		Depth         int
		Violation     *checker.Violation
		Coverage      checker.Coverage
	}
	for _, path := range paths {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		m, err := spec.ParseFile(filepath.ToSlash(path), src, spec.Options{})
		if err != nil {
			continue // an example of a front-end error
		}
		canon, err := reduce.Symmetry(m)
		if err != nil {
			t.Fatal(err)
		}
		for _, opts := range []checker.Options{{}, {Canon: canon, Ample: reduce.POR(m, reduce.Visible(m, nil))}} {
			opts.Workers = 1
			full, err := checker.Run(context.Background(), m, opts)
			if err != nil {
				t.Fatal(err)
			}
			want := view{full.Verdict, full.Stats.States, full.Stats.Transitions, full.Stats.Depth, full.Violation, full.Coverage}
			for _, workers := range []int{1, 4} {
				opts.Workers, opts.HashCompact = workers, true
				r, err := checker.Run(context.Background(), m, opts)
				if err != nil {
					t.Fatal(err)
				}
				got := view{r.Verdict, r.Stats.States, r.Stats.Transitions, r.Stats.Depth, r.Violation, r.Coverage}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("%s (reduction %v): full vs compact w%d (-full +compact):\n%s", path, opts.Canon != nil, workers, diff)
				}
				opts.HashCompact = false
			}
		}
	}
}
