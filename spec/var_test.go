package spec

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestVarFamily: a variable records the name it is declared with and,
// for a local of a family instance, the family and the index value.
func TestVarFamily(t *testing.T) {
	m, err := ParseFile("t.wrap", []byte(`spec V
type Run = symmetric 2
var g: 0..1
process solo {
  var x: bool
  action a { x := true }
}
process P[r: Run] {
  var x: 0..2
  var y: bool
  action b { y := true }
}
process Q[i: 3..4] {
  var x: bool
  action c { x := true }
}
`), Options{})
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		Name, Local, Family string
		Index               int64
		Process             int
	}
	var got []row
	for _, v := range m.Vars {
		got = append(got, row{v.Name, v.Local, v.Family, v.Index, v.Process})
	}
	want := []row{
		{"g", "g", "", 0, -1},
		{"solo.x", "x", "", 0, 0},
		{"P[Run1].x", "x", "P", 0, 1},
		{"P[Run2].x", "x", "P", 1, 2},
		{"P[Run1].y", "y", "P", 0, 1},
		{"P[Run2].y", "y", "P", 1, 2},
		{"Q[3].x", "x", "Q", 3, 3},
		{"Q[4].x", "x", "Q", 4, 4},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("vars (-want +got):\n%s", diff)
	}
}

// TestVarFamilyExamples: on every example, a variable's display name is
// its process's name and its declared name, and its family and index are
// its process's.
func TestVarFamilyExamples(t *testing.T) {
	paths, err := filepath.Glob("../examples/*/*.wrap")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no examples: %v", err)
	}
	locals := 0
	for _, path := range paths {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		m, err := ParseFile(filepath.Base(path), src, Options{})
		if err != nil {
			continue // the examples the front end rejects on purpose
		}
		for _, v := range m.Vars {
			name, fam, idx := v.Local, "", int64(0)
			if v.Process >= 0 {
				p := m.Processes[v.Process]
				name, fam, idx = p.Name+"."+v.Local, p.Family, p.Index
				locals++
			}
			if v.Name != name || v.Family != fam || v.Index != idx {
				t.Errorf("%s: var %s: Local %q Family %q Index %d, process %d", path, v.Name, v.Local, v.Family, v.Index, v.Process)
			}
		}
	}
	if locals == 0 {
		t.Error("no example has a process local: nothing compared")
	}
}

func TestSelect(t *testing.T) {
	m, err := ParseFile("s.wrap", []byte(`spec S
var x: 0..3
action a when x < 3 { x := x + 1 }
invariant A: x < 4
invariant B: x >= 0
property P: eventually x == 3
property Q: always x < 4
`), Options{})
	if err != nil {
		t.Fatal(err)
	}
	names := func(ps []*Property) []string {
		var out []string
		for _, p := range ps {
			out = append(out, p.Name)
		}
		return out
	}
	for _, tt := range []struct {
		only    []string
		invs    []int
		props   []string
		unknown string
	}{
		{nil, []int{0, 1}, []string{"P", "Q"}, ""},
		{[]string{"B"}, []int{1}, nil, ""},
		{[]string{"Q", "A", "Q"}, []int{0}, []string{"Q"}, ""},
		{[]string{"A", "Nope", "Other"}, nil, nil, "Nope"},
	} {
		invs, props, unknown := m.Select(tt.only)
		got := []any{invs, names(props), unknown}
		if diff := cmp.Diff([]any{tt.invs, tt.props, tt.unknown}, got); diff != "" {
			t.Errorf("Select(%q) (-want +got):\n%s", tt.only, diff)
		}
	}
}
