package quant_test

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/wrapcheck/wrapcheck/quant"
	"github.com/wrapcheck/wrapcheck/spec"
)

// hostileModel parses testdata/hostile/name, with extra appended.
func hostileModel(t *testing.T, name, extra string) *spec.Model {
	t.Helper()
	path := filepath.Join("..", "testdata", "hostile", name)
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m, err := spec.ParseFile(path, append(src, extra...), spec.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// stoppedCheck runs Check under a deadline of 300 ms and returns its
// result, which must be marked stopped by the deadline.
func stoppedCheck(t *testing.T, m *spec.Model, opts quant.Options) *quant.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	res, err := quant.Check(ctx, m, opts)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Check: %v, want the deadline", err)
	}
	if res == nil || !errors.Is(res.Stopped, context.DeadlineExceeded) {
		t.Fatalf("Check: %+v, want a result marked stopped", res)
	}
	return res
}

// TestCheckStoppedBox: when the limit stops the range over the
// confidence box (walkbox.wrap: the point values are decided at once,
// the box's walk crawls), Check returns the values, the query marked
// stopped in "box", without a box whose end was not reached, and the
// bound undecided (it held at the point estimates); before the change,
// the result was nil.
func TestCheckStoppedBox(t *testing.T) {
	res := stoppedCheck(t, hostileModel(t, "walkbox.wrap", ""), quant.Options{Interval: true})
	if len(res.Queries) != 1 {
		t.Fatalf("%d queries, want 1", len(res.Queries))
	}
	q := res.Queries[0]
	if !q.Stopped || q.StoppedIn != "box" || q.MaxBounds == nil || q.MaxBounds.Lo != 0 || q.MaxBounds.Hi > 1e-300 {
		t.Fatalf("query %+v, want stopped in the box with P_max in [0, tiny]", q)
	}
	if q.Box != nil && (q.Box.HiBounds == nil || q.Box.LoBounds == nil) {
		t.Errorf("a box with an end missing: %+v", q.Box)
	}
	if q.Violated || !q.Unknown {
		t.Errorf("violated %v unknown %v, want undecided", q.Violated, q.Unknown)
	}
}

// TestCheckStoppedSensitivity: when the limit stops the sensitivity
// pass (walksens.wrap: the values and the range are found at once, the
// range with the jump's rate exact crawls), Check returns the values and
// the range, the query marked stopped in "sensitivity", without a
// ranking of some of the rates.
func TestCheckStoppedSensitivity(t *testing.T) {
	res := stoppedCheck(t, hostileModel(t, "walksens.wrap", ""), quant.Options{Interval: true, Sensitivity: true})
	q := res.Queries[0]
	if !q.Stopped || q.StoppedIn != "sensitivity" || q.Box == nil || q.Sensitivity != nil {
		t.Fatalf("query %+v, want stopped in the sensitivity with its box and no sensitivity", q)
	}
	if q.Box.LoBounds == nil || q.Box.HiBounds == nil || q.Box.LoBounds.Lo != 0 || q.Box.HiBounds.Hi != 1 {
		t.Errorf("box %+v %+v, want [0, 1]", q.Box.LoBounds, q.Box.HiBounds)
	}
	if !q.Unknown || !q.BoxBroken {
		t.Errorf("unknown %v box broken %v: the bound <= 9/10 is not decided by [0, 1]", q.Unknown, q.BoxBroken)
	}
}

// TestCheckStoppedCost: interval iteration for expected costs stopped
// on walk.wrap's expected number of steps (some (7/3)^60: float64 fails
// on the walk's systems, so no upper bound is certified) returns the
// lower bound reached and an infinite upper end, marked stopped.
func TestCheckStoppedCost(t *testing.T) {
	m := hostileModel(t, "walk.wrap", "cost moves { step: 1 }\nexpected Steps: max moves until (x == 60 or x == -60)\n")
	res := stoppedCheck(t, m, quant.Options{Interval: true, Only: []string{"Steps"}})
	if len(res.Expectations) != 1 {
		t.Fatalf("%d expected costs, want 1", len(res.Expectations))
	}
	e := res.Expectations[0]
	if !e.Stopped || e.StoppedIn != "" || e.MaxBounds == nil || !(e.MaxBounds.Lo > 60) || !math.IsInf(e.MaxBounds.Hi, 1) {
		t.Fatalf("expectation %+v (bounds %+v), want stopped with a lower bound past 60 and no upper one", e, e.MaxBounds)
	}
}
