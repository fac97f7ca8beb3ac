package machine

import "testing"

// TestPredKey checks the key of a predicate's slots: its width is that
// of the slots it reads (adjacent ones taken in one part), states that
// differ only in other slots share a key, states that differ in a read
// slot do not, and a predicate wider than maxBits gets none.
func TestPredKey(t *testing.T) {
	p := compile(t, `spec keys
var a: 0..2
var b: 0..5
var c: 0..7
var d: bool
action inca when a < 2 { a := a + 1 }
invariant AB: a + b < 6
invariant AC: a < c or d
`)
	for _, tc := range []struct {
		inv               int
		bits, parts, keys int
	}{{0, 5, 1, 3 * 6}, {1, 6, 2, 3 * 8 * 2}} {
		pr, err := p.CompileExpr(p.Model.Invariants[tc.inv].Expr)
		if err != nil {
			t.Fatal(err)
		}
		k, ok := p.KeyOf(pr, 64)
		if !ok || k.Bits() != tc.bits || len(k.parts) != tc.parts {
			t.Fatalf("%s: key of %d bits in %d parts (%v), want %d in %d", p.Model.Invariants[tc.inv].Name, k.Bits(), len(k.parts), ok, tc.bits, tc.parts)
		}
		if _, ok := p.KeyOf(pr, tc.bits-1); ok {
			t.Errorf("%s: a key of %d bits within %d", p.Model.Invariants[tc.inv].Name, tc.bits, tc.bits-1)
		}
		read := map[int]bool{0: true, 1: tc.inv == 0, 2: tc.inv == 1, 3: tc.inv == 1}
		keys := map[uint64][]int64{}
		s := make(State, p.Words())
		for a := range int64(3) {
			for b := range int64(6) {
				for c := range int64(8) {
					for d := range int64(2) {
						st := []int64{a, b, c, d}
						p.Pack(s, st)
						key := k.Of(s)
						if key >= 1<<k.Bits() {
							t.Fatalf("state %v: key %#x wider than %d bits", st, key, k.Bits())
						}
						if old, ok := keys[key]; ok {
							for i := range st {
								if read[i] && old[i] != st[i] {
									t.Fatalf("states %v and %v differ in slot %d and share key %#x", old, st, i, key)
								}
							}
							continue
						}
						keys[key] = st
					}
				}
			}
		}
		if len(keys) != tc.keys {
			t.Errorf("%s: %d keys, want %d (one per value of the slots read)", p.Model.Invariants[tc.inv].Name, len(keys), tc.keys)
		}
	}
}
