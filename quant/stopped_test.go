package quant_test

import (
	"context"
	"errors"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
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
// stopped in "box", with the ends of the box that were reached (the
// greatest is computed first; TestCheckStoppedBoxEnd checks the ends
// kept), and the bound undecided (it held at the point estimates);
// before the change, the result was nil.
func TestCheckStoppedBox(t *testing.T) {
	res := stoppedCheck(t, hostileModel(t, "walkbox.wrap", ""), quant.Options{Interval: true})
	if len(res.Queries) != 1 {
		t.Fatalf("%d queries, want 1", len(res.Queries))
	}
	q := res.Queries[0]
	if !q.Stopped || q.StoppedIn != "box" || q.MaxBounds == nil || q.MaxBounds.Lo != 0 || q.MaxBounds.Hi > 1e-300 {
		t.Fatalf("query %+v, want stopped in the box with P_max in [0, tiny]", q)
	}
	if q.Box != nil && q.Box.HiBounds == nil {
		t.Errorf("a box without its greatest end, computed first: %+v", q.Box)
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

// countingContext is a context whose Err is nil for its first left
// calls, then context.Canceled for good: it stops [quant.Check] at a
// point that the count fixes, the same in every run (Check calls Err
// from one goroutine, in an order that depends on the spec alone).
type countingContext struct {
	context.Context
	left atomic.Int64
}

func newCountingContext(n int64) *countingContext {
	c := &countingContext{Context: context.Background()}
	c.left.Store(n)
	return c
}

func (c *countingContext) Err() error {
	if c.left.Add(-1) < 0 {
		return context.Canceled
	}
	return nil
}

// TestCheckStoppedBoxEnd stops Check after each number of calls of its
// context's Err in turn, on the pipeline's caveats (a probability) and
// its expected verifier calls, each with an upper bound and a lower one,
// with counts, exactly and by interval iteration, until a run is not
// stopped. Where a run stops in the range over the confidence box after
// its greatest end was reached (that end is computed first), the box
// keeps that end, enclosing the full run's, and the least is nil (not
// reached); an upper bound is decided from the greatest end as in the
// full run, a lower one is undecided (not "broken by the counts"). Every
// end kept, of every run stopped in the box, encloses the full run's.
// Before the change, the box of such a run was nil.
func TestCheckStoppedBoxEnd(t *testing.T) {
	path := filepath.Join("..", "examples", "pipeline", "rates.wrap")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	src = append(src, `probability CaveatBound: max eventually rel == caveat bound <= 1/20
probability CaveatLow: min eventually rel == caveat bound >= 1/100
expected CallsBound: max calls until (phase == done or phase == stopped) bound <= 3/2
expected CallsLow: min calls until (phase == done or phase == stopped) bound >= 1
`...)
	m, err := spec.ParseFile(path, src, spec.Options{Defines: map[string]int64{"HONEST": 1, "FAMILY": 1}})
	if err != nil {
		t.Fatal(err)
	}
	// encloses reports whether the end kept (exact, or bounds) holds the
	// full run's exact end
	encloses := func(v *big.Rat, iv *quant.Interval, want *big.Rat) bool {
		if v != nil {
			return v.Cmp(want) == 0
		}
		return new(big.Rat).SetFloat64(iv.Lo).Cmp(want) <= 0 && new(big.Rat).SetFloat64(iv.Hi).Cmp(want) >= 0
	}
	for _, name := range []string{"CaveatBound", "CaveatLow", "CallsBound", "CallsLow"} {
		upper := !strings.HasSuffix(name, "Low")
		full, err := quant.Check(context.Background(), m, quant.Options{Only: []string{name}})
		if err != nil {
			t.Fatal(err)
		}
		var fullBox *quant.Box
		var fullViolated, fullUnknown, fullBroken bool
		if len(full.Queries) > 0 {
			q := full.Queries[0]
			fullBox, fullViolated, fullUnknown, fullBroken = q.Box, q.Violated, q.Unknown, q.BoxBroken
		} else {
			e := full.Expectations[0]
			fullBox, fullViolated, fullUnknown, fullBroken = e.Box, e.Violated, e.Unknown, e.BoxBroken
		}
		for _, interval := range []bool{false, true} {
			oneEnd := 0
			for n := int64(0); ; n++ {
				if n > 1_000_000 {
					t.Fatalf("%s interval=%v: still stopped after %d calls", name, interval, n)
				}
				res, err := quant.Check(newCountingContext(n), m, quant.Options{Only: []string{name}, Interval: interval})
				if err == nil {
					break
				}
				if res == nil {
					continue
				}
				var box *quant.Box
				var where string
				var violated, unknown, broken, hiInf, loInf bool
				if len(res.Queries) > 0 {
					q := res.Queries[0]
					box, where, violated, unknown, broken = q.Box, q.StoppedIn, q.Violated, q.Unknown, q.BoxBroken
				} else {
					e := res.Expectations[0]
					box, where, violated, unknown, broken, hiInf, loInf = e.Box, e.StoppedIn, e.Violated, e.Unknown, e.BoxBroken, e.BoxHiInf, e.BoxLoInf
				}
				if where != "box" || box == nil {
					continue
				}
				hi, lo := box.Hi != nil || box.HiBounds != nil || hiInf, box.Lo != nil || box.LoBounds != nil || loInf
				if hi && !encloses(box.Hi, box.HiBounds, fullBox.Hi) || lo && !encloses(box.Lo, box.LoBounds, fullBox.Lo) {
					t.Fatalf("%s interval=%v stopped after %d calls: box %+v (%+v, %+v) misses the full run's [%s, %s]", name, interval, n, box, box.LoBounds, box.HiBounds, fullBox.Lo, fullBox.Hi)
				}
				if !hi {
					t.Fatalf("%s interval=%v stopped after %d calls: the least end without the greatest, computed first", name, interval, n)
				}
				if lo {
					continue
				}
				oneEnd++
				// a bound on the greatest end, reached, is decided as in
				// the full run where that end is exact; one on the least,
				// not reached, holds at the point estimates and is not
				// decided over the box
				if upper && box.Hi != nil && (violated != fullViolated || unknown != fullUnknown || broken != fullBroken) ||
					!upper && (violated || !unknown || broken) {
					t.Errorf("%s interval=%v stopped after %d calls: violated %v unknown %v broken %v, the full run %v %v %v", name, interval, n, violated, unknown, broken, fullViolated, fullUnknown, fullBroken)
				}
			}
			if oneEnd == 0 {
				t.Errorf("%s interval=%v: no run stopped in the box kept its greatest end alone", name, interval)
			}
			t.Logf("%s interval=%v: %d runs kept the greatest end alone", name, interval, oneEnd)
		}
	}
}
