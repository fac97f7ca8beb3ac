package verify

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wrapcheck/wrapcheck/spec"
)

// pastPairs are specs written twice: with hand-kept history variables and
// with past-time operators. Where the hand encoding is the canonical one
// (one history variable per past-time subformula instance, updated on
// every step), the counts must be equal too.
var pastPairs = []struct {
	name      string
	canonical bool
	hand      string
	past      string
}{
	{
		name:      "symmetric once",
		canonical: true,
		hand: `spec S
type Run = symmetric 3
type St = {idle, busy, done}
var st: [Run]St
var started: [Run]bool
process P[r: Run] {
  action start when st[r] == idle { st[r] := busy; started[r] := true }
  action finish when st[r] == busy { st[r] := done }
  action reset when st[r] == done { st[r] := idle }
}
invariant DoneWasStarted: forall r in Run: st[r] == done implies started[r]
invariant IdleNeverStarted: forall r in Run: st[r] == idle implies not started[r]
`,
		past: `spec S
type Run = symmetric 3
type St = {idle, busy, done}
var st: [Run]St
process P[r: Run] {
  action start when st[r] == idle { st[r] := busy }
  action finish when st[r] == busy { st[r] := done }
  action reset when st[r] == done { st[r] := idle }
}
invariant DoneWasStarted: forall r in Run: st[r] == done implies once (st[r] == busy)
invariant IdleNeverStarted: forall r in Run: st[r] == idle implies not once (st[r] == busy)
`,
	},
	{
		name:      "once in the guard of a symmetric family",
		canonical: true,
		hand: `spec F
type Run = symmetric 3
var done: [Run]bool
var go_: [Run]bool
var last: Run
var onceGo: [Run]bool // last, where the monitor of once go_[r] goes
process P[r: Run] {
  action a when not done[r] and onceGo[r] { done[r] := true; last := r }
  action g when not go_[r] { go_[r] := true; onceGo[r] := true; last := r }
}
invariant DoneAfterGo: forall r in Run: done[r] implies onceGo[r]
invariant NotAllDone: exists r in Run: not done[r]
terminal forall r in Run: done[r]
`,
		past: `spec F
type Run = symmetric 3
var done: [Run]bool
var go_: [Run]bool
var last: Run
process P[r: Run] {
  action a when not done[r] and once go_[r] { done[r] := true; last := r }
  action g when not go_[r] { go_[r] := true; last := r }
}
invariant DoneAfterGo: forall r in Run: done[r] implies once go_[r]
invariant NotAllDone: exists r in Run: not done[r]
terminal forall r in Run: done[r]
`,
	},
	{
		name:      "previously and since, two processes",
		canonical: true,
		hand: `spec T
var a: 0..2
var b: bool
var wasB: bool
var okSince: bool
process p { action inc when a < 2 { wasB := b; a := a + 1; okSince := b or (a != 1 and okSince) } }
process q {
  action flip { wasB := b; b := not b; okSince := b or (a != 1 and okSince) }
  action drop when a > 0 { wasB := b; a := a - 1; okSince := b or (a != 1 and okSince) }
}
init { okSince := b }
invariant NoTwoFlips: not (b and wasB and a == 2)
invariant Since: a == 2 implies okSince
`,
		past: `spec T
var a: 0..2
var b: bool
process p { action inc when a < 2 { a := a + 1 } }
process q {
  action flip { b := not b }
  action drop when a > 0 { a := a - 1 }
}
invariant NoTwoFlips: not (b and previously b and a == 2)
invariant Since: a == 2 implies a != 1 since b
`,
	},
	{
		name: "approval TOCTOU",
		hand: `spec ApprovalTOCTOU
const MAXV = 3
type Version = 0..MAXV
var content: Version = 0
var approved: Version = 0
var granted: bool = false
var released: bool = false
var shipped: Version = 0
process approver { action approve when not granted { approved := content; granted := true } }
process editor { action edit when content < MAXV and not released { content := content + 1 } }
process releaser { action release when granted and not released { released := true; shipped := content } }
invariant ShippedWhatWasApproved: released implies shipped == approved
terminal released
`,
		past: `spec ApprovalTOCTOU
const MAXV = 3
type Version = 0..MAXV
var content: Version = 0
var granted: bool = false
var released: bool = false
var shipped: Version = 0
process approver { action approve when not granted { granted := true } }
process editor { action edit when content < MAXV and not released { content := content + 1 } }
process releaser { action release when granted and not released { released := true; shipped := content } }
invariant ShippedWhatWasApproved: released implies exists v in Version: shipped == v and once (granted and not previously granted and content == v)
terminal released
`,
	},
}

func TestPastTimeVersusHistoryVariables(t *testing.T) {
	type outcome struct {
		Verdict, Name string
		Steps         int
		Actions       []int
		States        int64
		Transitions   int64
	}
	run := func(t *testing.T, src string, opts Options, only string) outcome {
		t.Helper()
		m, err := spec.ParseFile("t.wrap", []byte(src), spec.Options{})
		if err != nil {
			t.Fatal(err)
		}
		opts.Only = []string{only}
		res, err := Run(context.Background(), m, opts)
		if err != nil {
			t.Fatal(err)
		}
		o := outcome{Verdict: res.Verdict.String(), States: res.Stats.States, Transitions: res.Stats.Transitions}
		if v := res.Violation; v != nil {
			o.Name, o.Steps = v.Name, len(v.Trace)
			for _, s := range v.Trace {
				o.Actions = append(o.Actions, s.Action)
			}
		}
		return o
	}
	for _, tt := range pastPairs {
		m, err := spec.ParseFile("t.wrap", []byte(tt.past), spec.Options{})
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		for _, inv := range m.Invariants {
			for _, red := range []struct {
				name string
				opts Options
			}{
				{"none", Options{NoSymmetry: true, NoPOR: true, Workers: 1}},
				{"symmetry", Options{NoPOR: true, Workers: 2}},
				{"por", Options{NoSymmetry: true, Workers: 3}},
				{"both", Options{}},
			} {
				t.Run(tt.name+"/"+inv.Name+"/"+red.name, func(t *testing.T) {
					want := run(t, tt.hand, red.opts, inv.Name)
					got := run(t, tt.past, red.opts, inv.Name)
					if !tt.canonical {
						want.States, want.Transitions = 0, 0
						got.States, got.Transitions = 0, 0
					}
					if diff := cmp.Diff(want, got); diff != "" {
						t.Errorf("(-history variables +past-time operators):\n%s", diff)
					}
				})
			}
		}
	}
}
