package machine

import (
	"fmt"
	"os"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wrapcheck/wrapcheck/spec"
)

// TestRepackLoad explores models breadth-first through the search API
// and checks, for every successor, that Repack and RepackHash give the
// vector Pack gives for Slots and RepackHash its Hash, and, for every
// state loaded (each after the one before, so that Load decodes only the
// slots that changed), that Slots is the state Unpack gives: on a model
// of one word (the pipeline) and one of two words.
func TestRepackLoad(t *testing.T) {
	tests := repackModels(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := spec.ParseFile(tt.name+".wrap", []byte(tt.src), spec.Options{Defines: tt.defines})
			if err != nil {
				t.Fatal(err)
			}
			p, err := Compile(m)
			if err != nil {
				t.Fatal(err)
			}
			if p.Words() != tt.words {
				t.Fatalf("%d words, want %d", p.Words(), tt.words)
			}
			mc := p.NewMachine()
			var queue [][]uint64
			seen := map[string]bool{}
			key := func(v []uint64) string { return fmt.Sprint(v) }
			var parent []uint64
			succs := 0
			add := func(v []uint64) {
				if k := key(v); !seen[k] && len(seen) < 3000 {
					seen[k] = true
					queue = append(queue, slices.Clone(v))
				}
			}
			mc.OnState(func(mm *Machine) { add(packOf(p, mm.Slots())) })
			if !mc.RunInit() {
				t.Fatal("init failed")
			}
			mc.OnState(func(mm *Machine) {
				want := packOf(p, mm.Slots())
				got := make([]uint64, p.Words())
				mm.Repack(got, parent)
				if d := cmp.Diff(want, got); d != "" {
					t.Fatalf("Repack (-Pack +Repack):\n%s", d)
				}
				clear(got)
				if h := mm.RepackHash(got, parent); h != Hash(want) {
					t.Fatalf("RepackHash = %#x, Hash = %#x", h, Hash(want))
				}
				if d := cmp.Diff(want, got); d != "" {
					t.Fatalf("RepackHash (-Pack +RepackHash):\n%s", d)
				}
				succs++
				add(want)
			})
			for len(queue) > 0 {
				parent, queue = queue[0], queue[1:]
				mc.Load(parent)
				want := make([]int64, p.Slots())
				p.Unpack(want, parent)
				if d := cmp.Diff(want, mc.Slots()); d != "" {
					t.Fatalf("Load (-Unpack +Slots):\n%s", d)
				}
				for a := range p.Actions() {
					if !mc.RunAction(a) {
						t.Fatal(mc.Failure())
					}
				}
			}
			if succs < 1000 {
				t.Fatalf("only %d successors checked", succs)
			}
		})
	}
}

// packOf returns the packed state of the slots u.
func packOf(p *Program, u []int64) []uint64 {
	v := make([]uint64, p.Words())
	p.Pack(v, u)
	return v
}

// TestCollect runs the actions of every state of a breadth-first
// exploration on two machines, one calling an OnState function and one
// collecting (Collect, with a small Limit so that Full runs in the middle
// of actions), and compares what they hand over: the packed successors
// in order, their hashes, keys (Key | ordinal) and the counts per action;
// then that OnState ends collecting.
func TestCollect(t *testing.T) {
	tests := repackModels(t)
	type succ struct {
		Vec     []uint64
		H, Key  uint64
		Action  int
		Ordinal int
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := spec.ParseFile(tt.name+".wrap", []byte(tt.src), spec.Options{Defines: tt.defines})
			if err != nil {
				t.Fatal(err)
			}
			p, err := Compile(m)
			if err != nil {
				t.Fatal(err)
			}
			if p.Words() != tt.words {
				t.Fatalf("%d words, want %d", p.Words(), tt.words)
			}
			nw := p.Words()
			const limit, maxOrd = 5, 3 // ordinals above 3 are keyed as 3
			plain, col := p.NewMachine(), p.NewMachine()
			var want, got []succ
			var queue [][]uint64
			seen := map[string]bool{}
			add := func(v []uint64) {
				if k := fmt.Sprint(v); !seen[k] && len(seen) < 3000 {
					seen[k] = true
					queue = append(queue, slices.Clone(v))
				}
			}
			plain.OnState(func(mm *Machine) { add(packOf(p, mm.Slots())) })
			if !plain.RunInit() {
				t.Fatal("init failed")
			}
			var key uint64
			wantFired := make([]int64, p.Actions())
			plain.OnState(func(mm *Machine) {
				v := packOf(p, mm.Slots())
				want = append(want, succ{v, Hash(v), key | uint64(min(mm.Ordinal(), maxOrd)), mm.Action(), mm.Ordinal()})
				wantFired[mm.Action()]++
				add(v)
			})
			c := &Collector{Vecs: make([]uint64, limit*nw), Succs: make([]Succ, limit), MaxOrd: maxOrd, Limit: limit,
				Fired: make([]int64, p.Actions())}
			drain := func(mm *Machine) {
				for i, s := range c.Succs[:c.N] {
					got = append(got, succ{slices.Clone(c.Vecs[i*nw : (i+1)*nw]), s.H, s.Key, -1, -1})
				}
				c.N = 0
			}
			fulls := 0
			c.Full = func(mm *Machine) {
				fulls++
				// The action state holds the last successor collected.
				if d := cmp.Diff(packOf(p, mm.Slots()), c.Vecs[(c.N-1)*nw:c.N*nw]); d != "" {
					t.Fatalf("Full's action state (-Slots +last collected):\n%s", d)
				}
				drain(mm)
			}
			col.Collect(c)
			for n := uint64(0); len(queue) > 0; n++ {
				var parent []uint64
				parent, queue = queue[0], queue[1:]
				key = n << 8
				plain.Load(parent)
				col.Load(parent)
				c.Parent, c.Key = parent, key
				for a := range p.Actions() {
					if !plain.RunAction(a) || !col.RunAction(a) {
						t.Fatal(plain.Failure(), col.Failure())
					}
				}
				drain(col)
			}
			if len(want) < 1000 || fulls == 0 {
				t.Fatalf("only %d successors, %d calls of Full", len(want), fulls)
			}
			for i := range want {
				want[i].Action, want[i].Ordinal = -1, -1
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Fatalf("collected successors (-OnState +Collect):\n%s", d)
			}
			if d := cmp.Diff(wantFired, c.Fired); d != "" {
				t.Errorf("Fired (-OnState +Collect):\n%s", d)
			}
			if c.Trans != int64(len(want)) {
				t.Errorf("Trans = %d, want %d", c.Trans, len(want))
			}
			// OnState ends collecting.
			called := 0
			col.OnState(func(*Machine) { called++ })
			col.Load(queue0(t, p))
			for a := range p.Actions() {
				col.RunAction(a)
			}
			if called == 0 || c.N != 0 {
				t.Errorf("after OnState: %d calls, %d collected", called, c.N)
			}
		})
	}
}

// queue0 returns an initial state of p, packed.
func queue0(t *testing.T, p *Program) []uint64 {
	t.Helper()
	mc := p.NewMachine()
	var v []uint64
	mc.OnState(func(mm *Machine) {
		if v == nil {
			v = packOf(p, mm.Slots())
		}
	})
	if !mc.RunInit() || v == nil {
		t.Fatal("init failed")
	}
	return v
}

// repackModel is a model of repackModels.
type repackModel struct {
	name    string
	src     string
	defines map[string]int64
	words   int
}

// repackModels returns the models the re-pack tests run on: the pipeline,
// a vector of one word, and one of two words.
func repackModels(t *testing.T) []repackModel {
	t.Helper()
	pipeline, err := os.ReadFile("../examples/peers/pipeline.wrap")
	if err != nil {
		t.Fatal(err)
	}
	long := `spec Long
type P = 0..5
var a: [P]0..1000
var b: [P]bool
action step { choose i in P { a[i] := (a[i] + 7) % 1000 } }
action flip { choose i in P { b[i] := not b[i] } }
action both when a[0] > 10 { choose i in P { a[i] := 3 b[(i + 1) % 6] := true } }
`
	return []repackModel{
		{"pipeline", string(pipeline), map[string]int64{"K": 2, "N": 2}, 1},
		{"long", long, nil, 2},
	}
}
