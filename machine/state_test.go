package machine

import (
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wrapcheck/wrapcheck/spec"
)

// TestUnpackLayouts packs random values and reads them back with unpack,
// unpackSlots and unpackChanged (from the state before, which differs in
// some slots, often few), on layouts with slots of every width: one value (no
// bits), negative bounds, sets, full words, and slots that leave the rest
// of a word unused.
func TestUnpackLayouts(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	tests := []struct {
		name  string
		slots []spec.Slot
	}{
		{"one value", []spec.Slot{{Lo: 3, Hi: 3}}},
		{"no bits around", []spec.Slot{{Lo: 5, Hi: 5}, {Lo: -1, Hi: 2}, {Lo: 7, Hi: 7}, {Lo: 0, Hi: 1}, {Lo: 9, Hi: 9}}},
		{"full words", []spec.Slot{{Set: true, Bits: 64}, {Lo: 0, Hi: 1}, {Set: true, Bits: 64}, {Lo: 4, Hi: 4}}},
		{"straddle avoided", []spec.Slot{{Lo: 0, Hi: 1<<40 - 1}, {Lo: -5, Hi: 1<<30 - 6}, {Lo: 0, Hi: 2}}},
	}
	for i := range 20 {
		var sl []spec.Slot
		for range 1 + r.IntN(40) {
			switch r.IntN(4) {
			case 0:
				v := r.Int64N(100) - 50
				sl = append(sl, spec.Slot{Lo: v, Hi: v})
			case 1:
				sl = append(sl, spec.Slot{Set: true, Bits: 1 + r.IntN(64)})
			default:
				lo := r.Int64N(200) - 100
				sl = append(sl, spec.Slot{Lo: lo, Hi: lo + r.Int64N(1<<uint(1+r.IntN(40)))})
			}
		}
		tests = append(tests, struct {
			name  string
			slots []spec.Slot
		}{"random " + string(rune('a'+i)), sl})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := newLayout(&spec.Model{Slots: tt.slots})
			prev := make([]int64, len(tt.slots))
			for i, s := range tt.slots {
				if !s.Set {
					prev[i] = s.Lo
				}
			}
			prevVec := make([]uint64, l.words)
			l.pack(prevVec, prev)
			for range 50 {
				want := make([]int64, len(tt.slots))
				keep := r.IntN(4) // keep a slot's value with probability keep/4
				for i, s := range tt.slots {
					switch {
					case r.IntN(4) < keep:
						want[i] = prev[i]
					case s.Set:
						want[i] = int64(r.Uint64() & l.slots[i].mask)
					case s.Hi > s.Lo:
						want[i] = s.Lo + r.Int64N(s.Hi-s.Lo+1)
					default:
						want[i] = s.Lo
					}
				}
				vec := make([]uint64, l.words)
				l.pack(vec, want)
				got := make([]int64, len(want))
				l.unpack(got, vec)
				if d := cmp.Diff(want, got); d != "" {
					t.Fatalf("unpack (-want +got):\n%s", d)
				}
				each := make([]int64, len(want))
				all := make([]int32, len(want))
				for i := range all {
					all[i] = int32(i)
				}
				l.unpackSlots(each, vec, all)
				if d := cmp.Diff(want, each); d != "" {
					t.Fatalf("unpackSlots (-want +got):\n%s", d)
				}
				changed := append([]int64(nil), prev...)
				l.unpackChanged(changed, vec, prevVec)
				if d := cmp.Diff(want, changed); d != "" {
					t.Fatalf("unpackChanged (-want +got):\n%s", d)
				}
				prev, prevVec = want, vec
			}
		})
	}
}
