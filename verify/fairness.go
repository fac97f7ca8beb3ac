package verify

import (
	"context"
	"fmt"

	"github.com/wrapcheck/wrapcheck/ltl"
	"github.com/wrapcheck/wrapcheck/machine"
	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/verdict"
)

// cycleNotes are the notes of the lasso v: what its cycle starves and
// which fairness would exclude it, or that none can ([Cycle.Notes]);
// none for a finite trace or a cycle the analysis cannot follow.
func cycleNotes(prog *machine.Program, v *verdict.Violation) []string {
	if v == nil || v.LoopStart < 0 {
		return nil
	}
	c, err := Liveness(prog, v)
	if err != nil {
		return nil
	}
	return c.Notes()
}

// neededFairness reports, for a model whose selected properties hold, the
// fairness declarations without which one of them fails: it checks the
// properties again with each declaration left out.
func neededFairness(ctx context.Context, lc *ltl.Checker, m *spec.Model, opts Options) ([]string, error) {
	var notes []string
	for i, f := range m.Fairness {
		lo := ltlOptions(opts)
		lo.IgnoreFairness = []int{i}
		res, err := lc.Check(ctx, lo)
		if err != nil {
			return nil, err
		}
		kind := "weak"
		if f.Strong {
			kind = "strong"
		}
		switch res.Verdict {
		case verdict.Violated:
			notes = append(notes, fmt.Sprintf("property %s needs `fairness %s %s` (%s): without it, it fails", res.Violation.Name, kind, f.Name, f.Pos))
		case verdict.Holds:
			notes = append(notes, fmt.Sprintf("`fairness %s %s` (%s): the properties hold without it (the other fairness declarations kept)", kind, f.Name, f.Pos))
		}
	}
	return notes, nil
}
