package replay_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wrapcheck/wrapcheck/replay"
	"github.com/wrapcheck/wrapcheck/spec"
)

// TestDecodeState reads a state as check's JSON writes it (or a whole
// trace entry), and says where a wrong one is wrong.
func TestDecodeState(t *testing.T) {
	m, err := spec.ParseFile("s.wrap", []byte(`spec S
type P = {a, b}
var x: 1..3 = 1
var flag: [P]bool
var s: set of 0..3
process q { var y: bool = false  action go { y := true } }
`), spec.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, src string
		want      []int64
		err       string
	}{
		{name: "state", src: `{"x": 2, "flag": {"a": true, "b": false}, "s": [0, 3], "q.y": true}`, want: []int64{2, 1, 0, 9, 1}},
		{name: "entry", src: `{"step": 3, "action": "q.go", "state": {"x": 3, "flag": {"a": false, "b": true}, "s": [], "q.y": false}}`, want: []int64{3, 0, 1, 0, 0}},
		{name: "range", src: "{\"x\": 4,\n \"flag\": {\"a\": true, \"b\": false}, \"s\": [], \"q.y\": true}", err: "st:1:7: x: 4 is out of range 1..3"},
		{name: "unknown", src: `{"x": 1, "flg": {}}`, err: "st:1:10: no variable flg in S (did you mean flag?)"},
		{name: "missing", src: "{\"x\": 1,\n \"flag\": {\"a\": true, \"b\": false}, \"s\": []}", err: "st:2:42: missing variable q.y (a state gives every variable)"},
		{name: "syntax", src: `{"x": 1,, }`, err: "st:1:9: invalid JSON: invalid character ',' looking for beginning of object key string"},
		{name: "not an object", src: `[1]`, err: `st:1:1: expected a JSON object (a state: {"variable": value, ...})`},
		{name: "duplicate", src: `{"x": 1, "x": 2}`, err: `st:1:1: duplicate key "x"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := replay.DecodeState(m, "st", []byte(tt.src))
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Fatalf("error %v, want %s", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}
