package spec

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wrapcheck/wrapcheck/spec/syntax"
)

func TestVet(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string
	}{
		{
			name: "clean",
			src: `spec S
var x: bool
action a { x := not x }
invariant I: x or not x
`,
			want: nil,
		},
		{
			name: "rendezvous action that meets nobody (an extension)",
			src: `spec S
var c: chan[0] of bool
var d: chan[0] of bool
var x: bool
process p {
  action snd {
    c ! true
  }
  action rcv {
    d ? x
  }
}
process q {
  action get {
    c ? x
  }
}
`,
			want: []string{
				"x.wrap:10:5: action rcv never runs: it receives from the rendezvous channel d, which no action of another process sends on",
			},
		},
		{
			name: "property without temporal operator",
			src: `spec S
var x: 0..2
action a when x < 2 { x := x + 1 }
property Two: x == 2
property Ends: eventually x == 2
`,
			want: []string{
				"x.wrap:4:1: property Two has no temporal operator: it speaks only of the initial states (did you mean always or eventually, or an invariant?)",
			},
		},
		{
			name: "trivial past-time formulas",
			src: `spec S
var x: bool
action a { x := not x }
invariant A: historically true or once false
invariant B: previously false or previously true or once x
invariant C: x since true or x since false or true since x
invariant D: not historically previously x
`,
			want: []string{
				"x.wrap:4:14: historically true is always true: its operand is constant",
				"x.wrap:4:35: once false is always false: its operand is constant",
				"x.wrap:5:14: previously false is always false: its operand is constant",
				"x.wrap:6:14: x since true is always true: its right operand is constant",
				"x.wrap:6:30: x since false is always false: its right operand is constant",
				"x.wrap:7:18: historically previously x is always false: previously is false in every initial state",
			},
		},
		{
			name: "unused",
			src: `spec S
type T = 0..3
type U = {u1, u2}
type W = bool
var x: bool
var y: U
fn f(n: T): bool = n > 0
process P { var z: 0..1  action a { x := not x } }
`,
			want: []string{
				"x.wrap:4:6: type W is never used",
				"x.wrap:6:5: variable y is never used",
				"x.wrap:7:4: fn f is never used",
				"x.wrap:8:17: variable P.z is never used",
			},
		},
		{
			name: "agents",
			src: `spec S
type Verdict = {pass, fail}
var v: Verdict
var n: 0..3
agent idle(): bool
agent never(k: 0..3): Verdict assume result == pass and result == fail
agent picky(k: 0..3): Verdict assume k >= 2 implies result == pass and k == 2
action a {
  v := ask never(n)
  v := ask picky(n)
}
`,
			want: []string{
				"x.wrap:5:7: agent idle is never asked",
				"x.wrap:6:38: assume of agent never can never hold: no answer satisfies it for any arguments",
				"x.wrap:7:38: assume of agent picky can never hold for some arguments, e.g. picky(3): no answer satisfies it, so asking disables the action",
			},
		},
		{
			name: "assume over sets and records",
			src: `spec S
type C = {c1, c2}
type R = record { ok: bool, cites: set of C }
var r: R
var b: set of C
agent judge(brief: set of C): R assume result.ok implies result.cites subset brief
agent strict(brief: set of C): R assume result.ok and result.cites == brief and card(brief) > 0
action a {
  r := ask judge(b)
  r := ask strict(b)
}
`,
			want: []string{
				"x.wrap:7:41: assume of agent strict can never hold for some arguments, e.g. strict({}): no answer satisfies it, so asking disables the action",
			},
		},
		{
			name: "terminal",
			src: `spec S
const DONE = 0
var x: bool
action a { x := not x }
terminal DONE == 1
terminal x and false
`,
			want: []string{
				"x.wrap:5:1: terminal condition can never hold (it is always false)",
				"x.wrap:6:1: terminal condition can never hold (it is always false)",
			},
		},
		{
			name: "signed range starts below zero",
			src: `spec S
type Opt = -1..3
var x: -5..5
var y: -5..5 = 0
var z: -5..5
var o: Opt
var a: [0..1]-2..2
var b: [0..1]Opt
var n: -3..-1
process P {
  var w: -1..1
  action p { w := w }
}
action s { x := x; y := y; z := z; o := o; a[0] := a[1]; b[0] := b[1]; n := n }
init { z := 0 }
`,
			want: []string{
				"x.wrap:3:5: variable x: -5..5 starts at -5; write = 0 if you mean zero",
				"x.wrap:7:5: the elements of variable a: [0..1]-2..2 start at -2; set them in init if you mean zero",
				"x.wrap:11:7: variable P.w: -1..1 starts at -1; write = 0 if you mean zero",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := syntax.Parse("x.wrap", []byte(tt.src))
			if err != nil {
				t.Fatal(err)
			}
			m, err := Check(f, Options{})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, w := range Vet(f, m) {
				got = append(got, w.String())
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Vet (-want +got):\n%s", diff)
			}
			// Vet without a model checks the file itself.
			var again []string
			for _, w := range Vet(f, nil) {
				again = append(again, w.String())
			}
			if diff := cmp.Diff(got, again); diff != "" {
				t.Errorf("Vet(f, nil) differs (-with model +without):\n%s", diff)
			}
		})
	}
}
