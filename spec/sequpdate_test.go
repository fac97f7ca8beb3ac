package spec_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wrapcheck/wrapcheck/checker"
	"github.com/wrapcheck/wrapcheck/internal/gen"
	"github.com/wrapcheck/wrapcheck/internal/testenv"
	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/verdict"
)

// seqUpdateSpecs exercise `q := append(q, x)` and `q := tail(q)` in
// place: overflow and underflow, an element out of its range, an element
// that reads q, a sequence in a record field and an array element, of
// records, in a process.
var seqUpdateSpecs = map[string]string{
	"queue": `spec Q
const N = 3
var q: seq[N] of 0..3
var last: 0..3
action send when len(q) < N { choose v in 0..3 { q := append(q, v) } }
action recv when len(q) > 0 { last := head(q)
  q := tail(q) }
invariant Bounded: len(q) <= N
`,
	"overflow": `spec O
var q: seq[2] of bool
action push { q := append(q, true) }
`,
	"underflow": `spec U
var q: seq[2] of bool
var k: 0..2
action push when k < 2 { q := append(q, false)
  k := k + 1 }
action pop when k > 0 { q := tail(q)
  q := tail(q) }
`,
	"element": `spec E
var q: seq[3] of 0..3
action push when len(q) < 3 { choose v in 0..2 { q := append(q, v * 2) } }
`,
	"self": `spec S
var q: seq[4] of 0..3
action grow when len(q) > 0 and len(q) < 4 { q := append(q, head(q) + len(q) - 1) }
action start when len(q) == 0 { q := append(q, 1) }
action drop when len(q) > 2 { q := tail(q) }
invariant NotFull: len(q) < 4 or q[3] != 3
`,
	"nested": `spec N
type Msg = record { id: 0..2, ok: bool }
type Box = record { n: 0..1, s: seq[2] of Msg }
var r: Box
var qs: [0..1]seq[2] of Msg
process p[i: 0..1] {
  action put when len(qs[i]) < 2 { choose v in 0..2 { qs[i] := append(qs[i], record { id: v, ok: v == i }) } }
  action take when len(qs[i]) > 0 { r.s := append(r.s, head(qs[i]))
    qs[i] := tail(qs[i]) }
}
action clear when len(r.s) == 2 { r.s := tail(r.s) }
`,
}

// TestSeqUpdateLowering holds the in-place lowering of append and tail
// to the lowering that stores the whole value (spec.ValueSeq): the same
// verdict, counts, violation (kind, name, position, message) and trace,
// state by state, on the specs above and on internal/gen's random specs
// that have sequences. The reference search (internal/oracle) reads the
// same IR, so it cannot tell the two apart: this test does.
func TestSeqUpdateLowering(t *testing.T) {
	specs := map[string]string{}
	for name, src := range seqUpdateSpecs {
		specs[name] = src
	}
	n := 30
	if testenv.Short(t) {
		n = 10
	}
	for seed := range n {
		specs[fmt.Sprintf("mixed%d", seed)] = gen.Generate(rand.New(rand.NewPCG(uint64(seed), 3)), gen.Config{Shape: gen.Mixed}).Source
		specs[fmt.Sprintf("loops%d", seed)] = gen.Generate(rand.New(rand.NewPCG(uint64(seed), 37)), gen.Config{Shape: gen.Symmetric, Loops: true, Failing: seed%2 == 1}).Source
	}
	updates, inPlace := 0, 0
	for name, src := range specs {
		if !strings.Contains(src, ":= append(") && !strings.Contains(src, ":= tail(") {
			continue
		}
		t.Run(name, func(t *testing.T) {
			var got [2]string
			var stmts [2]int
			for i, o := range []spec.Options{{}, spec.ValueSeq(spec.Options{})} {
				m, err := spec.ParseFile(name+".wrap", []byte(src), o)
				if err != nil {
					t.Skipf("does not check: %v", err)
				}
				for _, a := range m.Actions {
					stmts[i] += len(a.Body)
				}
				r, err := checker.Run(context.Background(), m, checker.Options{Workers: 1, MaxStates: 100000})
				if err != nil {
					t.Fatal(err)
				}
				got[i] = outcome(r)
			}
			updates++
			if stmts[0] != stmts[1] {
				inPlace++
			}
			if diff := cmp.Diff(got[1], got[0]); diff != "" {
				t.Errorf("in place vs whole value (-value +in place):\n%s\nspec:\n%s", diff, src)
			}
		})
	}
	if updates < 10 || inPlace < updates/2 {
		t.Errorf("only %d specs assign append or tail to a sequence, %d of them lowered in place", updates, inPlace)
	}
}

// outcome prints what a search found: the verdict, the counts, the
// violation and its trace's states.
func outcome(r *verdict.Result) string {
	s := fmt.Sprintf("%s %d states %d transitions depth %d\n", r.Verdict, r.Stats.States, r.Stats.Transitions, r.Stats.Depth)
	if v := r.Violation; v != nil {
		s += fmt.Sprintf("%s %s %s %s\n", v.Kind, v.Name, v.Pos, v.Msg)
		for _, st := range v.Trace {
			s += fmt.Sprintf("%d %v\n", st.Action, st.State)
		}
	}
	return s
}
