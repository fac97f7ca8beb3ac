package reduce

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wrapcheck/wrapcheck/checker"
	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/verdict"
)

// TestChooseSafety compares the hooks Choose gives the safety search with
// those built directly (Symmetry, POR of Visible), for every switch
// setting and invariant selection: the same hooks are nil, the visible
// slots are equal, and the searches report the same outcome.
func TestChooseSafety(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.wrap"))
	if err != nil {
		t.Fatal(err)
	}
	type model struct {
		name string
		m    *spec.Model
	}
	var models []model
	for _, file := range files {
		models = append(models, model{file, load(t, file, nil)})
	}
	// Two invariants: selecting one makes the other process invisible.
	two, err := spec.ParseFile("two.wrap", []byte(`spec Two
type Id = symmetric 2
var x: 0..2
var y: 0..2
process a { action inc when x < 2 { x := x + 1 } }
process b { action inc when y < 2 { y := y + 1 } }
process w[i: Id] { var st: 0..1
  action go when st == 0 { st := 1 } }
invariant X: x < 2
invariant Y: y < 2
`), spec.Options{})
	if err != nil {
		t.Fatal(err)
	}
	models = append(models, model{"two", two})
	ctx := context.Background()
	for _, mm := range models {
		file, m := mm.name, mm.m
		onlys := [][]string{nil}
		for _, in := range m.Invariants {
			onlys = append(onlys, []string{in.Name})
		}
		for _, sw := range []Switches{{}, {NoSymmetry: true}, {NoPOR: true}, {NoSymmetry: true, NoPOR: true}} {
			for _, only := range onlys {
				h, err := Choose(m, Checks{Only: only}, sw)
				if err != nil {
					t.Fatal(err)
				}
				var want checker.Options
				var wantVis []int
				if !sw.NoSymmetry {
					want.Canon = symmetry(t, m)
				}
				if !sw.NoPOR {
					wantVis = Visible(m, only)
					want.Ample = POR(m, wantVis)
				}
				type hooks struct {
					Canon, Ample bool
					Visible      []int
					Notes        []string
				}
				if diff := cmp.Diff(hooks{want.Canon != nil, want.Ample != nil, wantVis, nil},
					hooks{h.CanonFunc() != nil, h.Ample != nil, h.Visible, h.Notes}); diff != "" {
					t.Errorf("%s %+v only %v: hooks (-direct +Choose):\n%s", file, sw, only, diff)
				}
				want.Only, want.MaxStates = only, 200000
				got := want
				got.Canon, got.Ample = h.CanonFunc(), h.Ample
				rw, err := checker.Run(ctx, m, want)
				if err != nil {
					t.Fatal(err)
				}
				rg, err := checker.Run(ctx, m, got)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(searchOf(rw), searchOf(rg)); diff != "" {
					t.Errorf("%s %+v only %v: outcome (-direct +Choose):\n%s", file, sw, only, diff)
				}
			}
		}
	}
}

// TestChooseProperty checks the reductions Choose gives the product of a
// property, by the shape of its atoms and the model's fairness.
func TestChooseProperty(t *testing.T) {
	const src = `spec Plans
type Id = symmetric 3
var flags: [Id]bool
var cnt: 0..2 = 0
process worker[i: Id] {
  var st: 0..2 = 0
  action step when st < 2 { st := st + 1 }
}
process counter {
  action tick when cnt < 2 { cnt := cnt + 1 }
}
invariant Cnt: cnt < 2
`
	type want struct {
		Canon   bool
		Types   []string // the permuted types
		Ample   bool
		Visible []int
		Threads []Thread
		Notes   []string
		Key     string
	}
	tests := []struct {
		name     string
		fairness string                                        // fairness declarations added to src
		hand     bool                                          // add a fairness unit of two of the three workers' steps
		atoms    func(m *spec.Model, id *spec.Type) *spec.Expr // an atom added to the invariant Cnt
		next     bool
		pinned   bool
		sw       Switches
		want     want
	}{
		{name: "symmetric atom", want: want{Canon: true, Types: []string{"Id"}, Ample: true, Visible: []int{3}, Key: "por [3];"}},
		{name: "no symmetry", sw: Switches{NoSymmetry: true}, want: want{Ample: true, Visible: []int{3}, Key: "nosym;por [3];"}},
		{name: "no reductions", sw: Switches{NoSymmetry: true, NoPOR: true}, next: true, want: want{Key: "nosym;"}},
		{name: "single identity", atoms: second, want: want{Ample: true, Visible: []int{3},
			Notes: []string{"symmetry over Id is off for property P: its formula applies temporal operators to single identities (a quantifier over Id inside a temporal operator)"},
			Key:   "nosym;por [3];"}},
		{name: "pinned first identity", atoms: first, pinned: true, want: want{Canon: true, Types: []string{"Id"}, Ample: true, Visible: []int{3}, Key: "por [3];"}},
		{name: "pinned, second identity", atoms: second, pinned: true, want: want{Ample: true, Visible: []int{3},
			Notes: []string{"symmetry over Id is off for property P: its formula applies temporal operators to single identities (a quantifier over Id inside a temporal operator)"},
			Key:   "nosym;por [3];"}},
		{name: "next", next: true, want: want{Canon: true, Types: []string{"Id"},
			Notes: []string{"partial-order reduction is off for property P: it uses next"}, Key: ""}},
		{name: "fair counter", fairness: "fairness weak counter\n", want: want{Canon: true, Types: []string{"Id"}, Key: ""}},
		{name: "fair workers", fairness: "fairness weak counter\nfairness strong worker\n", want: want{Canon: true, Types: []string{"Id"},
			Threads: []Thread{{Units: []int{1, 2, 3}}}, Key: "threads;"}},
		{name: "unit of two workers", hand: true, want: want{
			Notes: []string{"symmetry over Id is off for property P: the units of fairness weak two are not one per instance of a family indexed by Id"},
			Key:   "nosym;"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := spec.ParseFile("plans.wrap", []byte(src+tt.fairness), spec.Options{})
			if err != nil {
				t.Fatal(err)
			}
			id := m.Vars[0].Type.Index
			if tt.hand {
				var steps []int
				for i, a := range m.Actions {
					if a.Short == "step" && len(steps) < 2 {
						steps = append(steps, i)
					}
				}
				m.Fairness = append(m.Fairness, &spec.Fairness{Name: "two", Units: [][]int{steps}})
			}
			atoms := []*spec.Expr{m.Invariants[0].Expr}
			if tt.atoms != nil {
				atoms = append(atoms, tt.atoms(m, id))
			}
			p := &Property{Name: "P", Atoms: atoms, HasNext: tt.next}
			if tt.pinned {
				p.Pinned = id
			}
			h, err := Choose(m, Checks{Property: p}, tt.sw)
			if err != nil {
				t.Fatal(err)
			}
			got := want{Canon: h.Canon != nil, Ample: h.Ample != nil, Visible: h.Visible, Threads: h.Threads, Notes: h.Notes, Key: h.Key}
			if h.Canon != nil {
				for _, t := range h.Canon.Types() {
					got.Types = append(got.Types, t.Name)
				}
			}
			for i := range got.Threads {
				if got.Threads[i].Type != id {
					t.Errorf("thread %d of type %v, want Id", i, got.Threads[i].Type)
				}
				got.Threads[i].Type = nil
			}
			w := tt.want
			if tt.pinned && w.Canon {
				w.Key = fmt.Sprintf("fixed %p;", id) + w.Key
			}
			if diff := cmp.Diff(w, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if tt.pinned && h.Canon != nil {
				// The first identity stays in place, the others move.
				canon := func(mark int) []int64 {
					s := make([]int64, len(m.Slots))
					s[mark] = 1 // flags[mark]
					h.Canon.Func()(s)
					return s[:3]
				}
				if got := canon(0); !slices.Equal(got, []int64{1, 0, 0}) {
					t.Errorf("flags of Id1 canonicalised to %v, want it kept", got)
				}
				if a, b := canon(1), canon(2); !slices.Equal(a, b) || a[0] != 0 {
					t.Errorf("flags of Id2 and Id3 canonicalised to %v and %v, want one state without Id1", a, b)
				}
			}
		})
	}
}

// search is what TestChooseSafety compares of two searches.
type search struct {
	Verdict, Stop       string
	States, Transitions int64
	Violations          [][]int // the actions of each trace
}

func searchOf(r *verdict.Result) search {
	s := search{Verdict: r.Verdict.String(), Stop: r.Stop.String(), States: r.Stats.States, Transitions: r.Stats.Transitions}
	for _, v := range r.Violations {
		var acts []int
		for _, st := range v.Trace {
			acts = append(acts, st.Action)
		}
		s.Violations = append(s.Violations, acts)
	}
	return s
}

// first and second are atoms that name the first and the second
// identity of id.
func first(_ *spec.Model, id *spec.Type) *spec.Expr {
	return &spec.Expr{Op: spec.OpConst, Type: id, Val: id.Lo}
}

func second(_ *spec.Model, id *spec.Type) *spec.Expr {
	return &spec.Expr{Op: spec.OpConst, Type: id, Val: id.Lo + 1}
}
