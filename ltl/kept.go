package ltl

import (
	"slices"

	"github.com/wrapcheck/wrapcheck/machine"
)

// keptLists is the system's successor lists: they are kept (keep: in
// succB, coded ([system.appendSuccs]); a state's at [system.listAt],
// those outside its ample set at restAt) or, under a memory budget, not:
// a list is then computed again from the machine (remach, which is never
// interrupted: the expansion succeeded once and must give the same list
// again) when asked for. Either way the recent ones stay in cache
// ([system.succs]).
type keptLists struct {
	keep bool
	// keepAct: the actions of the kept successors are kept too, when the
	// model has fairness units (the passes over the product read them);
	// else only the targets are, and [system.succs] computes a list again
	// for the few nodes whose actions a trace needs.
	keepAct bool
	act8    bool // a kept action is coded in a byte: fewer than 255 actions
	// lastTo is the targets of the last list kept of a state's ample set,
	// that of state lastIdx (noParent: none): the product's expansion
	// of a node reads the list its state's expansion just kept
	// ([system.targets]) without decoding it.
	lastTo  []uint32
	lastIdx uint32
	// succAt is per state its list's offset less its block's base
	// (succBase) << succNBits | its count; succNMax: the offset and the
	// count are in succBig ([system.setList]).
	succAt   paged[uint32]
	succBase []int64 // per block of succBlock states: the offset of the first list set in it
	// succFirst is per block of succBlock states the first target of the
	// first list kept in it (-1: none yet), from which the first target
	// of each of its lists is coded ([system.appendSuccs]).
	succFirst []int64
	succBig   map[uint32][2]int64
	succB     chunked[byte]
	succEnd   int64 // the offset of the next kept list ([system.listRoom])
	restAt    map[uint32][2]int64
	remach    *machine.Machine
	cache     []succSlot
}

// The kept list of a state: its offset in succB less the base of its
// block of succBlock states (the offset of the block's first list set,
// succBase), in succOffBits bits, and its count, in succNBits bits, in
// one word (4 bytes a state, not 8: the lists of a block's states are
// found together, by the expansions of the nodes of one level); a list
// whose offset or count does not fit is in succBig, its count succNMax.
const (
	succNBits   = 12
	succOffBits = 32 - succNBits
	succNMax    = 1<<succNBits - 1
	succBlock   = 64
)

// The kept lists are in chunks of listChunk bytes (or, for a longer
// list, a chunk of its own), so that they grow without copying: a list's
// offset is its chunk's number << listChunkBits | its place there, and no
// list spans two chunks.
const (
	listChunkBits = 16
	listChunk     = 1 << listChunkBits
)

// chunked is an array of kept lists in chunks (listChunk).
type chunked[T any] struct{ c [][]T }

// list returns the n entries at offset off.
func (a *chunked[T]) list(off, n int64) []T {
	k := off & (listChunk - 1)
	return a.c[off>>listChunkBits][k : k+n : k+n]
}

// from returns the entries from offset off to the end of its chunk.
func (a *chunked[T]) from(off int64) []T {
	return a.c[off>>listChunkBits][off&(listChunk-1):]
}

// room makes room for a list of n entries at offset off, that
// [system.listRoom] chose, and returns it.
func (a *chunked[T]) room(off, n int64) []T {
	if c := off >> listChunkBits; int(c) == len(a.c) {
		a.c = append(a.c, make([]T, max(n, listChunk)))
	}
	return a.list(off, n)
}

// bytes returns the bytes of the chunks.
func (a *chunked[T]) bytes() int64 {
	b := bytesOf(a.c)
	for _, c := range a.c {
		b += bytesOf(c)
	}
	return b
}

// listRoom returns the offset of the next kept list, of n entries: the
// next place of the last chunk when it fits there, else the start of a
// new chunk; and moves succEnd past it.
func (s *system) listRoom(n int64) int64 {
	off := s.succEnd
	if k := off & (listChunk - 1); k != 0 && k+n > listChunk {
		off += listChunk - k // to the next chunk
	}
	s.succEnd = off + n
	if n > listChunk {
		// A chunk of its own (off starts a chunk here): the next list
		// starts a new chunk.
		s.succEnd = (off>>listChunkBits + 1) << listChunkBits
	}
	return off
}

// listAt returns the offset and the length of the kept list of the
// expanded state idx.
func (s *system) listAt(idx uint32) (off, n int64) {
	w := s.succAt.get(idx)
	if n = int64(w & succNMax); n != succNMax {
		return s.succBase[idx/succBlock] + int64(w>>succNBits), n
	}
	big := s.succBig[idx]
	return big[0], big[1]
}

// setList records the offset and the length of the kept list of state
// idx. The offsets of the lists only grow ([system.listRoom]), so those
// of a block are at least its base.
func (s *system) setList(idx uint32, off, n int64) {
	b := int(idx / succBlock)
	for len(s.succBase) <= b {
		s.succBase = append(s.succBase, -1)
	}
	if s.succBase[b] < 0 {
		s.succBase[b] = off
	}
	if d := off - s.succBase[b]; d >= 0 && d < 1<<succOffBits && n < succNMax {
		*s.succAt.at(idx) = uint32(d)<<succNBits | uint32(n)
		return
	}
	s.succBig[idx] = [2]int64{off, n}
	*s.succAt.at(idx) = succNMax
}

// appendSuccs keeps the successors of state idx (rest: those outside its
// ample set) in buf/bufTo/bufPerm in succB and returns their offset
// there. A list is coded, successor after successor: the target less the
// one before it (the first: less [system.listBase]), zigzag, as a varint
// ([putUvarint]); then, when the actions are kept, the action plus one
// (0: the stutter), a byte when the model has fewer than 255 actions
// (act8), else a varint; then, under thread tracking, the permutation's
// id.
//
// The targets of a list are mostly the states that its expansion stored,
// one after the other, and states of the levels just before; the states
// of a block are expanded about together, and the states their
// expansions store are stored together: most differences take one or
// two bytes, not four. A list of more than listChunk bytes at its
// longest coding gets a chunk of its own of that length, most of which
// it may not use (a state of thousands of successors).
func (s *system) appendSuccs(idx uint32, rest bool) int64 {
	if b := int(idx / succBlock); !rest && len(s.bufTo) > 0 {
		for len(s.succFirst) <= b {
			s.succFirst = append(s.succFirst, -1)
		}
		if s.succFirst[b] < 0 {
			s.succFirst[b] = int64(s.bufTo[0])
		}
	}
	if !rest {
		s.lastTo, s.lastIdx = append(s.lastTo[:0], s.bufTo...), idx
	}
	// Coded in place: room for the longest coding, the rest given back.
	most := int64(len(s.bufTo)) * int64(5+5*b2u(s.keepAct)+5*b2u(s.threads != nil))
	off := s.listRoom(most)
	b := s.succB.room(off, most)
	prev := s.listBase(idx, rest)
	j := 0
	if !s.keepAct && s.threads == nil { // targets alone
		for _, t := range s.bufTo {
			d := int64(t) - prev
			prev = int64(t)
			j = putUvarint(b, j, uint64(d<<1^d>>63))
		}
	} else {
		for k, t := range s.bufTo {
			d := int64(t) - prev
			prev = int64(t)
			j = putUvarint(b, j, uint64(d<<1^d>>63))
			switch {
			case s.keepAct && s.act8:
				b[j] = byte(s.buf[k] + 1)
				j++
			case s.keepAct:
				j = putUvarint(b, j, uint64(s.buf[k]+1))
			}
			if s.threads != nil {
				j = putUvarint(b, j, uint64(s.bufPerm[k]))
			}
		}
	}
	if most <= listChunk { // else the list has its chunk
		s.succEnd = off + int64(j)
	}
	return off
}

// putUvarint writes x at b[j:] in 7-bit groups, the lowest first, each
// but the last with its high bit set, and returns the place after it.
func putUvarint(b []byte, j int, x uint64) int {
	for x >= 0x80 {
		b[j] = byte(x) | 0x80
		x >>= 7
		j++
	}
	b[j] = byte(x)
	return j + 1
}

// uvarint returns the varint at b[i:] and the place after it.
func uvarint(b []byte, i int) (uint64, int) {
	if x := b[i]; x < 0x80 {
		return uint64(x), i + 1
	}
	return uvarintLong(b, i)
}

// uvarintLong is uvarint for a varint of more than one byte.
func uvarintLong(b []byte, i int) (uint64, int) {
	var x uint64
	for sh := uint(0); ; sh += 7 {
		c := b[i]
		i++
		x |= uint64(c&0x7f) << sh
		if c < 0x80 {
			return x, i
		}
	}
}

// listBase returns what the first target of the kept list of state idx
// (rest: of its successors outside its ample set) is coded from: the
// first target of its block's first list, and for a list outside the
// ample set idx.
func (s *system) listBase(idx uint32, rest bool) int64 {
	if rest {
		return int64(idx)
	}
	return s.succFirst[idx/succBlock]
}

// decodeList appends the kept list of state idx (rest: of its successors
// outside its ample set) at offset off (n successors) to to, its
// targets, and, when the actions are kept, to act, their actions (-1:
// the stutter), and under thread tracking to perm, their permutations.
func (s *system) decodeList(idx uint32, rest bool, off, n int64, to []uint32, act []int32, perm []uint32) ([]uint32, []int32, []uint32) {
	if n == 0 {
		return to, act, perm
	}
	b := s.succB.from(off)
	prev, i := s.listBase(idx, rest), 0
	at := len(to)
	to = slices.Grow(to, int(n))[:at+int(n)]
	outTo := to[at:]
	if !s.keepAct && s.threads == nil {
		to = s.targetsIn(b, prev, outTo, to)
		return to, act, perm
	}
	var outAct []int32
	if s.keepAct {
		at = len(act)
		act = slices.Grow(act, int(n))[:at+int(n)]
		outAct = act[at:]
	}
	if s.keepAct && s.act8 && s.threads == nil { // the common case: a byte an action
		for k := range outTo {
			var x uint64
			x, i = uvarint(b, i)
			prev += int64(x>>1) ^ -int64(x&1)
			outTo[k] = uint32(prev)
			outAct[k] = int32(b[i]) - 1
			i++
		}
		return to, act, perm
	}
	for k := range outTo {
		var x uint64
		x, i = uvarint(b, i)
		prev += int64(x>>1) ^ -int64(x&1)
		outTo[k] = uint32(prev)
		switch {
		case s.keepAct && s.act8:
			outAct[k] = int32(b[i]) - 1
			i++
		case s.keepAct:
			x, i = uvarint(b, i)
			outAct[k] = int32(x) - 1
		}
		if s.threads != nil {
			x, i = uvarint(b, i)
			perm = append(perm, uint32(x))
		}
	}
	return to, act, perm
}

// targetsIn decodes the targets of the list whose coding starts at b,
// its first coded from prev, into out, and returns to (which ends with
// out).
func (s *system) targetsIn(b []byte, prev int64, out, to []uint32) []uint32 {
	i := 0
	if !s.keepAct && s.threads == nil { // targets alone
		for k := range out {
			var x uint64
			x, i = uvarint(b, i)
			prev += int64(x>>1) ^ -int64(x&1)
			out[k] = uint32(prev)
		}
		return to
	}
	for k := range out {
		var x uint64
		x, i = uvarint(b, i)
		prev += int64(x>>1) ^ -int64(x&1)
		out[k] = uint32(prev)
		if s.keepAct && s.act8 {
			i++
		} else if s.keepAct {
			i = skipUvarint(b, i)
		}
		if s.threads != nil {
			i = skipUvarint(b, i)
		}
	}
	return to
}

// skipUvarint returns the place after the varint at b[i:].
func skipUvarint(b []byte, i int) int {
	for b[i] >= 0x80 {
		i++
	}
	return i + 1
}

// targetsOf appends the targets of the kept list of state idx (rest: of
// its successors outside its ample set) at offset off (n successors) to
// to.
func (s *system) targetsOf(idx uint32, rest bool, off, n int64, to []uint32) []uint32 {
	if n == 0 {
		return to
	}
	at := len(to)
	to = slices.Grow(to, int(n))[:at+int(n)]
	return s.targetsIn(s.succB.from(off), s.listBase(idx, rest), to[at:], to)
}

// targets returns the targets of the successors of the expanded state
// idx (rest: those outside its ample set), in the order of
// [system.succs]: appended to tmp, or the last list kept (lastTo, to be
// read only). buf is tmp, grown, to be used again.
func (s *system) targets(idx uint32, rest bool, tmp []uint32) (tos, buf []uint32) {
	if !s.keep {
		for _, sc := range s.succs(idx, rest) {
			tmp = append(tmp, sc.to)
		}
		return tmp, tmp
	}
	if rest && !s.rest[idx] || !rest && s.failure[idx] != nil {
		return tmp, tmp
	}
	if !rest && idx == s.lastIdx {
		return s.lastTo, tmp
	}
	off, n := s.keptList(idx, rest)
	tmp = s.targetsOf(idx, rest, off, n, tmp)
	return tmp, tmp
}

// keptList returns the offset in succB and the length of the kept list
// of the expanded state s (rest: of its successors outside its ample
// set; none when restOf did not compute them).
func (s *system) keptList(idx uint32, rest bool) (off, n int64) {
	if !rest {
		return s.listAt(idx)
	}
	if !s.rest[idx] {
		return 0, 0
	}
	r := s.restAt[idx]
	return r[0], r[1]
}
