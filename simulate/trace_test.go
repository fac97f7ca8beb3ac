package simulate

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestTrace checks that Trace gives the walk Run walks: the trace of the
// walk that found the violation is the violation's trace, and a walk of
// the correct pipeline ends in a terminal state (done or stopped) within
// the depth bound.
func TestTrace(t *testing.T) {
	ctx := context.Background()
	m := load(t, example{path: "../examples/pipeline/fail_open.wrap"})
	opts := Options{Seed: 3, Walks: 500, Workers: 1}
	res, err := Run(ctx, m, opts)
	if err != nil {
		t.Fatal(err)
	}
	if res.Violation == nil {
		t.Fatal("fail_open.wrap: no violation in 500 walks")
	}
	tr, err := Trace(ctx, m, opts, res.Walk)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(res.Violation.Trace, tr); diff != "" {
		t.Errorf("walk %d: the trace differs from the violation's (-want +got):\n%s", res.Walk, diff)
	}

	m = load(t, example{path: "../examples/pipeline/pipeline.wrap"})
	phase := m.Vars[0]
	for k := int64(0); k < 20; k++ {
		tr, err := Trace(ctx, m, Options{Seed: 1}, k)
		if err != nil {
			t.Fatal(err)
		}
		last := tr[len(tr)-1]
		if got := phase.Type.Names[last.State[phase.Slot]]; got != "done" && got != "stopped" {
			t.Errorf("walk %d ends with phase %s after %d steps", k, got, len(tr)-1)
		}
		for i, st := range tr[1:] {
			if st.Action < 0 {
				t.Errorf("walk %d: step %d has no action", k, i+1)
			}
		}
	}
	if _, err := Trace(ctx, m, Options{}, -1); err == nil {
		t.Error("Trace(-1): no error")
	}
}
