package machine

import (
	"math/rand/v2"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wrapcheck/wrapcheck/spec"
)

// TestConjIndexChanged checks that the bit-set paths of
// ConjIndex.Changed pick the same conjuncts, in the same order, as the
// list path on random pairs of vectors, for models with one word of
// conjunct bits (the pipeline: 21 conjuncts, changedWord) and several
// (wide: 3 invariants over 8x8 pairs, 136 conjuncts: C's instances share
// a term, so each row of them is one), also with vectors of two words
// (long: 8 slots of 10 bits, 16 conjuncts); and that both list the same
// changed slots, which the searches write into the check area.
func TestConjIndexChanged(t *testing.T) {
	pipeline, err := os.ReadFile("../examples/peers/pipeline.wrap")
	if err != nil {
		t.Fatal(err)
	}
	wide := []byte(`spec Wide
type P = 0..7
var a: [P]0..3
var b: [P]bool
action step { choose i in P { a[i] := (a[i] + 1) % 4 } }
invariant A: forall i in P: forall j in P: a[i] + a[j] <= 6
invariant B: forall i in P: forall j in P: a[i] - a[j] <= 3
invariant C: forall i in P: forall j in P: i == j or a[i] != a[j] or b[i] == b[j] or true
`)
	long := []byte(`spec Long
type P = 0..7
var a: [P]0..1000
var b: [P]bool
action step { choose i in P { a[i] := (a[i] + 1) % 1000 } }
invariant A: forall i in P: a[i] <= 999
invariant B: forall i in P: b[i] implies a[i] >= 0
`)
	tests := []struct {
		name    string
		src     []byte
		defines map[string]int64
		words   int
	}{
		{"pipeline", pipeline, map[string]int64{"K": 3, "N": 2}, 1},
		{"wide", wide, nil, 3},
		{"long", long, nil, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := spec.ParseFile(tt.name+".wrap", tt.src, spec.Options{Defines: tt.defines})
			if err != nil {
				t.Fatal(err)
			}
			prog, err := Compile(m)
			if err != nil {
				t.Fatal(err)
			}
			var conjs []*Conjunct
			for i := range m.Invariants {
				for k := range prog.Conjuncts(i) {
					conjs = append(conjs, &prog.Conjuncts(i)[k])
				}
			}
			x := NewConjIndex(prog, conjs)
			if x.Words() != tt.words {
				t.Fatalf("Words = %d for %d conjuncts, want %d", x.Words(), len(conjs), tt.words)
			}
			var sc, ref ConjScratch
			r := rand.New(rand.NewPCG(1, 2))
			nw := prog.Words()
			vec, parent := make([]uint64, nw), make([]uint64, nw)
			nonEmpty := 0
			for i := range 2000 {
				for j := range nw {
					parent[j] = r.Uint64()
					vec[j] = parent[j]
					if r.IntN(2) == 0 { // flip a few bits, or none
						for range r.IntN(4) {
							vec[j] ^= 1 << r.IntN(64)
						}
					}
				}
				got := append([]int32(nil), x.Changed(vec, parent, &sc)...)
				want := append([]int32(nil), x.changedList(vec, parent, &ref)...)
				if diff := cmp.Diff(ref.Slots, sc.Slots); diff != "" {
					t.Fatalf("pair %d: changed slots (-list +bits):\n%s", i, diff)
				}
				if len(want) > 0 {
					nonEmpty++
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Fatalf("pair %d: conjuncts (-list +bits):\n%s", i, diff)
				}
			}
			if nonEmpty == 0 {
				t.Fatal("no pair changed a slot that a conjunct reads")
			}
		})
	}
}
