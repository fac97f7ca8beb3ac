package machine

import (
	"math/bits"

	"github.com/wrapcheck/wrapcheck/spec"
)

// State is a packed state vector: Program.Words() words. Slot i takes
// spec.Model.Slots[i].Bits bits holding value-Lo (a set slot: its mask).
// A slot never straddles two words.
type State = []uint64

// packSlot is the position of one slot in a packed vector.
type packSlot struct {
	word  int32
	shift uint8
	mask  uint64
	lo    int64
}

// layout maps the slots of a model to bit fields.
type layout struct {
	slots []packSlot
	words int
	nat   func(dst []int64, src []uint64) // generated unpack (native.go); nil: the loop
}

func newLayout(m *spec.Model) layout {
	l := layout{slots: make([]packSlot, len(m.Slots))}
	word, used := 0, 0
	for i, s := range m.Slots {
		b := slotBits(s)
		lo := s.Lo
		if s.Set {
			lo = 0
		}
		if b == 0 {
			l.slots[i] = packSlot{word: 0, shift: 0, mask: 0, lo: lo}
			continue
		}
		if used+b > 64 {
			word++
			used = 0
		}
		var mask uint64 = ^uint64(0)
		if b < 64 {
			mask = 1<<uint(b) - 1
		}
		l.slots[i] = packSlot{word: int32(word), shift: uint8(used), mask: mask, lo: lo}
		used += b
	}
	l.words = word + 1
	if used == 0 && word == 0 {
		l.words = 1 // keep at least one word so that every vector is non-empty
	}
	return l
}

// slotBits returns the packed width of a slot.
func slotBits(s spec.Slot) int {
	if s.Set {
		n := s.Bits
		if s.Type != nil && s.Type.Elem != nil && int(s.Type.Elem.Size()) > n {
			n = int(s.Type.Elem.Size())
		}
		return min(n, 64)
	}
	if s.Hi <= s.Lo {
		return 0
	}
	return bits.Len64(uint64(s.Hi - s.Lo))
}

// pack encodes the slot values src into dst (len words).
func (l *layout) pack(dst []uint64, src []int64) {
	clear(dst)
	for i := range l.slots {
		p := &l.slots[i]
		dst[p.word] |= (uint64(src[i]-p.lo) & p.mask) << p.shift
	}
}

// unpack decodes src into the slot values dst.
// The slice headers are copied to locals and the shifts masked to 6 bits
// (every shift is below 64) so that the loops keep them in registers:
// a store to dst could otherwise alias l.slots, and a Go shift by 64 or
// more needs an extra test.
func (l *layout) unpack(dst []int64, src []uint64) {
	if l.nat != nil {
		l.nat(dst, src)
		return
	}
	sl := l.slots
	dst = dst[:len(sl)]
	if len(src) == 1 {
		// One word: kept in a register, no load and bounds test per slot.
		x := src[0]
		for i := range sl {
			p := &sl[i]
			dst[i] = int64((x>>(p.shift&63))&p.mask) + p.lo
		}
		return
	}
	for i := range sl {
		p := &sl[i]
		dst[i] = int64((src[p.word]>>(p.shift&63))&p.mask) + p.lo
	}
}

// unpackSlots unpacks only the given slots of src into dst.
func (l *layout) unpackSlots(dst []int64, src []uint64, slots []int32) {
	sl := l.slots
	for _, i := range slots {
		p := &sl[i]
		dst[i] = int64((src[p.word]>>(p.shift&63))&p.mask) + p.lo
	}
}

const (
	hashK0 = 0xa0761d6478bd642f
	hashK1 = 0xe7037ed1a0b428db
	hashK2 = 0x8ebc6af09c88c6e3
)

// Hash returns the hash a [Store] uses for vec (the search computes it
// once per successor and hands it to Store.InsertHashed).
func Hash(vec []uint64) uint64 { return hashWords(vec) }

// hashWords is a wyhash-style 64-bit hash of a vector: each word is
// folded in with a 64x64->128 multiply, then the result is finalised.
func hashWords(w []uint64) uint64 {
	h := uint64(len(w))*hashK2 ^ hashK1
	for _, x := range w {
		hi, lo := bits.Mul64(x^hashK0, h^hashK1)
		h = hi ^ lo
	}
	hi, lo := bits.Mul64(h^hashK2, hashK0)
	h = hi ^ lo
	h ^= h >> 29
	return h
}
