package ltl

import (
	"slices"
	"testing"
)

// TestPaged compares a paged array with a slice across pages: push,
// extend (zero entries, also within a page pushed into), get, at,
// copyTo (a prefix) and slice.
func TestPaged(t *testing.T) {
	var a paged[uint32]
	var want []uint32
	for i := range 3*pageLen + 100 {
		switch {
		case i%1000 == 7: // a gap of zero entries
			n := len(want) + i%97
			a.extend(n)
			for len(want) < n {
				want = append(want, 0)
			}
		default:
			a.push(uint32(i))
			want = append(want, uint32(i))
		}
	}
	a.extend(len(want) - 5) // no shrinking
	a.extend(len(want) + pageLen + 3)
	for len(want) < a.len() {
		want = append(want, 0)
	}
	if a.len() != len(want) {
		t.Fatalf("len %d, want %d", a.len(), len(want))
	}
	*a.at(uint32(pageLen + 1)) += 1000
	want[pageLen+1] += 1000
	for i, w := range want {
		if g := a.get(uint32(i)); g != w {
			t.Fatalf("entry %d: %d, want %d", i, g, w)
		}
	}
	if !slices.Equal(a.slice(), want) {
		t.Fatal("slice differs")
	}
	pre := make([]uint32, pageLen+17)
	a.copyTo(pre)
	if !slices.Equal(pre, want[:len(pre)]) {
		t.Fatal("copyTo of a prefix differs")
	}
	if b := a.bytes(); b < int64(4*len(want)) {
		t.Errorf("bytes %d, below the %d entries'", b, len(want))
	}
}
