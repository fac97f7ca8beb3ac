package machine

import (
	"errors"
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
			p := tt.compile(t)
			mc := p.NewMachine()
			var queue stateQueue
			add := queue.add
			var parent []uint64
			succs := 0
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
			for queue.more() {
				parent = queue.next()
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
			p := tt.compile(t)
			nw := p.Words()
			const limit, maxOrd = 5, 3 // ordinals above 3 are keyed as 3
			plain, col := p.NewMachine(), p.NewMachine()
			var want, got []succ
			var queue stateQueue
			add := queue.add
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
			for n := uint64(0); queue.more(); n++ {
				parent := queue.next()
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

// stateQueue is the queue of a breadth-first exploration of at most 3000
// distinct packed states.
type stateQueue struct {
	q    [][]uint64
	seen map[string]bool
}

// add enqueues a copy of v, unless it or 3000 states were seen.
func (sq *stateQueue) add(v []uint64) {
	if sq.seen == nil {
		sq.seen = map[string]bool{}
	}
	if k := fmt.Sprint(v); !sq.seen[k] && len(sq.seen) < 3000 {
		sq.seen[k] = true
		sq.q = append(sq.q, slices.Clone(v))
	}
}

// more reports whether states are queued.
func (sq *stateQueue) more() bool { return len(sq.q) > 0 }

// next dequeues the next state.
func (sq *stateQueue) next() []uint64 {
	v := sq.q[0]
	sq.q = sq.q[1:]
	return v
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

// compile compiles the model, of tt.words words.
func (tt repackModel) compile(t *testing.T) *Program {
	t.Helper()
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
	return p
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

// TestCollectSuccessors compares CollectSuccessors with Successors on
// every state of a breadth-first exploration, a model whose branches
// fail among them: the same successors in order (vectors, hashes, the
// action as key), the same failure, and the interrupt's ErrInterrupted.
func TestCollectSuccessors(t *testing.T) {
	tests := repackModels(t)
	tests = append(tests, repackModel{name: "failing", words: 1, src: `spec Failing
type P = 0..3
var x: [P]0..9
action inc { choose i in P { x[i] := x[i] + 1 } }
action div when x[0] > 0 { choose i in P { x[i] := 8 / (x[i] - 2) } }
action reset when x[1] == 3 { x[1] := 0 }
`})
	type succ struct {
		Vec    []uint64
		H, Key uint64
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := tt.compile(t)
			nw := p.Words()
			plain, col := p.NewMachine(), p.NewMachine()
			c := &Collector{Vecs: make([]uint64, 4*nw), Succs: make([]Succ, 4), Limit: 4, Fired: make([]int64, p.Actions())}
			c.Full = func(*Machine) { c.Grow() }
			var queue stateQueue
			add := queue.add
			if err := plain.Init(func(_ int, v State) { add(v) }); err != nil {
				t.Fatal(err)
			}
			states, failures := 0, 0
			for queue.more() {
				parent := queue.next()
				var want, got []succ
				werr := plain.Successors(parent, func(a, _ int, v State) {
					want = append(want, succ{slices.Clone(v), Hash(v), uint64(a)})
					add(v)
				})
				c.N = 0
				gerr := col.CollectSuccessors(parent, c)
				for i, s := range c.Succs[:c.N] {
					got = append(got, succ{slices.Clone(c.Vecs[i*nw : (i+1)*nw]), s.H, s.Key})
				}
				if d := cmp.Diff(want, got); d != "" {
					t.Fatalf("successors of %v (-Successors +CollectSuccessors):\n%s", parent, d)
				}
				if fmt.Sprint(werr) != fmt.Sprint(gerr) {
					t.Fatalf("successors of %v: error %v, want %v", parent, gerr, werr)
				}
				if werr != nil {
					failures++
				}
				states++
			}
			if states < 50 || tt.name == "failing" && failures == 0 {
				t.Fatalf("%d states, %d failing", states, failures)
			}
		})
	}
	prog, mach, init, stop := interruptible(t)
	c := &Collector{Vecs: make([]uint64, 8), Succs: make([]Succ, 8), Limit: 8, Fired: make([]int64, prog.Actions())}
	if err := mach.CollectSuccessors(init, c); !errors.Is(err, ErrInterrupted) {
		t.Fatalf("CollectSuccessors: err = %v, want ErrInterrupted", err)
	}
	// Once the interrupt reports false, the machine works normally: from
	// x = 2 (action b's successor), a's guard is false at i = j = 0.
	*stop = false
	var two State
	if err := mach.SuccessorsOf(init, []int{1}, func(_, _ int, s State) { two = append(State(nil), s...) }); err != nil {
		t.Fatal(err)
	}
	c.N = 0
	if err := mach.CollectSuccessors(two, c); err != nil || c.N != 1 || c.Succs[0].Key != 1 || !slices.Equal(c.Vecs[:1], two) {
		t.Fatalf("CollectSuccessors after the interrupt: err %v, %d successors (%v), want b's", err, c.N, c.Succs[:c.N])
	}
}

// TestSuccessorsPacking holds SuccessorsPacking to Successors: the same
// visits in the same order with the same error, the states of the wanted
// action equal and the others nil, over every reachable state of the
// repack models and a model whose actions fail.
func TestSuccessorsPacking(t *testing.T) {
	tests := append(repackModels(t), repackModel{name: "failing", words: 1, src: `spec Failing
type P = 0..3
var x: [P]0..9
action inc { choose i in P { x[i] := x[i] + 1 } }
action div when x[0] > 0 { choose i in P { x[i] := 8 / (x[i] - 2) } }
`})
	type visit struct {
		A, B int
		T    []uint64
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := tt.compile(t)
			plain, packing := p.NewMachine(), p.NewMachine()
			var queue stateQueue
			var first State
			if err := plain.Init(func(_ int, v State) {
				queue.add(v)
				if first == nil {
					first = slices.Clone(v)
				}
			}); err != nil {
				t.Fatal(err)
			}
			for states := 0; queue.more() && states < 2000; states++ {
				parent := queue.next()
				var all []visit
				werr := plain.Successors(parent, func(a, b int, v State) {
					all = append(all, visit{a, b, slices.Clone(v)})
					queue.add(v)
				})
				for want := -1; want < p.Actions(); want++ {
					var got []visit
					gerr := packing.SuccessorsPacking(parent, want, func(a, b int, v State) {
						got = append(got, visit{a, b, slices.Clone(v)})
					})
					exp := slices.Clone(all)
					for i := range exp {
						if exp[i].A != want {
							exp[i].T = nil
						}
					}
					if d := cmp.Diff(exp, got); d != "" || fmt.Sprint(werr) != fmt.Sprint(gerr) {
						t.Fatalf("successors of %v packing %d (-Successors +SuccessorsPacking):\n%s\nerror %v, want %v", parent, want, d, gerr, werr)
					}
				}
			}
			// the machine packs every successor again afterwards
			_ = packing.Successors(first, func(_, _ int, v State) {
				if v == nil {
					t.Fatal("a nil state after SuccessorsPacking")
				}
			})
		})
	}
}
