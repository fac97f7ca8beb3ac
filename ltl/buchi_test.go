package ltl

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDOT(t *testing.T) {
	p, q := Atom(0), Atom(1)
	got := Translate(Not(LeadsTo(p, q))).DOT()
	want := `strict digraph {
	"q0" -> "q0" [ label="true",  weight=0 ];
	"q0" -> "q1" [ label="p0 && !p1 {0}",  weight=0 ];
	"q0" [ label="0", shape="circle", tooltip="F (G !p1 && p0)",  weight=0 ];
	"q1" -> "q1" [ label="!p1 {0}",  weight=0 ];
	"q1" [ label="1", shape="circle", tooltip="G !p1",  weight=0 ];
	"start" -> "q0" [  weight=0 ];
	"start" [ shape="point", style="invis",  weight=0 ];
}
`
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("DOT (-want +got):\n%s", diff)
	}
}

func TestTranslateSizes(t *testing.T) {
	p, q := Atom(0), Atom(1)
	tests := []struct {
		name                string
		f                   *Formula
		states, edges, accs int
	}{
		{"G p", Always(p), 1, 1, 0},
		{"F p", Eventually(p), 2, 3, 1},
		{"G F p", Always(Eventually(p)), 1, 2, 1},
		{"F G p", Eventually(Always(p)), 2, 3, 1},
		{"G(p -> F q)", LeadsTo(p, q), 2, 5, 1},
		{"!G(p -> F q)", Not(LeadsTo(p, q)), 2, 3, 1},
		{"GF p -> GF q", Implies(Always(Eventually(p)), Always(Eventually(q))), 4, 9, 2},
		{"false", And(p, Not(p)), 1, 0, 0},
		{"true", Or(p, Not(p)), 1, 1, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := Translate(tt.f)
			got := []int{len(a.States), a.NumEdges(), a.NumAcc}
			if diff := cmp.Diff([]int{tt.states, tt.edges, tt.accs}, got); diff != "" {
				t.Errorf("states, edges, acceptance sets (-want +got):\n%s\n%s", diff, a)
			}
		})
	}
}
