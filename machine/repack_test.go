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
	tests := []struct {
		name    string
		src     string
		defines map[string]int64
		words   int
	}{
		{"pipeline", string(pipeline), map[string]int64{"K": 2, "N": 2}, 1},
		{"long", long, nil, 2},
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
