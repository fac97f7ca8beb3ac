package spec_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/spec/syntax"
)

// TestCheckWatched: a watch that does not parse or check is refused with
// its first error at its line of the file "watch", the others are lowered
// in order, and the spec's own errors still reject it.
func TestCheckWatched(t *testing.T) {
	const src = "spec S\nvar x: 0..3 = 0\nvar b: bool = false\naction a when x < 3 { x := x + 1 }\n"
	tests := []struct {
		name    string
		src     string
		watches []string
		lowered []string // the model's watches
		refused []string // per watch: its error, or ""
		err     string
	}{
		{"none", src, nil, nil, []string{}, ""},
		{"all good", src, []string{"x + 1", "b or x == 2"}, []string{"x + 1", "b or x == 2"}, []string{"", ""}, ""},
		{"one undefined", src, []string{"x + 1", "y", "not b"}, []string{"x + 1", "not b"},
			[]string{"", "watch:2:1: undefined: y", ""}, ""},
		{"syntax and type", src, []string{"x +", "b + 1", "x"}, []string{"x"},
			[]string{"watch:1:4: expected expression, found EOF", "watch:2:1: invalid operation: b + 1 (mismatched types bool and int)", ""}, ""},
		{"two lines", src, []string{"x\n+ 1"}, nil, []string{"watch:1:1: an expression is one line"}, ""},
		{"temporal", src, []string{"always b"}, nil, []string{"watch:1:1: temporal operator always not allowed in watch: only properties may use temporal operators"}, ""},
		{"the spec's error", "spec S\nvar x: 0..3 = z\n", []string{"x"}, nil, nil, "s.wrap:2:15: undefined: z"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := syntax.Parse("s.wrap", []byte(tt.src))
			if err != nil {
				t.Fatal(err)
			}
			m, refused, err := spec.CheckWatched(f, spec.Options{}, "watch", tt.watches)
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Fatalf("error %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var lowered []string
			for _, w := range m.Watches {
				lowered = append(lowered, w.Text)
			}
			got := []string{}
			for _, e := range refused {
				if e == nil {
					got = append(got, "")
				} else {
					got = append(got, e.Error())
				}
			}
			if diff := cmp.Diff(tt.lowered, lowered); diff != "" {
				t.Errorf("lowered (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.refused, got); diff != "" {
				t.Errorf("refused (-want +got):\n%s", diff)
			}
		})
	}
}
