package verdict

import (
	"cmp"
	"testing"
)

// TestKeyWord checks that the one-word form of keys orders them as
// Compare does, ordinals capped at MaxOrdinal included.
func TestKeyWord(t *testing.T) {
	var keys []Key
	for _, p := range []uint64{0, 1, 2, 255, 1 << 20, 1<<40 - 1} {
		for _, n := range []int{0, 1, 2, MaxOrdinal - 1, MaxOrdinal, MaxOrdinal + 1, 1 << 30} {
			keys = append(keys, Key{Pos: p, Ord: Ordinal(n)})
		}
	}
	for _, a := range keys {
		for _, b := range keys {
			if got, want := cmp.Compare(a.Word(), b.Word()), a.Compare(b); got != want {
				t.Errorf("%v, %v: words compare %d, keys %d", a, b, got, want)
			}
			if a.Less(b) != (a.Compare(b) < 0) {
				t.Errorf("%v, %v: Less and Compare disagree", a, b)
			}
		}
	}
	if got := Ordinal(MaxOrdinal + 5); got != MaxOrdinal {
		t.Errorf("Ordinal(MaxOrdinal+5) = %d, want %d", got, MaxOrdinal)
	}
}
