package machine

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestBranches checks the decisions recorded per branch: choose values
// and agent answers with their arguments, in the order taken, and
// nothing when recording is off.
func TestBranches(t *testing.T) {
	p := compile(t, `spec B
var x: 0..3
var y: bool
agent a(k: 0..3, f: bool): bool
action step when x == 0 {
  choose k in 1..2 {
    x := k
    y := ask a(k, true)
  }
}`)
	m := p.NewMachine()
	var init State
	if err := m.Init(func(_ int, s State) { init = append(State(nil), s...) }); err != nil {
		t.Fatal(err)
	}
	for _, on := range []bool{true, false} {
		m.RecordBranches(on)
		var got []string
		if err := m.Successors(init, func(_, _ int, _ State) {
			var parts []string
			for _, b := range m.Branches() {
				parts = append(parts, fmt.Sprintf("%d%v%v", b.Agent, b.Args, b.Value))
			}
			got = append(got, strings.Join(parts, " "))
		}); err != nil {
			t.Fatal(err)
		}
		want := []string{"-1[][1] 0[1 1][0]", "-1[][1] 0[1 1][1]", "-1[][2] 0[2 1][0]", "-1[][2] 0[2 1][1]"}
		if !on {
			want = []string{"", "", "", ""}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("recording %v: branches (-want +got):\n%s", on, diff)
		}
	}
}
