package machine

import "math/bits"

// PredKey extracts from a packed state the bits of the state slots a
// scalar predicate may read, concatenated into one word: two states with
// the same key give the predicate the same value (and the same failure),
// since [Machine.Eval] decodes those slots alone. A caller that meets
// few distinct keys among many states can keep the predicate's values in
// a table indexed by the key instead of evaluating it per state. The
// zero value has no parts (every state has key 0). Safe for concurrent
// use once built.
type PredKey struct {
	parts []keyPart
	bits  int
}

// keyPart is a run of bits of one word of the vector: (s[word] >> shift)
// & mask, placed at bit at of the key.
type keyPart struct {
	word  int32
	shift uint8
	at    uint8
	mask  uint64
}

// KeyOf returns the key of the slots pr reads, and false when pr is not a
// scalar predicate or its slots take more than maxBits bits (at most 64).
// The slots adjacent in the vector are taken in one part.
func (p *Program) KeyOf(pr *Pred, maxBits int) (PredKey, bool) {
	if !pr.partial || pr.eval == nil {
		return PredKey{}, false
	}
	var k PredKey
	for _, i := range pr.slots {
		s := &p.lay.slots[i]
		if s.mask == 0 {
			continue // one value: no bits
		}
		w := bits.Len64(s.mask)
		if k.bits+w > maxBits || k.bits+w > 64 {
			return PredKey{}, false
		}
		if n := len(k.parts); n > 0 {
			last := &k.parts[n-1]
			lw := bits.Len64(last.mask)
			if last.word == s.word && int(last.shift)+lw == int(s.shift) && lw+w < 64 {
				last.mask |= s.mask << uint(lw)
				k.bits += w
				continue
			}
		}
		k.parts = append(k.parts, keyPart{word: s.word, shift: s.shift, at: uint8(k.bits), mask: s.mask})
		k.bits += w
	}
	return k, true
}

// Bits returns the width of the key in bits.
func (k *PredKey) Bits() int { return k.bits }

// Of returns the key of the packed state s.
func (k *PredKey) Of(s State) uint64 {
	var key uint64
	for i := range k.parts {
		pt := &k.parts[i]
		key |= (s[pt.word] >> (pt.shift & 63) & pt.mask) << (pt.at & 63)
	}
	return key
}
