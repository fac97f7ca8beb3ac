package machine

import (
	"math/bits"
	"slices"
)

// MaxConjBits is the most conjuncts for which a [ConjIndex] keeps each
// slot's conjuncts as a bit set: a few words per slot to OR, and as many
// to scan per state.
const MaxConjBits = 256

// ConjIndex is the index from the slots of a program's packed states to
// the conjuncts (of a list, numbered by their place in it) that read
// them: a state made from a parent that satisfied every conjunct needs
// only those of the slots in which it differs from the parent checked
// (the search's invariant check, in checker and in cluster). It is built
// once and only read after, by any number of goroutines at once, each
// with its own [ConjScratch].
//
// Per slot the numbers of the conjuncts that read it are kept,
// ascending; with at most MaxConjBits conjuncts the same sets are also
// kept as bit sets, Words words per slot, which Changed ORs instead of
// merging lists; with at most 64, the changed slots are found from their
// top bits (changedTops), one word of conjuncts each.
type ConjIndex struct {
	n         int // conjuncts
	slotConjs [][]int32
	cw        int      // words per slot in slotBits; 0: no bit sets
	slotBits  []uint64 // slot sl's conjuncts: words sl*cw.., bit g%64 of word g/64
	bitSlot   []int32  // per bit of the packed vector: its slot, -1: none
	slotMask  []uint64 // per slot: its bits in its word (Program.SlotBits)
	// For changedWord: per word, the top bit of each slot's bits (top)
	// and the slots' other bits (below), the layout's own; and per top
	// bit (word*64+bit) the slot and its conjuncts.
	top, below []uint64
	topSlot    []topSlot
}

// topSlot is a slot as changedWord finds it from its top bit.
type topSlot struct {
	conjs uint64 // the slot's conjuncts, with one word of them
	slot  int32
}

// ConjScratch is the room of one goroutine's [ConjIndex.Changed] calls.
type ConjScratch struct {
	// Slots lists the slots in which the last Changed call's state
	// differs from its parent.
	Slots    []int32
	cands    []int32
	word     [64]int32
	bits     []uint64
	stamp    []uint32
	stampCur uint32
}

// Scratch returns room for one goroutine's Changed calls, each of its
// slices on cache lines of its own (padded: several workers' rooms made
// one after the other would share them).
func (x *ConjIndex) Scratch() ConjScratch {
	return ConjScratch{Slots: Padded[int32](len(x.slotConjs))[:0], cands: Padded[int32](x.n)[:0]}
}

// NewConjIndex indexes conjs, conjunct g being conjs[g], over the slots
// of p's packed states.
func NewConjIndex(p *Program, conjs []*Conjunct) *ConjIndex {
	x := &ConjIndex{n: len(conjs), slotConjs: make([][]int32, p.Slots())}
	for g, cj := range conjs {
		for _, sl := range cj.Slots() {
			x.slotConjs[sl] = append(x.slotConjs[sl], int32(g))
		}
	}
	if n := len(conjs); n <= MaxConjBits {
		cw := (n + 63) / 64
		x.cw = cw
		x.slotBits = make([]uint64, p.Slots()*cw)
		for sl, gs := range x.slotConjs {
			for _, g := range gs {
				x.slotBits[sl*cw+int(g)/64] |= 1 << (uint(g) % 64)
			}
		}
	}
	nw := p.Words()
	x.bitSlot = make([]int32, nw*64)
	for b := range x.bitSlot {
		x.bitSlot[b] = -1
	}
	x.slotMask = make([]uint64, p.Slots())
	x.top, x.below = p.lay.top, p.lay.below
	x.topSlot = make([]topSlot, nw*64)
	for i := range p.Slots() {
		word, mask := p.SlotBits(i)
		x.slotMask[i] = mask
		for b := 0; b < 64; b++ {
			if mask>>b&1 != 0 {
				x.bitSlot[word*64+b] = int32(i)
			}
		}
		if mask != 0 {
			t := 63 - bits.LeadingZeros64(mask)
			x.topSlot[word*64+t].slot = int32(i)
			if x.cw == 1 {
				x.topSlot[word*64+t].conjs = x.slotBits[i]
			}
		}
	}
	return x
}

// Words returns the words of a slot's bit set of conjuncts: 0 when there
// are none or more than MaxConjBits conjuncts (the index keeps lists
// alone).
func (x *ConjIndex) Words() int { return x.cw }

// Changed returns, ascending, the conjuncts that read a slot in which
// vec differs from parent, and lists those slots in sc.Slots. The result
// is sc's room, valid until its next call.
func (x *ConjIndex) Changed(vec, parent []uint64, sc *ConjScratch) []int32 {
	switch cw := x.cw; {
	case cw == 1:
		return x.changedWord(vec, parent, sc) // one call, not two
	case cw > 0:
		return x.changedBits(vec, parent, sc)
	}
	return x.changedList(vec, parent, sc)
}

// changedWord is Changed for at most 64 conjuncts: one word to OR per
// changed slot (found from its top bit, changedTops), read out into a
// fixed array.
func (x *ConjIndex) changedWord(vec, parent []uint64, sc *ConjScratch) []int32 {
	var acc uint64
	ch := sc.Slots[:0]
	parent = parent[:len(vec)]
	for wd, v := range vec {
		c := changedTops(v^parent[wd], x.top[wd], x.below[wd])
		ts := x.topSlot[wd*64 : wd*64+64]
		for ; c != 0; c &= c - 1 {
			t := &ts[bits.TrailingZeros64(c)&63]
			ch = append(ch, t.slot)
			acc |= t.conjs
		}
	}
	sc.Slots = ch
	c := &sc.word
	n := 0
	for ; acc != 0; acc &= acc - 1 {
		c[n&63] = int32(bits.TrailingZeros64(acc))
		n++
	}
	return c[:n]
}

// changedBits is Changed over the slots' bit sets: their union, read out
// in ascending order, needs neither stamps nor a sort.
func (x *ConjIndex) changedBits(vec, parent []uint64, sc *ConjScratch) []int32 {
	cw := x.cw
	if len(sc.bits) != cw {
		sc.bits = Padded[uint64](cw)
	}
	acc := sc.bits
	sc.Slots = x.changedSlots(vec, parent, sc.Slots[:0])
	for _, sl := range sc.Slots {
		o := int(sl) * cw
		for j, b := range x.slotBits[o : o+cw] {
			acc[j] |= b
		}
	}
	c := sc.cands[:0]
	for j, b := range acc {
		for ; b != 0; b &= b - 1 {
			c = append(c, int32(j*64+bits.TrailingZeros64(b)))
		}
		acc[j] = 0
	}
	sc.cands = c
	return c
}

// changedList is Changed over the slots' lists, for more than
// MaxConjBits conjuncts (and the tests' reference for the others).
func (x *ConjIndex) changedList(vec, parent []uint64, sc *ConjScratch) []int32 {
	if len(sc.stamp) != x.n {
		sc.stamp = Padded[uint32](x.n)
		sc.stampCur = 0
	}
	sc.stampCur++
	if sc.stampCur == 0 {
		clear(sc.stamp)
		sc.stampCur = 1
	}
	cur := sc.stampCur
	c := sc.cands[:0]
	sc.Slots = x.changedSlots(vec, parent, sc.Slots[:0])
	sorted := true
	for _, sl := range sc.Slots {
		for _, g := range x.slotConjs[sl] {
			if sc.stamp[g] != cur {
				sc.stamp[g] = cur
				sorted = sorted && (len(c) == 0 || c[len(c)-1] < g)
				c = append(c, g)
			}
		}
	}
	if !sorted {
		slices.Sort(c)
	}
	sc.cands = c
	return c
}

// changedSlots appends to ch the slots in which vec differs from parent,
// in the order of their bits.
func (x *ConjIndex) changedSlots(vec, parent []uint64, ch []int32) []int32 {
	for wd := range vec {
		d := vec[wd] ^ parent[wd]
		for d != 0 {
			sl := x.bitSlot[wd*64+bits.TrailingZeros64(d)]
			if sl < 0 {
				d &= d - 1
				continue
			}
			d &^= x.slotMask[sl]
			ch = append(ch, sl)
		}
	}
	return ch
}
