package machine

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// shapes has one action per assignment shape that the compiler fuses
// (fusedStore) or evaluates in one closure (slotIndex, constant arms):
// an element at a dynamic index incremented, set to a constant and set
// from another element, a variable incremented and set from another,
// and a conditional with constant arms over an element.
const shapes = `spec shapes
var i: 0..3
var a: [0..2]0..2
var b: [0..2]0..5
var x: 0..4
action inc { a[i] := a[i] + 1 }
action setc { a[i] := 2 }
action gen { b[i] := a[i] + 3 }
action self { x := x + 1 }
action cpy { x := i + 1 }
action cond { x := if a[i] == 1 then 4 else 0 }
`

// TestAssignShapes runs every action of shapes in states that make each
// of its failures happen (an index out of range, on the value's side or
// the target's; a value outside the target's domain) and in states
// where it succeeds: the successor, or the failure with its position.
func TestAssignShapes(t *testing.T) {
	p := compile(t, shapes)
	m := p.NewMachine()
	run := func(state []int64) []string {
		s := make(State, p.Words())
		p.Pack(s, state)
		var out []string
		m.OnState(func(m *Machine) { out = append(out, fmt.Sprint(m.Slots())) })
		for a := range p.Actions() {
			m.Load(s)
			before := len(out)
			if !m.RunAction(a) {
				out = append(out, m.Failure().Error())
				m.ClearFailure()
			} else if len(out) == before {
				out = append(out, "none")
			}
		}
		return out
	}
	tests := []struct {
		name  string
		state []int64 // i, a[0..2], b[0..2], x
		want  []string
	}{
		{"i=1", []int64{1, 0, 1, 2, 0, 0, 0, 0}, []string{
			"[1 0 2 2 0 0 0 0]", // inc
			"[1 0 2 2 0 0 0 0]", // setc
			"[1 0 1 2 0 4 0 0]", // gen
			"[1 0 1 2 0 0 0 1]", // self
			"[1 0 1 2 0 0 0 2]", // cpy
			"[1 0 1 2 0 0 0 4]", // cond
		}},
		{"i=2 x=4", []int64{2, 0, 1, 2, 0, 0, 0, 4}, []string{
			"t.wrap:6:14: runtime-error: value 3 out of range 0..2 of a",
			"[2 0 1 2 0 0 0 4]",
			"[2 0 1 2 0 0 5 4]",
			"t.wrap:9:15: runtime-error: value 5 out of range 0..4 of x",
			"[2 0 1 2 0 0 0 3]",
			"[2 0 1 2 0 0 0 0]",
		}},
		{"i=3", []int64{3, 1, 1, 1, 0, 0, 0, 0}, []string{
			"t.wrap:6:22: runtime-error: index 3 out of range 0..2",
			"t.wrap:7:15: runtime-error: index 3 out of range 0..2",
			"t.wrap:8:22: runtime-error: index 3 out of range 0..2",
			"[3 1 1 1 0 0 0 1]",
			"[3 1 1 1 0 0 0 4]",
			"t.wrap:11:23: runtime-error: index 3 out of range 0..2",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, run(tt.state)); diff != "" {
				t.Errorf("successors (-want +got):\n%s", diff)
			}
		})
	}
}
