package oracle

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wrapcheck/wrapcheck/spec"
)

// TestVisitImages checks Options.Visit and Options.Images on a counter
// x: 0..3 (and a flag that x reached 3): every stored state is visited
// once, in the order of the search, images join the initial states at
// level 0 (a stored one is not stored again) and shorten traces, and the
// states past MaxStates are not visited.
func TestVisitImages(t *testing.T) {
	const src = `spec Visit
var x: 0..3
var top: bool
action inc when x < 3 { x := x + 1 }
action mark when x == 3 and not top { top := true }
invariant NotTop: not top
`
	m, err := spec.ParseFile("visit.wrap", []byte(src), spec.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		images    func(s []int64) [][]int64
		maxStates int
		want      [][]int64
		trace     int // steps of the violation's trace
		tooBig    bool
	}{
		{name: "plain", want: [][]int64{{0, 0}, {1, 0}, {2, 0}, {3, 0}, {3, 1}}, trace: 4},
		{name: "images", images: func(s []int64) [][]int64 { return [][]int64{{2, 0}, s, {0, 0}} },
			want: [][]int64{{0, 0}, {2, 0}, {1, 0}, {3, 0}, {3, 1}}, trace: 2},
		{name: "image-is-violation", images: func(s []int64) [][]int64 { return [][]int64{{3, 1}} },
			want: [][]int64{{0, 0}, {3, 1}, {1, 0}, {2, 0}, {3, 0}}, trace: 0},
		{name: "max-states", maxStates: 3, want: [][]int64{{0, 0}, {1, 0}, {2, 0}}, tooBig: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got [][]int64
			res, err := Check(m, Options{NoDeadlock: true, MaxStates: tt.maxStates, Images: tt.images,
				Visit: func(s []int64) { got = append(got, s) }})
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("visited (-want +got):\n%s", diff)
			}
			if tt.tooBig {
				if !errors.Is(err, ErrTooBig) {
					t.Errorf("err = %v, want ErrTooBig", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if res.States != int64(len(got)) {
				t.Errorf("%d states stored, %d visited", res.States, len(got))
			}
			if v := res.Violation; v == nil || v.Name != "NotTop" || len(v.Trace)-1 != tt.trace {
				t.Errorf("violation %+v, want NotTop in %d steps", v, tt.trace)
			}
		})
	}
}
