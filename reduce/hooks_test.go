package reduce

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wrapcheck/wrapcheck/spec"
)

// TestHooksNil checks when the hooks are nil: no symmetric state, and no
// process that could ever form an ample set.
func TestHooksNil(t *testing.T) {
	tests := []struct {
		name    string
		src     string
		canon   bool
		ample   bool
		visible []int
	}{
		{
			name:    "no symmetric type, one process",
			src:     "spec A\nvar x: 0..3\naction inc when x < 3 { x := x + 1 }\ninvariant Small: x <= 3",
			visible: []int{0},
		},
		{
			name:  "symmetric family without locals or state",
			src:   "spec B\ntype Id = symmetric 3\nvar x: 0..3\nprocess p[i: Id] { action inc when x < 3 { x := x + 1 } }",
			ample: false, // every instance writes the shared x
		},
		{
			name:  "symmetric type of one identity",
			src:   "spec C\ntype Id = symmetric 1\nvar owner: Id\nvar x: [Id]bool\nprocess p[i: Id] { action set { x[i] := true\n owner := i } }",
			ample: false,
		},
		{
			name:    "independent locals, invisible",
			src:     "spec D\ntype Id = symmetric 2\nprocess p[i: Id] { var x: 0..2\n action inc when x < 2 { x := x + 1 } }\nvar g: bool\ninvariant G: not g or true",
			canon:   true,
			ample:   true,
			visible: []int{0},
		},
		{
			name:    "independent locals, all visible",
			src:     "spec E\ntype Id = symmetric 2\nprocess p[i: Id] { var x: 0..2\n action inc when x < 2 { x := x + 1 } }\ninvariant X: forall i in Id: p[i].x <= 2",
			canon:   true,
			ample:   false,
			visible: []int{0, 1},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := spec.ParseFile("hooks.wrap", []byte(tt.src), spec.Options{})
			if err != nil {
				t.Fatal(err)
			}
			canon, err := Symmetry(m)
			if err != nil {
				t.Fatal(err)
			}
			vis := Visible(m, nil)
			type hooks struct {
				Canon, Ample bool
				Visible      []int
			}
			want := hooks{tt.canon, tt.ample, tt.visible}
			got := hooks{canon != nil, POR(m, vis) != nil, vis}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
