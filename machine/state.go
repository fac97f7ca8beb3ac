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

// repSlot is a slot of a one-word vector as Machine.collect re-encodes
// it: value v is (v-lo)*mul masked by hmask, the slot's bits in place
// (mul is 1<<shift: a multiply, not a shift by a count in a register).
type repSlot struct {
	hmask, mul uint64
	lo         int64
}

// bitField is a slot as unpackChanged finds it from its top bit.
type bitField struct {
	mask  uint64
	lo    int64
	slot  int32
	shift uint8
}

// layout maps the slots of a model to bit fields.
type layout struct {
	slots []packSlot
	rep   []repSlot // per slot, for one-word vectors
	words int
	nat   func(dst []int64, src []uint64) // generated unpack (native.go); nil: the loop
	// repack is Machine.RepackHash: Machine.repackHash, or natRepack,
	// the generated one (native.go), when there is one.
	repack, natRepack func(m *Machine, dst, parent State) uint64
	// For unpackChanged, per word: top has the top bit of each slot's
	// bits, below the other bits of each slot; field maps the top bit of
	// a slot (word*64+bit) to its slot. deltaMax is the most changed
	// slots for which unpackChanged decodes those only.
	top, below []uint64
	field      []bitField
	deltaMax   int
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
	l.repack = (*Machine).repackHash
	if used == 0 && word == 0 {
		l.words = 1 // keep at least one word so that every vector is non-empty
	}
	l.rep = make([]repSlot, len(l.slots))
	for i, p := range l.slots {
		l.rep[i] = repSlot{hmask: p.mask << p.shift, mul: 1 << p.shift, lo: p.lo}
	}
	l.top = make([]uint64, l.words)
	l.below = make([]uint64, l.words)
	l.field = make([]bitField, 64*l.words)
	fields := 0
	for i := range l.slots {
		p := &l.slots[i]
		if p.mask == 0 {
			continue
		}
		fields++
		m := p.mask << p.shift
		t := 63 - bits.LeadingZeros64(m)
		l.top[p.word] |= 1 << t
		l.below[p.word] |= m &^ (1 << t)
		l.field[64*int(p.word)+t] = bitField{mask: p.mask, lo: p.lo, slot: int32(i), shift: p.shift}
	}
	// A changed slot costs about 1.5 times what unpack pays per slot.
	l.deltaMax = 2 * fields / 3
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

// unpackChanged decodes into dst, which holds old unpacked, the slots in
// which src differs from old: dst then holds src unpacked, as after
// unpack(dst, src), at the cost of the changed slots only, or of unpack
// when more than deltaMax slots changed or the unpacking is generated. A
// bit of no slot is ignored, as unpack ignores it.
func (l *layout) unpackChanged(dst []int64, src, old []uint64) {
	if l.nat != nil {
		// The generated unpack takes a few instructions per slot, fewer
		// than finding the changed ones.
		l.nat(dst, src)
		return
	}
	old = old[:len(src)]
	if len(src) == 1 {
		x := src[0]
		c := changedTops(x^old[0], l.top[0], l.below[0])
		if bits.OnesCount64(c) > l.deltaMax {
			l.unpack(dst, src)
			return
		}
		f := l.field[:64]
		for ; c != 0; c &= c - 1 {
			p := &f[bits.TrailingZeros64(c)&63]
			dst[p.slot] = int64((x>>(p.shift&63))&p.mask) + p.lo
		}
		return
	}
	n := 0
	for w, x := range src {
		n += bits.OnesCount64(changedTops(x^old[w], l.top[w], l.below[w]))
	}
	if n > l.deltaMax {
		l.unpack(dst, src)
		return
	}
	for w, x := range src {
		c := changedTops(x^old[w], l.top[w], l.below[w])
		f := l.field[64*w : 64*w+64]
		for ; c != 0; c &= c - 1 {
			p := &f[bits.TrailingZeros64(c)&63]
			dst[p.slot] = int64((x>>(p.shift&63))&p.mask) + p.lo
		}
	}
}

// changedTops returns the top bits (top) of the slots in which the
// difference d has a bit set: adding the all-ones below each top bit
// (below) to d's bits there carries into the top bit exactly when one of
// them is set, and never past it.
func changedTops(d, top, below uint64) uint64 {
	return ((d & below) + below | d) & top
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

// Mix is SplitMix64's finaliser: a bijection of 64-bit words whose every
// output bit depends on every input bit. The engines use it to spread
// small numbers (an id, a walk's index) over 64 bits; SplitMix64's
// generator is Mix(seed += 0x9e3779b97f4a7c15).
func Mix(x uint64) uint64 {
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

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
