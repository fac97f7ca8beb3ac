package spec

import "testing"

// TestTypeString prints the types of a spec's variables at each depth of
// expansion: by name, written out one level (a hover's values), and
// written out throughout (diff's reasons).
func TestTypeString(t *testing.T) {
	m, err := ParseFile("t.wrap", []byte(`spec T
const N = 3
type V = 0..N
type C = {red, green}
type P = symmetric 2
type R = record { v: V, c: C }
var v: V
var c: C
var p: P
var a: [P]C
var r: R
var s: set of V
var i: [0..1]bool
action go { skip }
`), Options{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		v            string
		by, one, all string
	}{
		{"v", "V", "0..3", "0..3"},
		{"c", "C", "{red, green}", "{red, green}"},
		{"p", "P", "symmetric 2 {P1, P2}", "symmetric 2 {P1, P2}"},
		{"a", "[P]C", "[P]C", "[symmetric 2 {P1, P2}]{red, green}"},
		{"r", "R", "record { v: V, c: C }", "record { v: 0..3, c: {red, green} }"},
		{"s", "set of V", "set of V", "set of 0..3"},
		{"i", "[0..1]bool", "[0..1]bool", "[0..1]bool"},
	}
	for _, tt := range tests {
		t.Run(tt.v, func(t *testing.T) {
			var typ *Type
			for _, v := range m.Vars {
				if v.Name == tt.v {
					typ = v.Type
				}
			}
			for depth, want := range map[int]string{0: tt.by, 1: tt.one, -1: tt.all} {
				if got := TypeString(typ, depth); got != want {
					t.Errorf("TypeString(%s, %d) = %q, want %q", tt.v, depth, got, want)
				}
			}
		})
	}
	if got := TypeString(nil, 0); got != "invalid type" {
		t.Errorf("TypeString(nil, 0) = %q, want invalid type", got)
	}
}
